"""Scalar ops MLIR's arith dialect has and xDSL's (0.74) lacks, registered into `arith`.

- `arith.remf`: the floating remainder with the sign of the dividend (C's fmod), which
  torch.fmod and torch.remainder lower to. CUDA: `fmodf` / `fmod`; CPU executors: `np.fmod`.

`arith_dialect()` is upstream arith plus these; dpl's context registers it as `arith`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    """`%r = arith.remf %a, %b : f32`: a - b * trunc(a / b), computed exactly (C's fmod)."""

    name = "arith.remf"

    traits = traits_def(Pure())


def arith_dialect() -> Dialect:
    """xDSL's arith with the ops above added."""
    from xdsl.universe import Universe

    upstream = Universe.get_multiverse().all_dialects["arith"]()
    return Dialect("arith", [*upstream.operations, RemFOp], [*upstream.attributes])
