"""collapse-loops: turn a perfect nest of reduce (or free) loops inside a row into one loop.

A norm or a reduction over several dims (LayerNorm over (64, 256, 256)) reduces with nested loops

    %acc = loop.for reduce %r0 < 64 -> f32 {
      %p = loop.for reduce %r1 < 256 -> f32 { ...%x[%a0, %r0, %r1]... loop.accumulate add %v }
      loop.accumulate add %p : f32
    }

which the row schedule shares badly (cooperative-reduce spreads only the outer loop over
threads: 64 of them, each reading along %r1 alone). The nest becomes one loop over the product
of the extents, its index split back with floordiv / mod:

    %acc = loop.for reduce %r0 < 16384 -> f32 { ...%x[%a0, %r0 floordiv 256, %r0 mod 256]... }

A nest collapses when the outer loop's body is exactly the inner loop (besides index
computations; for reduce loops, and an accumulate of the inner loop's results with the same
combiners, in order); deeper nests collapse level by level. The outer loop may also compute a
cheap prologue before its inner loop (at most 8 loads and arith ops other than divisions, used
only by the inner loop: fuse-loops hoisted them there), which then runs at every iteration of
the collapsed loop: StyleGAN2's demodulation sums (w s)^2 over (c_in, 3, 3), s read per c_in,
and its 1024 rows of 2304 were nests of 256 around 9 (with matmul_info's misreading, one thread
a row: the program 1.0 ms, eager 0.15). Only nests inside a row collapse: reduce loops
anywhere, and free loops in a block that also holds a reduce loop (the normalising loops beside
a norm's reductions); the outer free loops that tileify maps onto the grid stay as they are. The
iterations run in the same order; a reduce nest's partial sums become one running sum (the
same terms in the same order, grouped otherwise: rounding-level differences, as any reordered
floating-point reduction).

Declines (logged to `dpl.passes`) nothing explicitly: a kernel without such a nest is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, IntAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.loop.nest import fold_index_ops
from dpl.transforms.tile.common import LOG

_DIVISIONS = (arith.DivfOp, arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.FloorDivSIOp,
              arith.CeilDivSIOp, arith.CeilDivUIOp)


#: The most cheap ops (loads, arith but divisions) an outer loop may compute before its inner
#: loop and still collapse with it (they then run at every inner iteration).
MAX_MOVED_OPS = 8


def _cheap_prologue(ops: list[Operation], inner: loop.ForOp) -> bool:
    """Whether `ops` (what an outer loop computes before `inner`) are at most MAX_MOVED_OPS
    loads and cheap arith ops whose values only `inner` (or each other) use: recomputed at
    every inner iteration, they cost little and keep the meaning."""
    allowed = set(ops)
    return len(ops) <= MAX_MOVED_OPS and all(
        (isinstance(o, loop.LoadOp) or (o.dialect_name() == "arith" and not isinstance(o, _DIVISIONS)))
        and all(inner.is_ancestor(u.operation) or u.operation in allowed for r in o.results for u in r.uses)
        for o in ops
    )  # fmt: skip


def _inner(outer: loop.ForOp) -> loop.ForOp | None:
    """The loop `outer` holds alone (with the accumulate of its results), or None. `outer` may
    compute a cheap prologue for it first (`_cheap_prologue`: a modulated weight's scale, read
    per input channel around the 3 x 3 window loops)."""
    ops = [o for o in outer.body.block.ops if not isinstance(o, loop.YieldOp | affine.ApplyOp)]
    loops = [i for i, o in enumerate(ops) if isinstance(o, loop.ForOp)]
    if len(loops) != 1 or (loops[0] and not _cheap_prologue(ops[: loops[0]], ops[loops[0]])):
        return None
    inner = ops[loops[0]]
    assert isinstance(inner, loop.ForOp)
    ops = ops[loops[0] :]
    if inner.kind.data != outer.kind.data:
        return None
    if outer.is_reduce:
        if len(ops) != 2 or not isinstance(ops[1], loop.AccumulateOp):
            return None
        outer_acc, inner_acc = ops[1], inner.body.block.last_op
        assert isinstance(inner_acc, loop.AccumulateOp)
        if list(outer_acc.values) != list(inner.res) or [k.data for k in outer_acc.kinds] != [
            k.data for k in inner_acc.kinds
        ]:
            return None
    elif len(ops) != 1:
        return None
    return inner


def collapse(outer: loop.ForOp, inner: loop.ForOp) -> None:
    """Merge `inner` into `outer`: one loop of both extents, indices split by floordiv / mod."""
    n = inner.extent.data
    block = outer.body.block
    iv = outer.iv
    hi = affine.ApplyOp([iv], AffineMapAttr(AffineMap(1, 0, (AffineDimExpr(0) // n,))))
    lo = affine.ApplyOp([iv], AffineMapAttr(AffineMap(1, 0, (AffineDimExpr(0) % n,))))
    hi.result.name_hint, lo.result.name_hint = iv.name_hint, inner.iv.name_hint
    iv.replace_uses_with_if(hi.result, lambda use: True)
    inner.iv.replace_all_uses_with(lo.result)
    first = block.first_op
    assert first is not None
    block.insert_ops_before([hi, lo], first)
    hi.operands[0] = iv
    lo.operands[0] = iv
    for op in list(inner.body.block.ops):
        if not isinstance(op, loop.YieldOp):
            op.detach()
            block.insert_op_before(op, inner)
    if outer.is_reduce:  # the accumulate of inner's results goes; inner's own now ends the body
        old = block.last_op
        assert isinstance(old, loop.AccumulateOp)
        old.detach()
        old.erase()
    inner.detach()
    inner.erase()
    outer.properties["extent"] = IntAttr(outer.extent.data * n)


def collapse_kernel(kernel: loop.KernelOp) -> int:
    """Collapse every eligible nest of `kernel`; the number of collapses."""
    count = 0
    changed = True
    while changed:
        changed = False
        for f in [o for o in kernel.walk() if isinstance(o, loop.ForOp)]:
            block = f.parent_block()
            beside_reduce = block is not None and any(
                isinstance(o, loop.ForOp) and o.is_reduce for o in block.ops
            )
            if not (f.is_reduce or beside_reduce):
                continue
            inner = _inner(f)
            if inner is None:
                continue
            collapse(f, inner)
            count += 1
            changed = True
            break
    while any(
        isinstance(v.owner, affine.ApplyOp)
        for o in kernel.walk()
        if isinstance(o, loop.LoadOp | loop.StoreOp)
        for v in o.indices
    ):
        fold_index_ops(kernel)  # one level of applies per call
    return count


@dataclass(frozen=True)
class CollapseLoops(ModulePass):
    """Collapse perfect nests of reduce loops (and free loops beside them) into one loop each."""

    name = "collapse-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            count = collapse_kernel(kernel)
            if count:
                LOG.info("collapse-loops: @%s: %d nested loops merged", kernel.sym_name.data, count)
