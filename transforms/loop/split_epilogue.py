"""split-epilogue: move a contraction kernel's epilogue into a kernel of its own.

A loop kernel whose nest computes a contraction and then applies more ops to its result before
the store (the SwiGLU `silu(gate) * (x @ up)`)

    loop.kernel @k ins(%g, %x, %w) outs(%out) {
      loop.for free %i { loop.for free %j {
        %s = ...silu(%g[%i, %j])...
        %acc = loop.for reduce %r < K -> f32 { ...%x[%i, %r] * %w[%j, %r]... }
        %v = arith.mulf %s, %acc
        loop.store %v, %out[%i, %j] } }
    }

becomes two kernels over a new buffer of the output's type: the contraction alone, storing its
result where the epilogue stored, and the epilogue reading it back:

    %k_acc = memref.alloc()
    loop.kernel @k_acc ins(%x, %w) outs(%k_acc) { ...%acc = loop.for reduce...; store %acc, %k_acc[%i, %j] }
    loop.kernel @k ins(%g, %k_acc) outs(%out) { ...%acc = loop.load %k_acc[%i, %j]; %v = ...; store %v, %out[...] }

The split costs one write and one read of the result, and buys a contraction kernel whose
epilogue is a plain store, which `split-matmul-k` can spread over more blocks. The schedule
weighs both (see `schedule`); run alone, the pass splits every kernel it can.

Declines (logged to `dpl.passes`) a kernel with more than one reduce loop, more than one store,
a reduce loop that is not a contraction, or no op between the contraction and the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop
from dpl.transforms.loop.count_cost import divide
from dpl.transforms.loop.fuse_loops import LOG, is_contraction
from dpl.transforms.loop.nest import erase_unused_index_ops


def _reduce_and_store(kernel: loop.KernelOp) -> tuple[loop.ForOp, loop.StoreOp] | str:
    reduces = [o for o in kernel.walk() if isinstance(o, loop.ForOp) and o.is_reduce]
    stores = [o for o in kernel.walk() if isinstance(o, loop.StoreOp)]
    if len(reduces) != 1 or len(stores) != 1:
        return f"{len(reduces)} reduce loops and {len(stores)} stores (one of each is split)"
    if not is_contraction(kernel):
        return "its reduce loop is not a contraction"
    red, store = reduces[0], stores[0]
    if len(red.res) != 1 or store.value is red.res[0]:
        return "the contraction's result is stored as it is (no epilogue)"
    if red.parent_block() is not store.parent_block():
        return "the contraction and the store are not in the same loop body"
    return red, store


def declines(kernel: loop.KernelOp) -> str | None:
    """Why split-epilogue would leave `kernel` as it is, or None if it would split it."""
    found = _reduce_and_store(kernel)
    return found if isinstance(found, str) else None


def split_epilogue(kernel: loop.KernelOp) -> str | None:
    """Split `kernel` in two (see the module docstring); None if done, else why not."""
    found = _reduce_and_store(kernel)
    if isinstance(found, str):
        return found
    red, store = found
    out_type = store.memref.type
    assert isinstance(out_type, MemRefType)
    name = kernel.sym_name.data
    alloc = memref.AllocOp.get(out_type.element_type, shape=out_type.get_shape())
    alloc.memref.name_hint = f"{name.removeprefix('k_')}_acc"
    Rewriter.insert_op(alloc, InsertPoint.before(kernel))
    tmp = alloc.memref

    # The contraction: the store writes the accumulator to the new buffer; the rest is dead.
    first = kernel.clone()
    (red1,) = [o for o in first.walk() if isinstance(o, loop.ForOp) and o.is_reduce]
    (store1,) = [o for o in first.walk() if isinstance(o, loop.StoreOp)]
    store1.operands[0] = red1.res[0]
    store1.operands[1] = tmp
    erase_unused_index_ops(first)

    # The epilogue: the accumulator is read back from the new buffer.
    second = kernel.clone()
    (red2,) = [o for o in second.walk() if isinstance(o, loop.ForOp) and o.is_reduce]
    (store2,) = [o for o in second.walk() if isinstance(o, loop.StoreOp)]
    back = loop.LoadOp(tmp, list(store2.indices), store2.map.data)
    back.result.name_hint = red2.res[0].name_hint
    Rewriter.replace_op(red2, back)
    erase_unused_index_ops(second)

    body1 = Rewriter.move_region_contents_to_new_regions(first.body)
    body2 = Rewriter.move_region_contents_to_new_regions(second.body)
    k1 = loop.KernelOp(f"{name}_acc", _used(body1, kernel.ins), [tmp], body1)
    k2 = loop.KernelOp(name, _used(body2, [*kernel.ins, tmp]), list(kernel.outs), body2)
    divide(kernel, [k1, k2])
    Rewriter.replace_op(kernel, [k1, k2])
    first.erase()
    second.erase()
    return None


def _used(region, buffers) -> list[SSAValue]:
    """The `buffers` that ops of `region` read or write, in order, once each."""
    used = {operand for op in region.walk() for operand in op.operands}
    return list(dict.fromkeys(b for b in buffers if b in used))


@dataclass(frozen=True)
class SplitEpilogue(ModulePass):
    """Move each contraction kernel's epilogue (ops between its reduce and its store) into a
    kernel of its own, over a new buffer holding the contraction's result."""

    name = "split-epilogue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            name = kernel.sym_name.data
            why = split_epilogue(kernel)
            if why is None:
                LOG.info("split-epilogue: @%s: contraction moved to @%s_acc", name, name)
            else:
                LOG.info("split-epilogue: declined @%s: %s", name, why)
