"""dedup-loads: merge repeated pure ops in a block: identical loads, arithmetic and reduce loops.

Two ops in the same block that are structurally identical (same op, same operands, same
regions) and pure compute the same value, so the later one is replaced by the earlier. Fusion
leaves many such repeats: a producer inlined at two loads of the same element, or a reduction
inlined into two consumers that were then fused together.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.loop.nest import dedup_pure_ops


@dataclass(frozen=True)
class DedupLoads(ModulePass):
    """Replace repeated loads / pure ops / reduce loops by their first occurrence in a block."""

    name = "dedup-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            dedup_pure_ops(kernel)
