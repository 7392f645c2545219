"""async-copy: fill shared-memory stages with cp.async (`async`) on sm_80 and newer.

Every `tile.stage` that is filled synchronously gets the `async` copy kind: the materializer
emits `cp.async` per element with commit/wait fences, so the warps do not block on the global
loads (and a double-buffered fill can overlap compute once the loop is pipelined).

Declines (logged to `dpl.passes`) everything on a target older than sm_80 (no cp.async), stages
already copied by TMA (`tma`, the better copy on sm_90), and stages whose elements are not 4, 8
or 16 bytes (the sizes one cp.async moves).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import tile
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.stages import describe, elem_bytes, stages
from dpl.transforms.tile.target import CP_ASYNC, parse_target, target_arch


@dataclass(frozen=True)
class AsyncCopy(ModulePass):
    """Mark synchronous stages `async` (cp.async) when the target is sm_80 or newer."""

    name = "async-copy"

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
            if sm < CP_ASYNC:
                LOG.info("async-copy: %s: %s has no cp.async (sm_80+)", what, self.target)
                continue
            if stage.copy.data != tile.CopyKind.SYNC:
                LOG.info("async-copy: %s: already copied by %s", what, stage.copy.data)
                continue
            assert isinstance(stage.source.type, MemRefType)
            size = elem_bytes(stage.source.type)
            if size not in (4, 8, 16):
                LOG.info("async-copy: %s: cp.async cannot move %d-byte elements", what, size)
                continue
            stage.properties["copy"] = tile.CopyKindAttr(tile.CopyKind.ASYNC)
            LOG.info("async-copy: %s: cp.async", what)
