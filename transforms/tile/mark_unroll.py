"""mark-unroll: mark small innermost loops of tile kernels `{tile.unroll}` (`#pragma unroll`).

A `loop.for` of extent at most `max-extent`, or a `tile.strided_for` of at most `max-extent`
trips (ceil(bound / step)), that holds no other loop gets the unit attribute. Declines (logged to
`dpl.passes`) loops with more trips and loops outside `tile.kernel`s (loop-level IR is left as is).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tunable import tunable

LOOPS = (loop.ForOp, tile.StridedForOp)


@dataclass(frozen=True)
class MarkUnroll(ModulePass):
    """Mark innermost loops of at most `max-extent` trips for `#pragma unroll`."""

    name = "mark-unroll"

    max_extent: int = tunable(8, (4, 8, 16, 24, 32, 64, 128))
    """Loops of at most this many trips are marked; the choices hold the row pipeline's 24 and the
    SIMT matmul's 128 (a whole K, pad-matmul `whole-k`), so their default points are in the space."""

    def __post_init__(self):
        check_option(self, "max_extent", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, tile.KernelOp)]:
            for f in [o for o in kernel.walk() if isinstance(o, LOOPS)]:
                if any(isinstance(o, LOOPS) for o in f.body.walk()):
                    continue
                if isinstance(f, loop.ForOp):
                    trips = f.extent.data
                else:
                    trips = -(-f.bound.data // f.step.data)
                if trips <= self.max_extent:
                    tile.mark_unroll(f)
                else:
                    LOG.info(
                        "mark-unroll: @%s: a loop of %d trips stays rolled",
                        kernel.sym_name.data,
                        trips,
                    )
