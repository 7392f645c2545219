"""hoist-loop-invariants: move pure ops that do not depend on a loop out of it.

Pure ops are arith/math, affine.apply, loop.load (kernels never write what they read) and reduce
loops built only of those. An op moves in front of the loop when nothing it reads (in its regions
too) is defined inside the loop; innermost loops first, until nothing moves. This is what places a
fused reduction at the level of the loops it depends on (the seeds' RMSNorm: the sum of squares
sits inside the row loop, before the column loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.loop.nest import hoist_invariants


@dataclass(frozen=True)
class HoistLoopInvariants(ModulePass):
    """Move loop-invariant pure ops (and whole reduce loops) out of the loops around them."""

    name = "hoist-loop-invariants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            hoist_invariants(kernel)
