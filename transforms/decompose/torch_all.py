"""decompose-torch: every torch -> tensor decomposition, in one pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.transforms.decompose import (
    activations,
    attention,
    elementwise,
    logic,
    matmul,
    norms,
    reductions,
    shapes,
    windows,
)
from dpl.transforms.decompose.common import decompose


@dataclass(frozen=True)
class DecomposeTorch(ModulePass):
    """Rewrite every torch op into the tensor dialect (all decompose-* passes at once).

    Fails with a one-line error naming the first torch op that no rule covers.
    """

    name = "decompose-torch"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rules = {}
        for module in (elementwise, activations, logic, reductions, norms, matmul, attention, shapes,
                       windows):
            rules.update(module.RULES)
        decompose(op, rules)
        for inner in op.walk():
            if inner.name.startswith("torch."):
                raise ValueError(f"decompose-torch: no decomposition for '{inner.name}'")
