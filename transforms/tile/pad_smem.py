"""pad-smem: pad a stage's rows so that threads reading down a column hit different banks.

Shared memory has 32 banks of 4 bytes. When a slab dim's extent is a multiple of 32 elements,
the next outer slab dim strides by a multiple of 32 elements, and threads that read the same
column of different rows hit one bank. The pass pads the innermost slab dim (not the outermost)
whose extent is a multiple of 32 by `pad` elements: `pad [0, 1, 0]` on the seeds' x slab
`[a0 : 8 at 0, a3 : 32 at 1, cell : 2 at 0]` (rows of 33 x 2 instead of 32 x 2). Padding is
physical layout only: the indices of the loads do not change.

Declines (logged to `dpl.passes`) stages already padded, `tma` stages (a bulk copy writes the
slab densely), slabs of one dim and slabs with no inner dim of a multiple of 32 elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.stages import describe, stages

BANKS = 32
"""Shared-memory banks (each 4 bytes wide)."""


@dataclass(frozen=True)
class PadSmem(ModulePass):
    """Pad the innermost slab dim of 32k elements by `pad` so column reads avoid bank conflicts."""

    name = "pad-smem"

    pad: int = 1

    def __post_init__(self):
        check_option(self, "pad", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel, stage in stages(op):
            what = describe(kernel, stage)
            slab = stage.slab.data
            if stage.pad is not None:
                LOG.info("pad-smem: %s: already padded", what)
                continue
            if stage.copy.data == tile.CopyKind.TMA:
                LOG.info("pad-smem: %s: a tma stage is written densely", what)
                continue
            if len(slab) < 2:
                LOG.info("pad-smem: %s: a one-dim slab has no rows to pad", what)
                continue
            dims = [i for i in range(1, len(slab)) if slab[i].extent.data % BANKS == 0]
            if not dims:
                LOG.info("pad-smem: %s: no inner slab dim of a multiple of %d", what, BANKS)
                continue
            pads = [0] * len(slab)
            pads[dims[-1]] = self.pad
            stage.properties["pad"] = ArrayAttr([IntAttr(p) for p in pads])
            LOG.info("pad-smem: %s: pad %s", what, pads)
