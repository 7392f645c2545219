"""fold-invariant-reductions: a reduce loop that accumulates a value it does not compute is its
closed form.

After fusion and hoisting, a sum of a constant (`(l * l).sum(-1)` where l = zeros, a Cholesky's
first column) is a reduce loop holding nothing but its `loop.accumulate` of a value defined
outside it. Left at a kernel's top level it makes the kernel a "row reduction" whose row is the
whole kernel, which the schedule runs on one block. Folded, the kernel is pointwise:

    %s = loop.for reduce %r < 8 -> f32 { loop.accumulate add %v : f32 }
 ->
    %s = arith.addf (arith.mulf %v, 8.0), 0.0          (add: v * n; + 0.0 as the sum's +0 for -0)
    max / min: %v itself

Declines (leaves the loop) a reduce loop whose body computes anything, that accumulates a
value defined inside it, of no iterations, or with an accumulate of `mul` (over more than one
iteration) or of a bool. Meaning is kept up to the rounding of n additions against one product.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.loop.nest import fold_invariant_reductions


@dataclass(frozen=True)
class FoldInvariantReductions(ModulePass):
    """Replace reduce loops of a loop-invariant value by their closed form."""

    name = "fold-invariant-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            fold_invariant_reductions(kernel)
