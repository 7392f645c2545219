"""pipeline-k-outer: mark a K-outer loop `{tile.pipeline = D}` to overlap its fills with compute.

A `loop.for` in a tile kernel that fills at least one `async` or `tma` stage buffered along it
(`buffers N at %k`, from double-buffer then async-copy / tma-copy), each such stage with at least
D buffers, gets `{tile.pipeline = D}`: the materializer rotates it into prologue / steady state /
epilogue with D fills in flight. The mark does not change what the program computes.

Declines (logged to `dpl.passes`) loops already marked, loops that fill no async/tma stage
buffered along them (synchronous fills gain nothing), and loops with a stage of fewer than D
buffers (D fills in flight need D slots).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG


@dataclass(frozen=True)
class PipelineKOuter(ModulePass):
    """Mark K-outer loops filling async/tma stages of >= D buffers `{tile.pipeline = D}`."""

    name = "pipeline-k-outer"

    depth: int = 2

    def __post_init__(self):
        check_option(self, "depth", 2)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, tile.KernelOp)]:
            for f in [o for o in kernel.walk() if isinstance(o, loop.ForOp)]:
                what = f"@{kernel.sym_name.data}: loop {f.iv.name_hint or '?'}"
                if tile.PIPELINE in f.attributes:
                    LOG.info("pipeline-k-outer: %s: already pipelined", what)
                    continue
                filled = [
                    s
                    for s in f.body.walk()
                    if isinstance(s, tile.StageOp)
                    and s.buffer_loop is f.iv
                    and s.copy.data != tile.CopyKind.SYNC
                ]
                if not filled:
                    LOG.info(
                        "pipeline-k-outer: %s: fills no async/tma stage buffered along it", what
                    )
                    continue
                short = [s for s in filled if s.buffers is not None and s.buffers.data < self.depth]
                if short:
                    LOG.info(
                        "pipeline-k-outer: %s: a stage has %d buffers, fewer than depth %d",
                        what, short[0].buffers.data, self.depth,
                    )  # fmt: skip
                    continue
                f.attributes[tile.PIPELINE] = IntegerAttr(self.depth, i64)
                LOG.info("pipeline-k-outer: %s: pipelined, depth %d", what, self.depth)
