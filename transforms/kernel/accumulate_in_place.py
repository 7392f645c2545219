"""accumulate-in-place: a reduction loop nested in another folds straight into the outer one's
accumulators, held in a register array, instead of into accumulators of its own.

A chunked reduction (a matmul's K split into `ko` steps of `ki`) materializes as two loops with
results, each starting at the combiner's identity:

    %s = kernel.for %ko = 0 to 56 step 1 -> f32 {         // float s = 0;
      %p = kernel.for %ki = 0 to 32 step 1 -> f32 {       //   float p = 0;
        ...
        kernel.accumulate add %x : f32                    //   p += x;
      }
      kernel.accumulate add %p : f32                      // s += p;
    }

Each thread then holds both accumulators: for an 8 x 8 register tile that is 128 registers of
accumulators where 64 suffice. When the outer loop's `kernel.accumulate` folds exactly the inner
loop's results, with the same combiners, the pass rewrites the pair to one register array:

    %acc = kernel.alloca : memref<1xf32>                  // float acc[1];
    kernel.store %zero, %acc[0] : memref<1xf32>           // acc[0] = 0;
    kernel.for %ko = 0 to 56 step 1 {
      kernel.for %ki = 0 to 32 step 1 {
        ...
        %a = kernel.load %acc[0]; %b = arith.addf %a, %x; kernel.store %b, %acc[0]
      }
    }
    %s = kernel.load %acc[0] : memref<1xf32>

The array's indices are constants, so nvcc keeps it in registers. The sum is the same one in
another association (each product goes straight into the running sum), as for any reordered
floating-point reduction. Loops whose accumulators differ in type, or whose outer accumulate folds
anything but the inner results (each once, with the same combiner), are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.combiners import combine_op, identity_constant
from dpl.transforms.tile.common import LOG


def _inner_pair(outer: K.ForOp) -> tuple[K.ForOp, list[int]] | None:
    """The loop of `outer`'s body whose results `outer` accumulates, and for each outer result
    the inner result it folds; None when the body does not have that form."""
    acc = outer.body.block.last_op
    if not isinstance(acc, K.AccumulateOp) or not acc.values:
        return None
    inner = acc.values[0].owner
    if not isinstance(inner, K.ForOp) or inner.parent_op() is not outer:
        return None
    if len(inner.res) != len(acc.values) or len({v.type for v in outer.res}) != 1:
        return None
    inner_acc = inner.body.block.last_op
    assert isinstance(inner_acc, K.AccumulateOp)
    order: list[int] = []
    for value, kind in zip(acc.values, acc.kinds):
        if value.owner is not inner or value.has_more_than_one_use():
            return None
        j = inner.res.index(value)
        if inner_acc.kinds.data[j] != kind:
            return None
        order.append(j)
    if len(set(order)) != len(order):
        return None
    return inner, order


def _slot(i: int) -> AffineMap:
    return AffineMap.constant_map(i)


def _without_results(loop: K.ForOp) -> K.ForOp:
    """A result-less copy of `loop` that takes over its body (the caller ends it in a yield)."""
    body = Rewriter.move_region_contents_to_new_regions(loop.body)
    unroll = None if loop.unroll is None else loop.unroll.data
    bare = K.ForOp(loop.bound("lb"), loop.bound("ub"), loop.bound("step"), body, (), unroll)
    bare.attributes |= loop.attributes
    return bare


def _register_array(loop: K.ForOp, kinds: list[CombineKind], name: str) -> K.AllocaOp:
    """A register array `name` of `loop`'s accumulators, one slot per combiner in `kinds`, each
    stored its combiner's identity, inserted before `loop`."""
    t = loop.res[0].type
    array = K.AllocaOp(MemRefType(t, [len(kinds)]))
    array.result.name_hint = name
    before: list[Operation] = [array]
    starts: dict[CombineKind, SSAValue] = {}
    for i, kind in enumerate(kinds):
        if kind not in starts:
            c = identity_constant(kind, t)
            before.append(c)
            starts[kind] = c.result
        before.append(K.StoreOp(starts[kind], array.result, [], _slot(i)))
    Rewriter.insert_op(before, InsertPoint.before(loop))
    return array


def _fold_into(acc: K.AccumulateOp, array: K.AllocaOp, kinds: list[CombineKind], slots: list[int]) -> None:
    """Replace `acc` by folding its j-th value into slot `slots[j]` of `array` (load, combine,
    store), its loop's body then ending in a yield."""
    fold_ops: list[Operation] = []
    for value, i in zip(acc.values, slots):
        old = K.LoadOp(array.result, [], _slot(i))
        new = combine_op(kinds[i], old.result, value)
        fold_ops += [old, new, K.StoreOp(new.results[0], array.result, [], _slot(i))]
    Rewriter.replace_op(acc, [*fold_ops, K.YieldOp()], [])


def _read_back(loop: K.ForOp, array: K.AllocaOp) -> None:
    """Replace `loop` (its body already ending in a yield) by a result-less copy, its results by
    loads of `array`'s slots after it."""
    bare = _without_results(loop)
    loads = [K.LoadOp(array.result, [], _slot(i)) for i in range(len(loop.res))]
    for load, result in zip(loads, loop.res):
        load.result.name_hint = result.name_hint
    Rewriter.insert_op(loads, InsertPoint.after(loop))
    Rewriter.replace_op(loop, bare, new_results=[v.result for v in loads])


def hold_in_registers(loop: K.ForOp) -> bool:
    """Rewrite a loop with results (all of one type) to keep its accumulators in a register
    array: identities stored before, each `kernel.accumulate` value folded in by a load,
    combine and store, the results read after. False (nothing changed) for mixed types."""
    acc = loop.body.block.last_op
    if not isinstance(acc, K.AccumulateOp) or len({v.type for v in loop.res}) != 1:
        return False
    kinds = [k.data for k in acc.kinds]
    array = _register_array(loop, kinds, f"{loop.res[0].name_hint or 'acc'}_regs")
    _fold_into(acc, array, kinds, list(range(len(kinds))))
    _read_back(loop, array)
    return True


def _rewrite(outer: K.ForOp, inner: K.ForOp, order: list[int]) -> None:
    outer_acc = outer.body.block.last_op
    assert isinstance(outer_acc, K.AccumulateOp)
    kinds = [k.data for k in outer_acc.kinds]
    # Named after a register tile's accumulators (`acc_c00`, ... -> `acc`), else `acc`.
    tiled = re.fullmatch(r"(\w+)_c\d+", outer.res[0].name_hint or "")
    array = _register_array(outer, kinds, tiled.group(1) if tiled else "acc")
    # The inner loop folds each value into the array slot of the outer result it fed.
    slot_of = {j: i for i, j in enumerate(order)}
    inner_acc = inner.body.block.last_op
    assert isinstance(inner_acc, K.AccumulateOp)
    _fold_into(inner_acc, array, kinds, [slot_of[j] for j in range(len(inner_acc.values))])
    outer_acc.detach()
    outer_acc.erase()
    outer.body.block.add_op(K.YieldOp())
    Rewriter.replace_op(inner, _without_results(inner), new_results=[None] * len(inner.res))
    _read_back(outer, array)


@dataclass(frozen=True)
class AccumulateInPlace(ModulePass):
    """Fold a reduction loop nested in another straight into the outer loop's accumulators
    (one register array) instead of its own."""

    name = "accumulate-in-place"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            while True:
                found = [
                    (o, pair) for o in func.walk()
                    if isinstance(o, K.ForOp) and o.res and (pair := _inner_pair(o)) is not None
                ]  # fmt: skip
                if not found:
                    break
                outer, pair = found[0]
                LOG.info(
                    "accumulate-in-place: @%s: loop %%%s folds into %d accumulators of loop %%%s",
                    func.sym_name.data, pair[0].iv.name_hint, len(pair[1]), outer.iv.name_hint,
                )  # fmt: skip
                _rewrite(outer, *pair)
