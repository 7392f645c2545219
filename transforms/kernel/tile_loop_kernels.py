"""tile-loop-kernels: give a `loop.kernel` that no schedule tiled a grid-stride tile.

Each `loop.kernel` left in a function (one `tileify` did not schedule) becomes an equivalent
`tile.kernel`, so that the rest of `materialize` lowers it like any other. Its tile has
`T = min(256, work rounded up to a warp)` threads and `min(4096, ceil(work / T))` blocks, where
work is the largest number of iterations of a top-level free loop nest. Each top-level free
loop nest (its chain of perfectly nested free loops, flattened) becomes one
`tile.strided_for free %flat = %gtid to N step T * blocks` over all threads of all blocks,
whose body recovers the loop indices by div/mod (`affine.apply`) and runs the rest of the nest
per thread. Top-level constants stay where they are; other top-level ops run in every thread.
A scatter's `loop.atomic` becomes a `tile.atomic`, its buffer marked `{tile.zero_init}`.

Declines nothing: a kernel already tiled is a `tile.kernel` and is left alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, IndexType, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import IterKind
from dpl.dialects.tile import AxisKind
from dpl.transforms.kernel.lowering import main_funcs
from dpl.transforms.loop.count_cost import carry
from dpl.transforms.tile.common import atomics_to_tile

THREADS = 256
MAX_BLOCKS = 4096


def _chain(op: loop.ForOp) -> list[loop.ForOp]:
    """The perfectly nested free loops starting at `op`."""
    chain = [op]
    while True:
        ops = [o for o in chain[-1].body.block.ops if not isinstance(o, loop.YieldOp)]
        if len(ops) == 1 and isinstance(ops[0], loop.ForOp) and not ops[0].is_reduce:
            chain.append(ops[0])
        else:
            return chain


def as_tile_kernel(kop: loop.KernelOp) -> tile.KernelOp:
    """The grid-stride tile kernel that computes what `kop` does."""
    nests = [o for o in kop.body.block.ops if isinstance(o, loop.ForOp) and not o.is_reduce]
    work = max([math.prod(f.extent.data for f in _chain(n)) for n in nests] or [1])
    threads = min(THREADS, -(-work // 32) * 32)
    blocks = max(1, min(MAX_BLOCKS, -(-work // threads)))
    body = Block()
    tile_op = tile.TileOp([(threads, AxisKind.THREAD), (blocks, AxisKind.BLOCK)])
    t, b = tile_op.body.block.args
    t.name_hint, b.name_hint = "t", "b"
    tb = tile_op.body.block
    mapper: dict[SSAValue, SSAValue] = {}
    gtid = AffineExpr.dimension(0) * threads + AffineExpr.dimension(1)
    flat_start = affine.ApplyOp([b, t], AffineMapAttr(AffineMap(2, 0, (gtid,))))
    flat_start.result.name_hint = "gtid"
    tb.add_op(flat_start)
    for op in kop.body.block.ops:
        if isinstance(op, arith.ConstantOp):
            body.add_op(op.clone(mapper))
        elif isinstance(op, loop.ForOp) and not op.is_reduce:
            chain = _chain(op)
            extents = [f.extent.data for f in chain]
            inner = Block(arg_types=[IndexType()])
            f = inner.args[0]
            f.name_hint = "flat"
            d0 = AffineExpr.dimension(0)
            total = math.prod(extents)
            for i, lp in enumerate(chain):
                stride = math.prod(extents[i + 1 :])
                e = d0 // stride if stride > 1 else d0
                if stride * extents[i] < total:
                    e = e % extents[i]
                apply = affine.ApplyOp([f], AffineMapAttr(AffineMap(1, 0, (e,))))
                apply.result.name_hint = lp.iv.name_hint
                inner.add_op(apply)
                mapper[lp.iv] = apply.result
            for o in chain[-1].body.block.ops:
                if not isinstance(o, loop.YieldOp):
                    inner.add_op(o.clone(mapper))
            inner.add_op(loop.YieldOp())
            tb.add_op(
                tile.StridedForOp(IterKind.FREE, flat_start.result, total, threads * blocks, inner)
            )
        elif not isinstance(op, loop.YieldOp):
            tb.add_op(op.clone(mapper))
    body.add_op(tile_op)
    new = tile.KernelOp(kop.sym_name.data, list(kop.ins), list(kop.outs), body)
    atomics_to_tile(new)
    return new


@dataclass(frozen=True)
class TileLoopKernels(ModulePass):
    """Turn each untiled loop.kernel into a grid-stride tile.kernel (materialize's first step)."""

    name = "tile-loop-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in main_funcs(op):
            for kop in [k for k in fn.body.walk() if isinstance(k, loop.KernelOp)]:
                new = as_tile_kernel(kop)
                carry(kop, new)
                Rewriter.replace_op(kop, new, [])
