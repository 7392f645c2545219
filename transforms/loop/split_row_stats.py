"""split-row-stats: move each statistic of a norm-like row kernel into a reduction kernel of its own.

A row kernel (outer free loops over the rows, then a row body holding reduce loops and the ops
and free loops that use them: LayerNorm, RMSNorm, softmax) runs one row per block on the GPU;
with few long rows (a LayerNorm of 16 rows of 4M elements) most of the GPU idles, and a row
cannot be shared by several blocks, which would have to wait for each other's statistic. Each
top-level reduce of the row body therefore becomes a kernel of its own, storing the statistic
into a new buffer (one element per row), and the rest reads it back:

    loop.kernel @k ins(%x) outs(%y) { loop.for free %a < 16 {
      %s = loop.for reduce %r < N { ...%x[%a, %r]... }          (the sum)
      %m = arith.mulf %s, %inv_n
      %v = loop.for reduce %r < N { ...(%x[%a, %r] - %m)^2... }  (the variance)
      loop.for free %i < N { ...store %y[%a, %i]... } } }
 ->
    loop.kernel @k_stat0 ins(%x) outs(%k_stat0) { loop.for free %a < 16 {
      %s = loop.for reduce ...; loop.store %s, %k_stat0[%a] } }
    loop.kernel @k_stat1 ins(%x, %k_stat0) outs(%k_stat1) { loop.for free %a < 16 {
      %s = loop.load %k_stat0[%a]; %m = arith.mulf %s, %inv_n
      %v = loop.for reduce ...; loop.store %v, %k_stat1[%a] } }
    loop.kernel @k ins(%x, %k_stat0, %k_stat1) outs(%y) { ...loads of both, the free loop... }

Each statistic kernel is a plain reduction (split-reduce spreads its rows over many blocks) and
the last kernel is pointwise. Each kernel reads the row once more than a row kernel whose row
stays in shared memory would; the schedule splits only rows too long for that and too few to
fill the GPU. The statistics are computed by the same ops in the same order, so meaning is
kept.

A kernel without outer free loops whose body holds reduce loops (`x / x.abs().max()`,
`x.var()`) is one row, the whole tensor: its statistics go to one-element buffers, each kernel
a reduction of the whole tensor that split-reduce spreads over the GPU, where the one row
would have run on one block.

Declines (logged to `dpl.passes`) a kernel without a top-level reduce in its row body (or in
its body, without outer free loops), whose row body is a single reduce and its store (already a
plain reduction), or with a reduce of more than one result.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop
from dpl.transforms.loop.fuse_loops import LOG
from dpl.transforms.loop.nest import erase_unused_index_ops, is_pure


def row_body(kernel: loop.KernelOp, whole: bool = False) -> tuple[list[loop.ForOp], Block] | str:
    """The chain of outer free loops (one per level, beside pure ops only) and the block inside
    the last of them; or why the kernel is not a row kernel. With `whole`, a kernel without outer
    free loops whose body holds a reduce loop is one row: ([], its body) (`x / x.abs().max()`,
    `x.var()`: a statistic of the whole tensor)."""
    chain: list[loop.ForOp] = []
    block = kernel.body.block
    while True:
        ops = [o for o in block.ops if not isinstance(o, loop.YieldOp)]
        loops = [o for o in ops if isinstance(o, loop.ForOp)]
        if len(loops) != 1 or loops[0].is_reduce or not all(is_pure(o) for o in ops if o is not loops[0]):
            break
        chain.append(loops[0])
        block = loops[0].body.block
    if not chain:
        if whole and _reduces(block):
            return [], block
        return "no outer free loop over rows"
    return chain, block


def _reduces(block: Block) -> list[loop.ForOp]:
    return [o for o in block.ops if isinstance(o, loop.ForOp) and o.is_reduce]


def declines(kernel: loop.KernelOp) -> str | None:
    """Why split-row-stats would leave `kernel` as it is, or None."""
    found = row_body(kernel, whole=True)
    if isinstance(found, str):
        return found
    _, block = found
    reduces = _reduces(block)
    if not reduces:
        return "no reduce loop in the row body"
    rest = [o for o in block.ops if not isinstance(o, loop.YieldOp) and not is_pure(o)]
    if len(reduces) == 1 and all(isinstance(o, loop.StoreOp) for o in rest if o is not reduces[0]):
        return "the row body is one reduce and its store (a plain reduction already)"
    if any(len(r.res) != 1 for r in reduces):
        return "a reduce loop with more than one result"
    return None


def _position(op: Operation, root: Operation) -> list[int]:
    """Where `op` sits under `root`: the index of each ancestor in its block."""
    path = []
    while op is not root:
        block = op.parent_block()
        assert block is not None
        path.append(list(block.ops).index(op))
        op = block.parent_op()  # type: ignore[assignment]
    return path[::-1]


def _at(root: Operation, path: list[int]) -> Operation:
    op = root
    for i in path:
        op = list(op.regions[0].block.ops)[i]
    return op


def _used(region, buffers) -> list[SSAValue]:
    used = {operand for op in region.walk() for operand in op.operands}
    return list(dict.fromkeys(b for b in buffers if b in used))


def split_first(kernel: loop.KernelOp, index: int) -> loop.KernelOp:
    """Move the first top-level reduce of `kernel`'s row body into a kernel `<name>_stat<index>`
    placed before it; return that kernel."""
    chain, block = row_body(kernel, whole=True)  # type: ignore[misc]
    red = _reduces(block)[0]
    name = kernel.sym_name.data
    t = red.res[0].type
    shape = [f.extent.data for f in chain] or [1]  # the whole kernel's statistic: one element
    alloc = memref.AllocOp.get(t, shape=shape)
    alloc.memref.name_hint = f"{name.removeprefix('k_')}_stat{index}"
    Rewriter.insert_op(alloc, InsertPoint.before(kernel))
    stat = alloc.memref
    ivs = [f.iv for f in chain]
    at = AffineMap(len(ivs), 0, tuple(AffineDimExpr(i) for i in range(len(ivs))) or (AffineConstantExpr(0),))

    # The statistic: the reduce and what it needs; everything else in the row body goes.
    first = kernel.clone()
    path = _position(red, kernel)
    red1 = _at(first, path)
    assert isinstance(red1, loop.ForOp)
    block1 = red1.parent_block()
    assert block1 is not None
    keep = set(_slice(red1, block1))
    for op in reversed(list(block1.ops)):
        if op not in keep and not isinstance(op, loop.YieldOp):
            op.detach()
            op.erase()
    chain1 = [_at(first, _position(f, kernel)) for f in chain]
    store = loop.StoreOp(red1.res[0], stat, [f.iv for f in chain1], at)  # type: ignore[attr-defined]
    block1.insert_op_after(store, red1)
    erase_unused_index_ops(first)

    # The rest: the statistic read back.
    back = loop.LoadOp(stat, ivs, at)
    back.result.name_hint = red.res[0].name_hint
    Rewriter.replace_op(red, back)
    erase_unused_index_ops(kernel)

    body1 = Rewriter.move_region_contents_to_new_regions(first.body)
    k1 = loop.KernelOp(f"{name}_stat{index}", _used(body1, kernel.ins), [stat], body1)
    first.erase()
    Rewriter.insert_op(k1, InsertPoint.before(kernel))
    body2 = Rewriter.move_region_contents_to_new_regions(kernel.body)
    k2 = loop.KernelOp(name, _used(body2, [*kernel.ins, stat]), list(kernel.outs), body2)
    Rewriter.replace_op(kernel, k2)
    return k2


def _slice(op: Operation, block: Block) -> list[Operation]:
    """`op` and the ops of `block` it (transitively) uses."""
    keep: list[Operation] = []
    work = [op]
    while work:
        o = work.pop()
        if o in keep:
            continue
        keep.append(o)
        for inner in o.walk():
            for v in inner.operands:
                owner = v.owner
                if isinstance(owner, Operation) and owner.parent_block() is block:
                    work.append(owner)
    return keep


def split_row_stats(kernel: loop.KernelOp) -> tuple[int, str | None]:
    """Split every statistic off `kernel`; (how many, why it declined when none)."""
    why = declines(kernel)
    if why is not None:
        return 0, why
    count = 0
    while True:
        found = row_body(kernel, whole=True)
        if isinstance(found, str) or not _reduces(found[1]):
            break
        kernel = split_first(kernel, count)
        count += 1
    return count, None


@dataclass(frozen=True)
class SplitRowStats(ModulePass):
    """Move each reduce of a row kernel's body into a kernel writing one statistic per row."""

    name = "split-row-stats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            name = kernel.sym_name.data
            count, why = split_row_stats(kernel)
            if why is None:
                LOG.info("split-row-stats: @%s: %d statistics moved to @%s_stat*", name, count, name)
            else:
                LOG.info("split-row-stats: declined @%s: %s", name, why)
