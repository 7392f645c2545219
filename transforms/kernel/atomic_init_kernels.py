"""atomic-init-kernels: start the buffers a kernel folds into atomically at the identity.

A `tile.atomic` (split-K partials) folds values into an output of its `kernel.func`, which must
hold the combiner's identity first (0 for add). For each kernel.func whose tile has atomics
this adds `kernel.func @<name>_init`, which fills each such buffer with its identity (one
element per thread, blocks of up to 256 threads over the largest buffer), and launches it just
before every launch of the kernel, on the same buffers.

    kernel.launch @k_linear(%x, %w, %out) : ...
 -> kernel.launch @k_linear_init(%out) : memref<128x512xf32>
    kernel.launch @k_linear(%x, %w, %out) : ...

Declines a kernel without atomics. A buffer folded into with two different combiners is a
one-line error naming the kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.combiners import identity_constant
from dpl.transforms.kernel.lowering import bound_tiles, fail
from dpl.transforms.loop.count_cost import buffer_bytes, record

THREADS = 256


def atomic_outs(kfunc: K.KernelFuncOp, t: tile.TileOp) -> dict[SSAValue, CombineKind]:
    """The arguments the tile folds into atomically, in order of first use, with the combiner."""
    outs: dict[SSAValue, CombineKind] = {}
    for op in t.walk():
        if isinstance(op, tile.AtomicOp):
            kind = op.kind.data
            if outs.setdefault(op.memref, kind) != kind:
                fail(kfunc.sym_name.data, op, "folds one buffer with two different combiners")
    return outs


def init_kernel(name: str, buffers: list[SSAValue], kinds: list[CombineKind]) -> K.KernelFuncOp:
    """`@<name>_init`: fill each of `buffers` with the identity of its combiner (its cost: no
    flops, the buffers' bytes)."""
    blk = Block(arg_types=[b.type for b in buffers])
    for new, old in zip(blk.args, buffers):
        new.name_hint = old.name_hint
    sizes = [math.prod(b.type.get_shape()) for b in buffers]  # type: ignore[union-attr]
    n = max(sizes)
    threads = min(THREADS, n)
    blocks = -(-n // threads)
    ops: list[Operation] = []
    c = lambda v: arith.ConstantOp(IntegerAttr(v, IndexType()))  # noqa: E731
    tid, bid = K.ThreadIdOp(K.Dim.X), K.BlockIdOp(K.Dim.X)
    cthreads = c(threads)
    mul = arith.MuliOp(bid.results[0], cthreads.result)
    flat = arith.AddiOp(mul.result, tid.results[0])
    flat.result.name_hint = "flat"
    ops += [tid, bid, cthreads, mul, flat]
    for arg, kind, size in zip(blk.args, kinds, sizes):
        t = arg.type
        assert isinstance(t, MemRefType)
        cv = identity_constant(kind, t.element_type)
        ops.append(cv)
        shape = t.get_shape()
        d0 = AffineExpr.dimension(0)
        exprs = []
        for i in range(len(shape)):
            inner = math.prod(shape[i + 1 :])
            e = d0 // inner if inner > 1 else d0
            if i > 0:
                e = e % shape[i]
            exprs.append(e)
        store = K.StoreOp(cv.result, arg, [flat.result], AffineMap(1, 0, tuple(exprs)))
        if size < threads * blocks:
            bound = c(size)
            cond = arith.CmpiOp(flat.result, bound.result, "ult")
            ops += [bound, cond, K.IfOp(cond.result, Region(Block([store, K.YieldOp()])))]
        else:
            ops.append(store)
    for op in ops:
        blk.add_op(op)
    kfunc = K.KernelFuncOp(
        name + "_init", [b.type for b in buffers], [blocks, 1, 1], [threads, 1, 1], 0, Region(blk)
    )
    record(kfunc, 0, buffer_bytes(buffers))  # no flops; writes each buffer once
    return kfunc


@dataclass(frozen=True)
class AtomicInitKernels(ModulePass):
    """Before each kernel that folds into outputs atomically, launch one that fills them."""

    name = "atomic-init-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            outs = atomic_outs(kfunc, t)
            if not outs:
                continue
            positions = [kfunc.args.index(b) for b in outs]
            init = init_kernel(kfunc.sym_name.data, list(outs), list(outs.values()))
            Rewriter.insert_op(init, InsertPoint.before(kfunc))
            for launch in [x for x in op.walk() if isinstance(x, K.LaunchOp)]:
                if launch.callee.string_value() == kfunc.sym_name.data:
                    args = [launch.args[i] for i in positions]
                    first = K.LaunchOp(init.sym_name.data, args)
                    Rewriter.insert_op(first, InsertPoint.before(launch))
