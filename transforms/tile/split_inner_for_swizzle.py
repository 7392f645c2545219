"""split-inner-for-swizzle: give TMA stages a `swizzle B` layout, splitting rows wider than B.

A TMA swizzle of B bytes permutes 16-byte chunks within B-byte rows, so a swizzled box's rows
are at most B bytes. For a `tma` stage whose slab rows (the contiguous run on the source's
innermost dim, see tma-copy) are exactly B bytes, only `swizzle B` is added. When the row is a
single slab dim k*B bytes wide, that dim is split into an outer part of k (placed after the last
other slab dim on the same source dim, so the source mapping is unchanged, and before the dims
of the other source dims, so the stage becomes k boxes with B-byte rows) and an inner part of B
bytes: `[m : 16 at 0, kk : 64 at 1]` (f32, B = 128) -> `[kk_o : 2 at 1, m : 16 at 0, kk : 32 at
1] tma swizzle 128`, and each load of it reads `[i floordiv 32, j, i mod 32]` for `[j, i]`.
Swizzle is a physical layout: what a load at an index reads is unchanged.

Declines (logged to `dpl.passes`) non-tma stages, stages already swizzled, a slab that is a
single row (no slab dim on another source dim: nothing to swizzle), rows narrower than B or not a
multiple of B bytes, rows wider than B spread over several slab dims, and stages used by
something other than `loop.load`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntAttr, MemRefType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.stages import (
    describe,
    elem_bytes,
    only_loads,
    rebuild,
    rewrite_loads,
    stages,
)
from dpl.transforms.tile.tma_copy import contiguous_run


@dataclass(frozen=True)
class SplitInnerForSwizzle(ModulePass):
    """Add `swizzle B` to TMA stages, splitting a slab row wider than B bytes into B-byte rows."""

    name = "split-inner-for-swizzle"

    swizzle: int = 128

    def __post_init__(self):
        check_option(self, "swizzle", choices=tile.SWIZZLE_BYTES)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel, stage in stages(op):
            what = describe(kernel, stage)
            why = self._decline(stage)
            if why is not None:
                LOG.info("split-inner-for-swizzle: %s: %s", what, why)
                continue
            assert isinstance(stage.source.type, MemRefType)
            size = elem_bytes(stage.source.type)
            slab = list(stage.slab.data)
            inner = slab[-1]
            if contiguous_run(stage) == self.swizzle // size:  # rows of exactly B bytes
                stage.properties["swizzle"] = IntAttr(self.swizzle)
                LOG.info("split-inner-for-swizzle: %s: swizzle %d", what, self.swizzle)
                continue
            span = self.swizzle // size
            outer = inner.extent.data // span
            same = [i for i, d in enumerate(slab[:-1]) if d.dim.data == inner.dim.data]
            pos = same[-1] + 1 if same else 0
            label = f"{inner.label.data}_o" if inner.label.data else ""
            new_slab = (
                slab[:pos]
                + [tile.SlabDimAttr(outer, inner.dim.data, label)]
                + slab[pos:-1]
                + [tile.SlabDimAttr(span, inner.dim.data, inner.label.data)]
            )
            first = 1 if stage.buffers is not None else 0
            new = rebuild(stage, slab=new_slab, swizzle=self.swizzle)
            rewrite_loads(new, lambda ld: _split(ld, first + pos, span))
            LOG.info(
                "split-inner-for-swizzle: %s: row of %d split into %d x %d, swizzle %d",
                what, inner.extent.data, outer, span, self.swizzle,
            )  # fmt: skip

    def _decline(self, stage: tile.StageOp) -> str | None:
        if stage.copy.data != tile.CopyKind.TMA:
            return "not a tma stage"
        if stage.swizzle is not None:
            return f"already swizzled ({stage.swizzle.data} bytes)"
        if not only_loads(stage):
            return "used by something other than loop.load"
        assert isinstance(stage.source.type, MemRefType)
        size = elem_bytes(stage.source.type)
        slab = stage.slab.data
        if all(d.dim.data == slab[-1].dim.data for d in slab):
            return "a single row: nothing to swizzle"
        run = contiguous_run(stage)
        if run is None:
            return "its innermost slab dim does not walk the source's contiguous dim"
        row = run * size
        if row < self.swizzle:
            return f"a row of {row} bytes is narrower than the {self.swizzle}-byte swizzle"
        if row % self.swizzle:
            return f"a row of {row} bytes is not a multiple of the {self.swizzle}-byte swizzle"
        if row > self.swizzle and run != slab[-1].extent.data:
            return f"a row of {row} bytes spans several slab dims"
        if self.swizzle % size:
            return f"{size}-byte elements do not tile the {self.swizzle}-byte swizzle"
        return None


def _split(load: loop.LoadOp, pos: int, span: int) -> tuple[list[SSAValue], AffineMap]:
    """The load with its last index `i` read as `i floordiv span` at `pos` and `i mod span`."""
    amap = load.map.data
    results = list(amap.results)
    inner = results[-1]
    results = results[:pos] + [inner // span] + results[pos:-1] + [inner % span]
    return list(load.indices), AffineMap(amap.num_dims, 0, tuple(results))
