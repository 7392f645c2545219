"""tma-copy: fill eligible shared-memory stages with the TMA engine (`tma`) on sm_90 and newer.

The materializer turns a `tma` stage into `kernel.tma_load`s: one thread issues a 1-D bulk copy
of contiguous bytes per slab row, both addresses 16-byte aligned. So a stage is eligible when
each row of its slab is one contiguous, aligned run of the source:
- the trailing slab dims all walk the source's innermost (contiguous) dim, and the run they
  cover is a multiple of 16 bytes;
- the origin along that dim is 16-byte aligned for every value of its operands (each
  coefficient and the constant of its affine form, times the element size, is a multiple of 16);
- the source is a plain row-major memref (static shape, no layout) whose rows are a multiple of
  16 bytes, so every row starts aligned;
- the stage has no `pad` (TMA writes the slab densely).
Eligible stages that are synchronous or `async` become `tma`.

Declines (logged to `dpl.passes`) everything on a target older than sm_90, and each ineligible
stage with the rule it breaks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp, NoneAttr
from xdsl.passes import ModulePass

from dpl.dialects import tile
from dpl.transforms.tile.common import LOG, linear
from dpl.transforms.tile.stages import describe, elem_bytes, stages
from dpl.transforms.tile.target import TMA, parse_target, target_arch

ALIGN = 16
"""Bytes a TMA bulk copy's addresses and size must be a multiple of."""


def contiguous_run(stage: tile.StageOp) -> int | None:
    """Elements of the contiguous source run that each slab row is (the trailing slab dims on the
    source's innermost dim), or None if the innermost slab dim walks another source dim."""
    src = stage.source.type
    assert isinstance(src, MemRefType)
    last = src.get_num_dims() - 1
    run = 1
    found = False
    for d in reversed(stage.slab.data):
        if d.dim.data != last:
            break
        run *= d.extent.data
        found = True
    return run if found else None


def tma_ineligible(stage: tile.StageOp) -> str | None:
    """Why `stage` cannot be copied by TMA bulk copies, or None if it can."""
    src = stage.source.type
    assert isinstance(src, MemRefType)
    size = elem_bytes(src)
    shape = src.get_shape()
    if not isinstance(src.layout, NoneAttr) or any(s < 0 for s in shape):
        return "the source is not a plain static row-major memref"
    if stage.pad is not None:
        return "the stage is padded (TMA writes the slab densely)"
    run = contiguous_run(stage)
    if run is None:
        return "its innermost slab dim does not walk the source's contiguous dim"
    if run * size % ALIGN:
        return f"a slab row is {run * size} bytes, not a multiple of {ALIGN}"
    if shape[-1] * size % ALIGN:
        return f"a source row is {shape[-1] * size} bytes, so rows are not {ALIGN}-byte aligned"
    form = linear(stage.origin.data.results[-1], list(stage.origin_operands))
    if form is None:
        return "its origin along the contiguous dim is not affine-linear"
    terms, const = form
    if const * size % ALIGN or any(c * size % ALIGN for c in terms.values()):
        return f"its origin along the contiguous dim is not {ALIGN}-byte aligned"
    return None


@dataclass(frozen=True)
class TmaCopy(ModulePass):
    """Mark stages whose slab rows are aligned contiguous runs `tma` on sm_90 or newer."""

    name = "tma-copy"

    target: str | None = None
    """Overrides the module's #kernel.target (transforms/tile/target.py)."""

    def __post_init__(self):
        if self.target is not None:
            parse_target(self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target is None:
            return replace(self, target=target_arch(None, op)).apply(ctx, op)
        sm = parse_target(self.target)
        for kernel, stage in stages(op):
            what = describe(kernel, stage)
            if sm < TMA:
                LOG.info("tma-copy: %s: %s has no TMA engine (sm_90+)", what, self.target)
                continue
            if stage.copy.data == tile.CopyKind.TMA:
                continue
            why = tma_ineligible(stage)
            if why is not None:
                LOG.info("tma-copy: %s: not eligible: %s", what, why)
                continue
            stage.properties["copy"] = tile.CopyKindAttr(tile.CopyKind.TMA)
            LOG.info("tma-copy: %s: TMA bulk copies", what)
