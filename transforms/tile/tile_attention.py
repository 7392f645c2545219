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
        attn.flash %l0 rows R queries L keys S tile N depth D x DV chain C precision P [wide W] [qsplit] [causal]
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

With `splits` > 1 the keys are split (split-KV, for query tiles too few to fill the GPU) into at
most that many runs of whole key tiles, none empty (`split_count`): a block axis %sp before the
query block, `split %sp keys C` on the attn.flash, whose output region stores each split's output
into a new buffer `<name>_part`[sp, free loops..] and whose lse region its rows' log-sum-exp into
`<name>_lse`[sp, free loops but the value column..]; a loop kernel `@<name>_combine` after it
(the attention nest with the attn.softmax_reduce replaced) weighs the splits by softmax(lse):

    m = max_sp lse[sp, ..];  o = sum_sp exp(lse[sp, ..] - m) part[sp, ..] / sum_sp exp(lse[sp, ..] - m)

written out over the splits (a pointwise kernel; the schedule after tile-attention takes it).

Options (`rows`, `tile`, `splits` tunable: the flash kernel's tuning space): `rows` (query rows
per block, a multiple of 16 up to 128), `tile` (keys per step, a multiple of 8 up to 128),
`splits` (at most this many splits of the keys, 1: none), `chain` (k-steps per tensor-core accumulation chain, 0: one chain),
`precision` (3xtf32 | tf32 on the tensor cores, ieee: SIMT fp32), `wide` (where the sizes allow,
`attn.wide_fragments_decline`, the attn.flash loads fragments 128 bits wide: 1 the scores', 2
P @ V's too; 0: 32-bit fragment loads), `qsplit` (1: the attn.flash splits its query tile into
TF32 parts once, in shared memory, not per key tile; more shared memory), `wgmma` (1: the block
is one warpgroup on warpgroup MMA, sm_90a, lowered by materialize-attention-wgmma; `wide` and
`qsplit` are then unused; where `attn.wgmma_decline` refuses the sizes, e.g. a split over the
keys or a head dim past 128, the kernel stays on mma.sync, logged).
Declines (logged to `dpl.passes`): a kernel that is not an attention nest, or one the flash
kernel cannot take (`attention.flash_declines`), with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, math, memref
from xdsl.dialects.builtin import AffineMapAttr, Float32Type, FloatAttr, IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import attn, loop, mma, tile
from dpl.transforms.loop.attention import AttentionNest, clone_values, flash_declines, match_attention
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tunable import tunable

AK = tile.AxisKind
_UGT, _ULT, _SGT, _SLT = 8, 6, 4, 2


def is_causal(score: Region) -> bool:
    """Whether the score region yields `select(s > l, -inf, ..)` (args x, l, s)."""
    _, l, s = score.block.args
    return causal_select(score.block.last_op.values[0], l, s)  # type: ignore[union-attr]


def causal_select(score: SSAValue, l: SSAValue, s: SSAValue) -> bool:
    """Whether `score` is `select(s > l, -inf, ..)`: key s masked past query row l."""
    sel = score.owner
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


def split_count(keys: int, keys_tile: int, splits: int) -> tuple[int, int]:
    """(splits, keys per split) of `keys` over at most `splits` splits of whole key tiles, none
    empty."""
    tiles = -(-keys // keys_tile)
    per = -(-tiles // max(1, splits))
    return -(-tiles // per), per * keys_tile


def build_flash(nest: AttentionNest, rows: int, keys_tile: int, chain: int, precision: mma.Precision,
                split: tuple[int, int, SSAValue, SSAValue] | None = None, wide: int = 0,
                qsplit: bool = False, wgmma: bool = False) -> tile.KernelOp:  # fmt: skip
    """The tile.kernel of `nest` (see the module doc); `split` (splits, keys per split, the
    partial output and log-sum-exp buffers) makes it the split-KV kernel; `wide` (1: the
    scores', 2: P @ V's too): 128-bit fragment loads where the sizes allow them
    (attn.wide_fragments_decline); `qsplit`: the query tile split once (tensor cores only);
    `wgmma`: on warpgroup MMA (the caller has checked attn.wgmma_decline)."""
    kernel = nest.kernel
    sizes = nest.sizes
    body = Block()
    vm: dict[SSAValue, SSAValue] = {}
    for o in kernel.body.block.ops:  # constants before the loops
        if not o.regions:
            new = o.clone(value_mapper=vm)
            body.add_op(new)
    axes = [(f.extent.data, AK.BLOCK) for f in nest.batch]
    axes += [(split[0], AK.BLOCK)] if split else []
    axes += [(-(-sizes["queries"] // rows), AK.BLOCK), (rows // 16, AK.THREAD), (8, AK.THREAD), (4, AK.THREAD)]
    t = tile.TileOp(axes)
    args = t.body.block.args
    for f, a in zip(nest.batch, args):
        a.name_hint = f.iv.name_hint
        vm[f.iv] = a
    inner = args[len(nest.batch):]
    sp = inner[0] if split else None
    for a, name in zip(inner, (("sp",) if split else ()) + ("qb", "w", "g", "t")):
        a.name_hint = name
    qb = inner[1] if split else inner[0]
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

    def partial(buffer: SSAValue, names: list[str], loops: list) -> Region:
        """A region (value, index of each loop of `loops` that is not None) storing the value at
        `buffer`[sp, the nest's free loops (batch: their block axes)]."""
        block = Block(arg_types=[f32] + [idx] * len(loops))
        for a, n in zip(block.args, names):
            a.name_hint = n
        bound = dict(zip(loops, block.args[1:]))
        at = [sp] + [bound[f] if f in bound else vm[f.iv] for f in nest.loops if f is not nest.column or f in bound]
        block.add_op(loop.StoreOp(block.args[0], buffer, at, AffineMap.identity(len(at))))  # type: ignore[arg-type]
        block.add_op(attn.YieldOp())
        return Region(block)

    regions = [
        region(["l", "c"], [idx, idx], [row, e], [nest.query]),
        region(["s", "c"], [idx, idx], [s_score, e], [nest.key]),
        region(["s", "c"], [idx, idx], [s_value, col], [op.value_value]),
        region(["x", "l", "s"], [f32, idx, idx], [nest.contraction.res[0], row, s_score], [op.score_value]),
        region(["o", "l", "c"], [f32, idx, idx], [op.result, row, col], list(nest.store.operands), store),
    ]
    split_at, lse = None, None
    if split:
        regions[4] = partial(split[2], ["o", "l", "c"], [nest.row, nest.column])
        assert sp is not None
        split_at, lse = (sp, split[1]), partial(split[3], ["x", "l"], [nest.row])
    flash_sizes = dict(sizes, rows=rows, tile=keys_tile)
    if attn.wide_fragments_decline(sizes["depth"], sizes["value_depth"], chain, precision):
        wide = 0
    flash = attn.FlashOp(l0.result, flash_sizes, chain, precision, is_causal(regions[3]), regions, split_at,
                         lse, wide, qsplit and precision != mma.Precision.IEEE, wgmma)  # fmt: skip
    t.body.block.add_op(flash)
    body.add_op(t)
    outs = [split[2], split[3]] if split else list(kernel.outs)
    new = tile.KernelOp(kernel.sym_name.data, list(kernel.ins), outs, body)
    new.attributes |= kernel.attributes
    return new


def combine_kernel(nest: AttentionNest, part: SSAValue, lse: SSAValue, splits: int) -> loop.KernelOp:
    """`nest`'s kernel with its attn.softmax_reduce replaced by the combine of the splits'
    partial outputs: with m = max_sp lse[sp, ..], o = sum_sp exp(lse - m) part[sp, ..] /
    sum_sp exp(lse - m) (the splits weighed by softmax(lse)), written out over the splits (a
    pointwise kernel: `splits` is small)."""
    kernel = nest.kernel
    index = list(kernel.walk()).index(nest.op)
    copy = kernel.clone()
    op = list(copy.walk())[index]
    assert isinstance(op, attn.SoftmaxReduceOp)
    frees = [o for o in kernel.walk() if isinstance(o, loop.ForOp) and not o.is_reduce]
    ivs = dict(zip(frees, [o.iv for o in copy.walk() if isinstance(o, loop.ForOp) and not o.is_reduce]))
    row_ivs = [ivs[f] for f in nest.loops if f is not nest.column]
    all_ivs = [ivs[f] for f in nest.loops]
    block = op.parent_block()
    assert block is not None

    def add(new: Operation) -> SSAValue:
        block.insert_op_before(new, op)
        return new.results[0]

    def at(buffer: SSAValue, sp: int, indices: list[SSAValue]) -> SSAValue:
        d = [AffineExpr.dimension(i) for i in range(len(indices))]
        amap = AffineMap(len(indices), 0, (AffineExpr.constant(sp), *d))
        return add(loop.LoadOp(buffer, indices, amap))

    xs = [at(lse, sp, row_ivs) for sp in range(splits)]
    m = xs[0]
    for x in xs[1:]:
        m = add(arith.MaximumfOp(m, x))
    num = den = None
    for sp, x in enumerate(xs):
        w = add(math.ExpOp(add(arith.SubfOp(x, m))))
        p = add(arith.MulfOp(w, at(part, sp, all_ivs)))
        den = w if den is None else add(arith.AddfOp(den, w))
        num = p if num is None else add(arith.AddfOp(num, p))
    assert num is not None and den is not None
    o = add(arith.DivfOp(num, den))
    o.name_hint = op.result.name_hint
    op.result.replace_all_uses_with(o)
    op.detach()
    op.erase()
    used = [b for b in dict.fromkeys(o.memref for o in copy.walk() if isinstance(o, loop.LoadOp))
            if b not in copy.outs]  # fmt: skip
    body = copy.detach_region(0)
    new = loop.KernelOp(f"{kernel.sym_name.data}_combine", used, list(copy.outs), body)
    copy.erase()
    return new


@dataclass(frozen=True)
class TileAttention(ModulePass):
    """Schedule attention loop kernels (attn.softmax_reduce) as attn.flash tiles."""

    name = "tile-attention"

    rows: int = tunable(64, (32, 64, 128))
    tile: int = tunable(64, (16, 32, 64, 128))
    chain: int = 4
    precision: str = "3xtf32"
    splits: int = tunable(1, (1, 2, 4, 8, 16))
    wide: int = 1
    qsplit: int = 0
    wgmma: int = 0

    def __post_init__(self):
        check_option(self, "rows", 16, 128)
        check_option(self, "tile", 8, 128)
        check_option(self, "chain", 0, 64)
        check_option(self, "precision", choices=mma.PRECISIONS)
        check_option(self, "splits", 1, 64)
        check_option(self, "wide", 0, 2)
        check_option(self, "qsplit", 0, 1)
        check_option(self, "wgmma", 0, 1)
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
            parent = kernel.parent_block()
            assert parent is not None
            splits, per = split_count(nest.sizes["keys"], self.tile, self.splits)
            split = None
            if splits > 1:  # the partial outputs and log-sum-exps, then their combine
                name = kernel.sym_name.data.removeprefix("k_")
                shape = [splits] + [f.extent.data for f in nest.loops]
                part = memref.AllocOp.get(Float32Type(), shape=shape)
                part.memref.name_hint = f"{name}_part"
                lse_shape = [splits] + [f.extent.data for f in nest.loops if f is not nest.column]
                lse = memref.AllocOp.get(Float32Type(), shape=lse_shape)
                lse.memref.name_hint = f"{name}_lse"
                parent.insert_ops_before([part, lse], kernel)
                split = (splits, per, part.memref, lse.memref)
            precision = mma.Precision(self.precision)
            wgmma = bool(self.wgmma)
            if wgmma:
                why = attn.wgmma_decline(self.rows, self.tile, nest.sizes["depth"], nest.sizes["value_depth"],
                                         precision, split is not None)  # fmt: skip
                if why:
                    LOG.info(f"tile-attention: @{kernel.sym_name.data}: wgmma declined (needs {why}): mma.sync")
                    wgmma = False
            new = build_flash(nest, self.rows, self.tile, self.chain, precision, split,
                              0 if wgmma else self.wide, bool(self.qsplit) and not wgmma, wgmma)  # fmt: skip
            if split is not None:
                parent.insert_op_after(combine_kernel(nest, split[2], split[3], splits), kernel)
            Rewriter.replace_op(kernel, new)
