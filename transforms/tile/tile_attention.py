"""tile-attention: schedule an attention loop kernel (fuse-attention's `attn.softmax_reduce`) as one
flash-attention tile: `attn.flash` in a `tile.tile` of one block per `rows` query rows.

    loop.kernel @k ins(..) outs(..) {
      loop.for free %b.. { loop.for free %l < L { loop.for free %c < DV {
        %o = attn.softmax_reduce < S -> f32 score {^bb0(%s): q . k (depth D), epilogue} value {^bb0(%s): v}
        loop.store f(%o), %out[..]
      }}}
    }
->
    tile.kernel @k ins(..) outs(..) {
      tile.tile (%b.. = block, %qb : ceil(L / rows) = block, %w : rows / 16 = thread, %g : 8 = thread, %t : 4 = thread) {
        %l0 = affine.apply (d0 * rows)(%qb)
        attn.flash %l0 rows R queries L keys S tile N depth D x DV chain C precision P [causal]
          query {(l, c): the query operand} key {(s, c): the key operand} value {(s, c): v}
          score {(x, l, s): the epilogue on x = q . k} output {(o, l, c): the store of f(o)}
      }
    }

The batch loops (the free loops other than the query row and the value column, see
`loop/attention.py`) become block axes with the query block; each region is the slice of the
loop nest that computes its value, with the loops' indices replaced by the region's arguments.
`causal` is recorded when the score is `select(s > l, -inf, ..)` (what decompose-attention writes
for `is_causal`): key tiles past a block's last row are then skipped. The block's warps each
take 16 query rows in the mma.sync fragment layout; materialize-attention lowers it.

Options: `rows` (query rows per block, a multiple of 16 up to 128), `tile` (keys per step, a
multiple of 8 up to 128), `chain` (k-steps per tensor-core accumulation chain, 0: one chain),
`precision` (3xtf32 | tf32 on the tensor cores, ieee: SIMT fp32).
Declines (logged to `dpl.passes`): a kernel that is not an attention nest, or one the flash
kernel cannot take (`attention.flash_declines`), with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, Float32Type, FloatAttr, IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import attn, loop, mma, tile
from dpl.transforms.loop.attention import AttentionNest, clone_values, flash_declines, match_attention
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG

AK = tile.AxisKind
_UGT, _ULT, _SGT, _SLT = 8, 6, 4, 2


def is_causal(score: Region) -> bool:
    """Whether the score region yields `select(s > l, -inf, ..)` (args x, l, s)."""
    _, l, s = score.block.args
    sel = score.block.last_op.values[0].owner  # type: ignore[union-attr]
    if not isinstance(sel, arith.SelectOp):
        return False
    ninf = sel.lhs.owner
    if not (isinstance(ninf, arith.ConstantOp) and isinstance(ninf.value, FloatAttr)
            and ninf.value.value.data == float("-inf")):  # fmt: skip
        return False
    cmp = sel.cond.owner
    if not isinstance(cmp, arith.CmpiOp):
        return False
    pred = cmp.predicate.value.data
    return (pred in (_UGT, _SGT) and (cmp.lhs, cmp.rhs) == (s, l)) or (
        pred in (_ULT, _SLT) and (cmp.lhs, cmp.rhs) == (l, s)
    )


def build_flash(nest: AttentionNest, rows: int, keys_tile: int, chain: int, precision: mma.Precision) -> tile.KernelOp:
    """The tile.kernel of `nest` (see the module doc)."""
    kernel = nest.kernel
    sizes = nest.sizes
    body = Block()
    vm: dict[SSAValue, SSAValue] = {}
    for o in kernel.body.block.ops:  # constants before the loops
        if not o.regions:
            new = o.clone(value_mapper=vm)
            body.add_op(new)
    axes = [(f.extent.data, AK.BLOCK) for f in nest.batch]
    axes += [(-(-sizes["queries"] // rows), AK.BLOCK), (rows // 16, AK.THREAD), (8, AK.THREAD), (4, AK.THREAD)]
    t = tile.TileOp(axes)
    args = t.body.block.args
    for f, a in zip(nest.batch, args):
        a.name_hint = f.iv.name_hint
        vm[f.iv] = a
    qb = args[len(nest.batch)]
    for a, name in zip(args[len(nest.batch):], ("qb", "w", "g", "t")):
        a.name_hint = name
    l0 = affine.ApplyOp([qb], AffineMapAttr(AffineMap(1, 0, (AffineExpr.dimension(0) * rows,))))
    l0.result.name_hint = "l0"
    t.body.block.add_op(l0)
    op = nest.op
    f32, idx = Float32Type(), IndexType()

    def region(names: list[str], types: list, binds: list, values: list[SSAValue], tail=None) -> Region:
        """A region whose args (named, typed) stand for the `binds` (None: unused), holding the
        slice that computes `values` and ending in their yield (or `tail`)."""
        block = Block(arg_types=types)
        m = dict(vm)
        for a, n, b in zip(block.args, names, binds):
            a.name_hint = n
            if b is not None:
                m[b] = a
        clone_values(values, m, block, kernel)
        if tail is None:
            block.add_op(attn.YieldOp(*[m.get(v, v) for v in values]))
        else:
            tail(block, m)
        return Region(block)

    row = nest.row.iv if nest.row else None
    col = nest.column.iv if nest.column else None
    e = nest.contraction.iv
    s_score, s_value = op.score.block.args[0], op.value.block.args[0]

    def store(block: Block, m: dict) -> None:
        block.add_op(nest.store.clone(value_mapper=m))
        block.add_op(attn.YieldOp())

    regions = [
        region(["l", "c"], [idx, idx], [row, e], [nest.query]),
        region(["s", "c"], [idx, idx], [s_score, e], [nest.key]),
        region(["s", "c"], [idx, idx], [s_value, col], [op.value_value]),
        region(["x", "l", "s"], [f32, idx, idx], [nest.contraction.res[0], row, s_score], [op.score_value]),
        region(["o", "l", "c"], [f32, idx, idx], [op.result, row, col], list(nest.store.operands), store),
    ]
    flash_sizes = dict(sizes, rows=rows, tile=keys_tile)
    flash = attn.FlashOp(l0.result, flash_sizes, chain, precision, is_causal(regions[3]), regions)
    t.body.block.add_op(flash)
    body.add_op(t)
    new = tile.KernelOp(kernel.sym_name.data, list(kernel.ins), list(kernel.outs), body)
    new.attributes |= kernel.attributes
    return new


@dataclass(frozen=True)
class TileAttention(ModulePass):
    """Schedule attention loop kernels (attn.softmax_reduce) as attn.flash tiles."""

    name = "tile-attention"

    rows: int = 64
    tile: int = 64
    chain: int = 4
    precision: str = "3xtf32"

    def __post_init__(self):
        check_option(self, "rows", 16, 128)
        check_option(self, "tile", 8, 128)
        check_option(self, "chain", 0, 64)
        check_option(self, "precision", choices=mma.PRECISIONS)
        if self.rows % 16:
            raise ValueError(f"tile-attention: option rows must be a multiple of 16, got {self.rows}")
        if self.tile % 8:
            raise ValueError(f"tile-attention: option tile must be a multiple of 8, got {self.tile}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            if not any(isinstance(o, attn.SoftmaxReduceOp) for o in kernel.walk()):
                continue
            nest = match_attention(kernel)
            if not isinstance(nest, str):
                nest = flash_declines(nest) or nest
            if isinstance(nest, str):
                LOG.info(f"tile-attention: @{kernel.sym_name.data} declined: {nest}")
                continue
            new = build_flash(nest, self.rows, self.tile, self.chain, mma.Precision(self.precision))
            Rewriter.replace_op(kernel, new)
