"""double-buffer: give a stage filled along a K-outer loop `buffers N at %k` (N slots).

A `tile.stage` inside a `loop.for` whose origin depends on that loop's induction variable `%k`
(the seeds' K-tile loop: `origin [0, %a2 * 32]` inside `loop.for reduce %a2 < 2`) is refilled on
every iteration. With N slots the fill of iteration k+1 can overlap the compute of iteration k:
the stage gets `buffers N at %k`, its result type a leading dim N, and every load of it indexes
`%k mod N` first (`%x_smem[%a2 mod 2, %a0, %a3, %c0]`). The innermost such loop is chosen.

Declines (logged to `dpl.passes`) a stage that is already buffered, is not inside a `loop.for`
in its tile, whose origin depends on no enclosing loop (it is filled once), or that is used by
something other than `loop.load`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.stages import (
    depends_on,
    describe,
    enclosing_loops,
    only_loads,
    rebuild,
    rewrite_loads,
    stages,
)


@dataclass(frozen=True)
class DoubleBuffer(ModulePass):
    """Give stages refilled along a K-outer loop `buffers N at %k`, loads indexing `%k mod N`."""

    name = "double-buffer"

    buffers: int = 2

    def __post_init__(self):
        check_option(self, "buffers", 2)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel, stage in stages(op):
            what = describe(kernel, stage)
            if stage.buffers is not None:
                LOG.info("double-buffer: %s: already has %d buffers", what, stage.buffers.data)
                continue
            loops = enclosing_loops(stage)
            if not loops:
                LOG.info("double-buffer: %s: not inside a loop.for, filled once", what)
                continue
            k_loop = next(
                (f for f in loops if any(depends_on(v, f.iv) for v in stage.origin_operands)),
                None,
            )
            if k_loop is None:
                LOG.info("double-buffer: %s: origin does not depend on an enclosing loop", what)
                continue
            if not only_loads(stage):
                LOG.info("double-buffer: %s: used by something other than loop.load", what)
                continue
            new = rebuild(stage, buffers=(self.buffers, k_loop.iv))
            rewrite_loads(new, lambda ld: _slot_first(ld, k_loop.iv, self.buffers))
            LOG.info("double-buffer: %s: %d buffers along its K-outer loop", what, self.buffers)


def _slot_first(load: loop.LoadOp, k: SSAValue, n: int) -> tuple[list[SSAValue], AffineMap]:
    """The load's indices and map with `k mod n` put first."""
    amap = load.map.data
    indices = list(load.indices)
    if k in indices:
        pos = indices.index(k)
    else:
        pos = len(indices)
        indices.append(k)
    results = (AffineDimExpr(pos) % n, *amap.results)
    return indices, AffineMap(len(indices), 0, results)
