"""The arithmetic of a combiner (`add`, `mul`, `max`, `min`): its identity and the op that folds
two values, as the kernel-level passes emit them."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from dpl.dialects.loop import CombineKind


def identity(kind: CombineKind, t: Attribute) -> float | int:
    """The value `kind` folds into anything unchanged, in scalar type `t`."""
    if isinstance(t, IntegerType):
        w = t.width.data
        return {CombineKind.ADD: 0, CombineKind.MUL: 1, CombineKind.MAX: -(2 ** (w - 1)),
                CombineKind.MIN: 2 ** (w - 1) - 1}[kind]  # fmt: skip
    return {CombineKind.ADD: 0.0, CombineKind.MUL: 1.0, CombineKind.MAX: float("-inf"),
            CombineKind.MIN: float("inf")}[kind]  # fmt: skip


def identity_constant(kind: CombineKind, t: Attribute) -> arith.ConstantOp:
    """The constant op of `kind`'s identity (`identity`) in scalar type `t`."""
    if isinstance(t, IntegerType):
        return arith.ConstantOp(IntegerAttr(int(identity(kind, t)), t))
    return arith.ConstantOp(FloatAttr(float(identity(kind, t)), t))


def combine_op(kind: CombineKind, a: SSAValue, b: SSAValue) -> Operation:
    """The arith op that combines `a` and `b` by `kind` (float or integer by their type)."""
    is_float = isinstance(a.type, AnyFloat)
    cls = {
        CombineKind.ADD: arith.AddfOp if is_float else arith.AddiOp,
        CombineKind.MUL: arith.MulfOp if is_float else arith.MuliOp,
        CombineKind.MAX: arith.MaximumfOp if is_float else arith.MaxSIOp,
        CombineKind.MIN: arith.MinimumfOp if is_float else arith.MinSIOp,
    }[kind]
    return cls(a, b)
