"""Scalar ops dpl needs that xDSL's (0.74) arith and math lack, registered into those dialects.

- `arith.remf`: the floating remainder with the sign of the dividend (C's fmod), which
  torch.fmod and torch.remainder lower to. CUDA: `fmodf` / `fmod`; CPU executors: `np.fmod`.
- `math.lgamma`: log |Gamma(x)| (C's lgamma), which torch.lgamma lowers to. CUDA: `lgammaf` /
  `lgamma`, the functions PyTorch's CUDA kernels call; CPU executors: Python's `math.lgamma`.

`arith_dialect()` and `math_dialect()` are upstream's plus these; dpl's context registers them
as `arith` and `math`.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure, SameOperandsAndResultType


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    """`%r = arith.remf %a, %b : f32`: a - b * trunc(a / b), computed exactly (C's fmod)."""

    name = "arith.remf"

    traits = traits_def(Pure())


@irdl_op_definition
class LgammaOp(math.FloatingPointLikeUnaryMathOperation):
    """`%r = math.lgamma %a : f32`: log |Gamma(a)|; +inf at 0, the negative integers and +-inf."""

    name = "math.lgamma"

    traits = traits_def(Pure(), SameOperandsAndResultType())


def arith_dialect() -> Dialect:
    """xDSL's arith with the ops above added."""
    from xdsl.universe import Universe

    upstream = Universe.get_multiverse().all_dialects["arith"]()
    return Dialect("arith", [*upstream.operations, RemFOp], [*upstream.attributes])


def math_dialect() -> Dialect:
    """xDSL's math with the ops above added."""
    from xdsl.universe import Universe

    upstream = Universe.get_multiverse().all_dialects["math"]()
    return Dialect("math", [*upstream.operations, LgammaOp], [*upstream.attributes])
