"""The torch dialect: one op per captured PyTorch (ATen) op, on builtin ranked tensors.

This is the frontend's output level. Each op keeps PyTorch's meaning (broadcasting, matmul's
batch rules, SDPA's causal mask) so a reader can map it back to the model code one to one:

    func.func @main(%x: tensor<1x32x2048xf32>, %p_weight: tensor<2048xf32>) -> tensor<1x32x2048xf32> {
      %0 = torch.rms_norm %x, %p_weight {eps = 1.0e-06 : f64, normalized_rank = 1}
             : (tensor<1x32x2048xf32>, tensor<2048xf32>) -> tensor<1x32x2048xf32>
      func.return %0 : tensor<1x32x2048xf32>
    }

Every op prints as `torch.<op> operands {properties} : (operand types) -> result type`.
Integer properties (`dim`, `dims`, `normalized_rank`, `start`, ...) print as plain integers
(`dim = 2`, `dims = [0, 1]`) and are `IntAttr` / `ArrayAttr[IntAttr]` in memory; dims are always
normalised to be non-negative. Optional operands (`weight`, `bias`, `attn_mask`) are written
positionally after the required ones, in their declared order. Each op's verifier checks the
operand ranks / shapes and that the result type is the one PyTorch would produce.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    OptOperandDef,
    VarOperandDef,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

SEGMENTS = "operandSegmentSizes"


class GeluApproximate(StrEnum):
    """`torch.nn.functional.gelu`'s `approximate` argument."""

    NONE = auto()
    TANH = auto()


@irdl_attr_definition
class GeluApproximateAttr(EnumAttribute[GeluApproximate], SpacedOpaqueSyntaxAttribute):
    name = "torch.approximate"


# ----------------------------------------------------------------------------- shape helpers


def shape_of(value: SSAValue | Attribute) -> tuple[int, ...]:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def elem_of(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType)
    return t.element_type


def bit_width(elem: Attribute) -> int:
    """The bits of one element of type `elem` (0 where it is neither an integer nor a float)."""
    if isinstance(elem, IntegerType):
        return elem.width.data
    if isinstance(elem, AnyFloat):
        return elem.bitwidth
    return 0


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """NumPy/PyTorch broadcasting of two shapes, or None where they do not broadcast."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """The result shape of torch.matmul(a, b), or None where the operands do not fit."""
    if not a or not b:
        return None
    a2 = (1, *a) if len(a) == 1 else tuple(a)
    b2 = (*b, 1) if len(b) == 1 else tuple(b)
    if a2[-1] != b2[-2]:
        return None
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    if batch is None:
        return None
    out = [*batch, a2[-2], b2[-1]]
    if len(b) == 1:
        out.pop(-1)
    if len(a) == 1:
        out.pop(-2 if len(b) != 1 else -1)
    return tuple(out)


def reduce_shape(shape: Sequence[int], dims: Sequence[int], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if i in dims else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in dims)


def _fmt(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


# ----------------------------------------------------------------------------- common syntax


def _print_prop(printer: Printer, value: Attribute) -> None:
    if isinstance(value, IntAttr):
        printer.print_string(str(value.data))
    elif isinstance(value, ArrayAttr) and all(isinstance(v, IntAttr) for v in value.data):
        printer.print_string("[" + ", ".join(str(v.data) for v in value.data) + "]")  # type: ignore
    else:
        printer.print_attribute(value)


def _to_prop(value: Attribute) -> Attribute:
    """Plain integers in the textual form are IntAttr properties in memory."""
    if isinstance(value, IntegerAttr) and value.type == i64:
        return IntAttr(value.value.data)
    if isinstance(value, ArrayAttr) and all(
        isinstance(v, IntegerAttr) and v.type == i64 for v in value.data
    ):
        return ArrayAttr([IntAttr(v.value.data) for v in value.data])  # type: ignore
    return value


class TorchOp(IRDLOperation):
    """Shared syntax: `torch.op %a, %b {props} : (types) -> type`."""

    traits = traits_def(Pure())

    @property
    def out_type(self) -> TensorType:
        t = self.results[0].type
        assert isinstance(t, TensorType)
        return t

    @property
    def out_shape(self) -> tuple[int, ...]:
        return tuple(self.out_type.get_shape())

    def _fail(self, message: str) -> None:
        raise VerifyException(f"'{self.name}' {message}")

    def _expect_shape(self, shape: Sequence[int] | None, what: str = "") -> None:
        if shape is None:
            return
        if tuple(shape) != self.out_shape:
            self._fail(
                f"result shape {_fmt(self.out_shape)} does not match the expected "
                f"{what + ' ' if what else ''}shape {_fmt(shape)}"
            )

    def _same_element_type(self, *values: SSAValue) -> None:
        for v in values:
            assert isinstance(v.type, TensorType)
            if v.type.element_type != self.out_type.element_type:
                self._fail(
                    f"operand element type {v.type.element_type} differs from the result "
                    f"element type {self.out_type.element_type}"
                )

    def _dim_in_range(self, name: str, dim: int, rank: int) -> None:
        if not 0 <= dim < rank:
            self._fail(f"{name} {dim} is out of range for rank {rank} (must be in [0, {rank}))")

    @classmethod
    def create_from(
        cls,
        operands: Sequence[SSAValue],
        result_type: Attribute,
        properties: dict[str, Attribute] | None = None,
    ):
        """Build the op from positional operands (optional ones trailing, possibly omitted)."""
        grouped: list[SSAValue | list[SSAValue]] = []
        rest = list(operands)
        defs = cls.get_irdl_definition().operands
        for _, odef in defs:
            if isinstance(odef, VarOperandDef) and not isinstance(odef, OptOperandDef):
                grouped.append(rest)
                rest = []
            elif isinstance(odef, OptOperandDef):
                grouped.append([rest.pop(0)] if rest else [])
            else:
                if not rest:
                    raise ValueError(f"'{cls.name}' is missing a required operand")
                grouped.append(rest.pop(0))
        if rest:
            raise ValueError(f"'{cls.name}' takes at most {len(defs)} operands")
        return cls.build(
            operands=grouped, result_types=[result_type], properties=dict(properties or {})
        )

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        unresolved = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        ) or []
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(unresolved) or len(ftype.outputs) != 1:
            parser.raise_error(
                f"'{cls.name}' expects one type per operand and one result type", pos, parser.pos
            )
        operands = parser.resolve_operands(unresolved, ftype.inputs.data, pos)
        prop_names = set(cls.get_irdl_definition().properties)
        props = {k: _to_prop(v) for k, v in attrs.items() if k in prop_names}
        op = cls.create_from(operands, ftype.outputs.data[0], props)
        op.attributes |= {k: v for k, v in attrs.items() if k not in prop_names}
        return op

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_ssa_value)
        entries = [(k, v) for k, v in self.properties.items() if k != SEGMENTS]
        entries += list(self.attributes.items())
        if entries:
            printer.print_string(" {")
            for i, (k, v) in enumerate(sorted(entries, key=lambda kv: kv[0])):
                if i:
                    printer.print_string(", ")
                printer.print_string(f"{k} = ")
                _print_prop(printer, v)
            printer.print_string("}")
        printer.print_string(" : (")
        printer.print_list([o.type for o in self.operands], printer.print_attribute)
        printer.print_string(") -> ")
        printer.print_attribute(self.results[0].type)


# ----------------------------------------------------------------------------- constant


@irdl_op_definition
class ConstantOp(TorchOp):
    """`%c = torch.constant {value = dense<2.0> : tensor<f64>} : () -> tensor<f64>`."""

    name = "torch.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        if self.value.type != self.result.type:
            self._fail(f"value type {self.value.type} differs from the result type {self.result.type}")


@irdl_op_definition
class IotaOp(TorchOp):
    """`%i = torch.iota {dim = 1} : () -> tensor<1x1024xi64>`: 0, 1, ... along `dim`, every other
    dim of extent 1. The positions sort, top-k and scans compare: it lowers to the loop index,
    no buffer (a table of them made a sort's comparisons loads, and so a contraction)."""

    name = "torch.iota"
    dim = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        self._dim_in_range("dim", self.dim.data, len(self.out_shape))
        if not isinstance(self.out_type.element_type, IntegerType):
            self._fail(f"element type {self.out_type.element_type} is not an integer type")
        if any(e != 1 for i, e in enumerate(self.out_shape) if i != self.dim.data):
            self._fail(f"result shape {_fmt(self.out_shape)} has an extent other than 1 off dim {self.dim.data}")


# ----------------------------------------------------------------------------- elementwise


class UnaryOp(TorchOp):
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        self._expect_shape(shape_of(self.input), "(same as input)")
        self._same_element_type(self.input)


@irdl_op_definition
class NegOp(UnaryOp):
    name = "torch.neg"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "torch.relu"


@irdl_op_definition
class SiluOp(UnaryOp):
    name = "torch.silu"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "torch.sigmoid"


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "torch.exp"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "torch.tanh"


@irdl_op_definition
class RsqrtOp(UnaryOp):
    name = "torch.rsqrt"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "torch.sqrt"


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "torch.reciprocal"


@irdl_op_definition
class CosOp(UnaryOp):
    name = "torch.cos"


@irdl_op_definition
class SinOp(UnaryOp):
    name = "torch.sin"


@irdl_op_definition
class GeluOp(UnaryOp):
    """`torch.gelu %x {approximate = #torch<approximate tanh>}`."""

    name = "torch.gelu"
    approximate = prop_def(GeluApproximateAttr)


class BinaryOp(TorchOp):
    """Elementwise with NumPy broadcasting of `lhs` and `rhs` to the result shape."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = broadcast_shapes(shape_of(self.lhs), shape_of(self.rhs))
        if shape is None:
            self._fail(
                f"operand shapes {_fmt(shape_of(self.lhs))} and {_fmt(shape_of(self.rhs))} "
                "do not broadcast"
            )
        self._expect_shape(shape, "broadcast")
        self._same_element_type(self.lhs, self.rhs)


@irdl_op_definition
class AddOp(BinaryOp):
    name = "torch.add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "torch.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "torch.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """True division on floats; on integers C's division, rounded toward zero."""

    name = "torch.div"


@irdl_op_definition
class PowOp(BinaryOp):
    name = "torch.pow"


@irdl_op_definition
class MaximumOp(BinaryOp):
    name = "torch.maximum"


# -- more pointwise ops (issue 14): one class each, grouped by how their types relate


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "torch.abs"


@irdl_op_definition
class SignOp(UnaryOp):
    name = "torch.sign"


@irdl_op_definition
class LogOp(UnaryOp):
    name = "torch.log"


@irdl_op_definition
class Log1pOp(UnaryOp):
    name = "torch.log1p"


@irdl_op_definition
class Log2Op(UnaryOp):
    name = "torch.log2"


@irdl_op_definition
class Log10Op(UnaryOp):
    name = "torch.log10"


@irdl_op_definition
class Exp2Op(UnaryOp):
    name = "torch.exp2"


@irdl_op_definition
class Expm1Op(UnaryOp):
    name = "torch.expm1"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "torch.erf"


@irdl_op_definition
class FloorOp(UnaryOp):
    name = "torch.floor"


@irdl_op_definition
class CeilOp(UnaryOp):
    name = "torch.ceil"


@irdl_op_definition
class TruncOp(UnaryOp):
    name = "torch.trunc"


@irdl_op_definition
class RoundOp(UnaryOp):
    """Round half to even (`torch.round`); with `decimals` d, round(x * 10^d) / 10^d (d < 0:
    round(x / 10^-d) * 10^-d), as ATen computes it."""

    name = "torch.round"
    decimals = prop_def(IntAttr)


@irdl_op_definition
class LgammaOp(UnaryOp):
    """log |Gamma(x)|: +inf at 0, the negative integers and +-inf (`torch.lgamma`)."""

    name = "torch.lgamma"


@irdl_op_definition
class TanOp(UnaryOp):
    name = "torch.tan"


@irdl_op_definition
class AtanOp(UnaryOp):
    name = "torch.atan"


@irdl_op_definition
class AsinOp(UnaryOp):
    name = "torch.asin"


@irdl_op_definition
class AcosOp(UnaryOp):
    name = "torch.acos"


@irdl_op_definition
class SinhOp(UnaryOp):
    name = "torch.sinh"


@irdl_op_definition
class CoshOp(UnaryOp):
    name = "torch.cosh"


@irdl_op_definition
class AsinhOp(UnaryOp):
    name = "torch.asinh"


@irdl_op_definition
class AcoshOp(UnaryOp):
    name = "torch.acosh"


@irdl_op_definition
class AtanhOp(UnaryOp):
    name = "torch.atanh"


@irdl_op_definition
class MishOp(UnaryOp):
    """x * tanh(log1p(exp(x)))."""

    name = "torch.mish"


@irdl_op_definition
class HardsigmoidOp(UnaryOp):
    """min(max(x + 3, 0), 6) / 6."""

    name = "torch.hardsigmoid"


@irdl_op_definition
class HardswishOp(UnaryOp):
    """x * min(max(x + 3, 0), 6) / 6."""

    name = "torch.hardswish"


@irdl_op_definition
class LeakyReluOp(UnaryOp):
    """x > 0 ? x : x * negative_slope."""

    name = "torch.leaky_relu"
    negative_slope = prop_def(FloatAttr)


@irdl_op_definition
class EluOp(UnaryOp):
    """x > 0 ? scale * x : alpha * scale * expm1(x * input_scale) (selu and celu are elus)."""

    name = "torch.elu"
    alpha = prop_def(FloatAttr)
    scale = prop_def(FloatAttr)
    input_scale = prop_def(FloatAttr)


@irdl_op_definition
class SoftplusOp(UnaryOp):
    """x * beta > threshold ? x : log1p(exp(x * beta)) / beta."""

    name = "torch.softplus"
    beta = prop_def(FloatAttr)
    threshold = prop_def(FloatAttr)


@irdl_op_definition
class HardtanhOp(UnaryOp):
    """min(max(x, min_val), max_val) (relu6 is hardtanh 0..6)."""

    name = "torch.hardtanh"
    min_val = prop_def(FloatAttr)
    max_val = prop_def(FloatAttr)

    def verify_(self) -> None:
        super().verify_()
        if self.min_val.value.data > self.max_val.value.data:
            self._fail(f"min_val {self.min_val.value.data} exceeds max_val {self.max_val.value.data}")


@irdl_op_definition
class BitwiseNotOp(UnaryOp):
    """~x on bool (logical not) or integer tensors."""

    name = "torch.bitwise_not"

    def verify_(self) -> None:
        super().verify_()
        if not isinstance(self.out_type.element_type, IntegerType):
            self._fail(f"needs a bool or integer tensor, got {self.out_type}")


class PredicateOp(TorchOp):
    """A bool (i1) tensor of the input's shape."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        self._expect_shape(shape_of(self.input), "(same as input)")
        self._bool_result()

    def _bool_result(self) -> None:
        if self.out_type.element_type != IntegerType(1):
            self._fail(f"result must be a bool (i1) tensor, got {self.out_type}")


@irdl_op_definition
class IsnanOp(PredicateOp):
    name = "torch.isnan"


@irdl_op_definition
class IsinfOp(PredicateOp):
    name = "torch.isinf"


@irdl_op_definition
class LogicalNotOp(PredicateOp):
    """x == 0 as bool."""

    name = "torch.logical_not"


@irdl_op_definition
class MinimumOp(BinaryOp):
    name = "torch.minimum"


@irdl_op_definition
class FmodOp(BinaryOp):
    """C's fmod: the remainder has the sign of `lhs`."""

    name = "torch.fmod"


@irdl_op_definition
class RemainderOp(BinaryOp):
    """Python's %: the remainder has the sign of `rhs`."""

    name = "torch.remainder"


@irdl_op_definition
class Atan2Op(BinaryOp):
    name = "torch.atan2"


@irdl_op_definition
class CopysignOp(BinaryOp):
    """|lhs| with the sign bit of `rhs` (C's copysign: -0 and a NaN's sign bit count)."""

    name = "torch.copysign"


class _IntBinaryOp(BinaryOp):
    def verify_(self) -> None:
        super().verify_()
        if not isinstance(self.out_type.element_type, IntegerType):
            self._fail(f"needs bool or integer tensors, got {self.out_type}")


@irdl_op_definition
class BitwiseAndOp(_IntBinaryOp):
    name = "torch.bitwise_and"


@irdl_op_definition
class BitwiseOrOp(_IntBinaryOp):
    name = "torch.bitwise_or"


@irdl_op_definition
class BitwiseXorOp(_IntBinaryOp):
    name = "torch.bitwise_xor"


@irdl_op_definition
class BitwiseLeftShiftOp(_IntBinaryOp):
    """lhs << rhs, 0 where rhs is negative or at least the bit width (PyTorch's rule)."""

    name = "torch.bitwise_left_shift"


@irdl_op_definition
class BitwiseRightShiftOp(_IntBinaryOp):
    """lhs >> rhs, arithmetic (signed); the sign's fill (0 or -1) where rhs is negative or at
    least the bit width (PyTorch's rule)."""

    name = "torch.bitwise_right_shift"


class CompareOp(TorchOp):
    """Elementwise comparison with broadcasting: operands of one element type, a bool result.
    Floats compare as IEEE does (NaN is unequal to everything, `ne` is true for it)."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = broadcast_shapes(shape_of(self.lhs), shape_of(self.rhs))
        if shape is None:
            self._fail(
                f"operand shapes {_fmt(shape_of(self.lhs))} and {_fmt(shape_of(self.rhs))} "
                "do not broadcast"
            )
        self._expect_shape(shape, "broadcast")
        assert isinstance(self.lhs.type, TensorType) and isinstance(self.rhs.type, TensorType)
        if self.lhs.type.element_type != self.rhs.type.element_type:
            self._fail(
                f"operand element types {self.lhs.type.element_type} and "
                f"{self.rhs.type.element_type} differ"
            )
        if self.out_type.element_type != IntegerType(1):
            self._fail(f"result must be a bool (i1) tensor, got {self.out_type}")


@irdl_op_definition
class EqOp(CompareOp):
    name = "torch.eq"


@irdl_op_definition
class NeOp(CompareOp):
    name = "torch.ne"


@irdl_op_definition
class LtOp(CompareOp):
    name = "torch.lt"


@irdl_op_definition
class LeOp(CompareOp):
    name = "torch.le"


@irdl_op_definition
class GtOp(CompareOp):
    name = "torch.gt"


@irdl_op_definition
class GeOp(CompareOp):
    name = "torch.ge"


@irdl_op_definition
class LogicalAndOp(CompareOp):
    """Both nonzero, as bool (operands of one element type)."""

    name = "torch.logical_and"


@irdl_op_definition
class LogicalOrOp(CompareOp):
    name = "torch.logical_or"


@irdl_op_definition
class LogicalXorOp(CompareOp):
    name = "torch.logical_xor"


@irdl_op_definition
class WhereOp(TorchOp):
    """cond ? lhs : rhs elementwise, the three broadcast together; `cond` is bool."""

    name = "torch.where"
    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shapes = [shape_of(v) for v in (self.cond, self.lhs, self.rhs)]
        shape = broadcast_shapes(shapes[0], shapes[1])
        shape = broadcast_shapes(shape, shapes[2]) if shape is not None else None
        if shape is None:
            self._fail(f"operand shapes {', '.join(map(_fmt, shapes))} do not broadcast")
        self._expect_shape(shape, "broadcast")
        assert isinstance(self.cond.type, TensorType)
        if self.cond.type.element_type != IntegerType(1):
            self._fail(f"cond must be a bool (i1) tensor, got {self.cond.type}")
        self._same_element_type(self.lhs, self.rhs)


@irdl_op_definition
class ClampOp(TorchOp):
    """min(max(input, min), max) with broadcasting; either bound may be absent (written
    positionally, so a max-only clamp has `has_min = false`)."""

    name = "torch.clamp"
    input = operand_def(TensorType)
    bounds = var_operand_def(TensorType)
    has_min = prop_def(BoolAttr)
    result = result_def(TensorType)

    @property
    def min(self) -> SSAValue | None:
        return self.bounds[0] if self.has_min.value.data and self.bounds else None

    @property
    def max(self) -> SSAValue | None:
        n = 1 if self.has_min.value.data else 0
        return self.bounds[n] if len(self.bounds) > n else None

    def verify_(self) -> None:
        n = len(self.bounds)
        if n > 2 or (self.has_min.value.data and n == 0):
            self._fail(
                f"takes a min and/or a max bound, got {n} bounds "
                f"(has_min = {'true' if self.has_min.value.data else 'false'})"
            )
        shape: tuple[int, ...] | None = shape_of(self.input)
        for b in self.bounds:
            shape = broadcast_shapes(shape, shape_of(b)) if shape is not None else None
        if shape is None:
            self._fail("input and bound shapes do not broadcast")
        self._expect_shape(shape, "broadcast")
        self._same_element_type(self.input, *self.bounds)


# ----------------------------------------------------------------------------- reductions


class ReduceOp(TorchOp):
    """Reduce `input` over `dims` (distinct, non-negative), keeping them as 1s with `keepdim`."""

    input = operand_def(TensorType)
    dims = prop_def(ArrayAttr[IntAttr])
    keepdim = prop_def(BoolAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, dims: Sequence[int], keepdim: bool, result_type: Attribute):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={
                "dims": ArrayAttr([IntAttr(d) for d in dims]),
                "keepdim": IntegerAttr(int(keepdim), IntegerType(1)),
            },
        )

    @property
    def dim_list(self) -> list[int]:
        return [d.data for d in self.dims.data]

    def verify_(self) -> None:
        shape = shape_of(self.input)
        dims = self.dim_list
        for d in dims:
            self._dim_in_range("dim", d, len(shape))
        if len(set(dims)) != len(dims):
            self._fail(f"dims {_fmt(dims)} repeat a dimension")
        self._expect_shape(reduce_shape(shape, dims, bool(self.keepdim.value.data)), "reduced")
        self._same_element_type(self.input)


@irdl_op_definition
class MeanOp(ReduceOp):
    name = "torch.mean"


@irdl_op_definition
class SumOp(ReduceOp):
    name = "torch.sum"


@irdl_op_definition
class AmaxOp(ReduceOp):
    name = "torch.amax"


@irdl_op_definition
class AminOp(ReduceOp):
    name = "torch.amin"


@irdl_op_definition
class ProdOp(ReduceOp):
    name = "torch.prod"


@irdl_op_definition
class LogsumexpOp(ReduceOp):
    """log(sum(exp(x))) over `dims`, computed as m + log(sum(exp(x - m))) with m = max (0 where
    infinite), as ATen does."""

    name = "torch.logsumexp"


class _BoolReduceOp(ReduceOp):
    def verify_(self) -> None:
        shape = shape_of(self.input)
        for d in self.dim_list:
            self._dim_in_range("dim", d, len(shape))
        self._expect_shape(reduce_shape(shape, self.dim_list, bool(self.keepdim.value.data)), "reduced")
        if self.out_type.element_type != IntegerType(1):
            self._fail(f"result must be a bool (i1) tensor, got {self.out_type}")


@irdl_op_definition
class AnyOp(_BoolReduceOp):
    """Whether any element over `dims` is nonzero."""

    name = "torch.any"


@irdl_op_definition
class AllOp(_BoolReduceOp):
    """Whether every element over `dims` is nonzero."""

    name = "torch.all"


@irdl_op_definition
class VarOp(ReduceOp):
    """sum((x - mean)^2) / max(0, N - correction) over `dims` (N: their element count)."""

    name = "torch.var"
    correction = prop_def(FloatAttr)


@irdl_op_definition
class StdOp(ReduceOp):
    """sqrt of torch.var."""

    name = "torch.std"
    correction = prop_def(FloatAttr)


@irdl_op_definition
class VectorNormOp(ReduceOp):
    """The `ord`-norm over `dims`: sum(|x|^ord)^(1/ord); ord inf / -inf: max / min |x|;
    ord 0: the count of nonzeros."""

    name = "torch.vector_norm"
    ord = prop_def(FloatAttr)


class _IndexReduceOp(ReduceOp):
    """The position of the first extreme element along one dim (`dims = [d]`), or of the whole
    tensor in row-major order (`dims` = all dims); an i64 tensor."""

    def verify_(self) -> None:
        shape = shape_of(self.input)
        dims = self.dim_list
        for d in dims:
            self._dim_in_range("dim", d, len(shape))
        if len(dims) > 1 and dims != list(range(len(shape))):
            self._fail(f"dims {_fmt(dims)} must be one dim or all of them")
        self._expect_shape(reduce_shape(shape, dims, bool(self.keepdim.value.data)), "reduced")
        if self.out_type.element_type != IntegerType(64):
            self._fail(f"result must be an i64 tensor, got {self.out_type}")


@irdl_op_definition
class ArgmaxOp(_IndexReduceOp):
    name = "torch.argmax"


@irdl_op_definition
class ArgminOp(_IndexReduceOp):
    name = "torch.argmin"


class _SoftmaxLike(TorchOp):
    input = operand_def(TensorType)
    dim = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        self._dim_in_range("dim", self.dim.data, len(shape_of(self.input)))
        self._expect_shape(shape_of(self.input), "(same as input)")
        self._same_element_type(self.input)


@irdl_op_definition
class SoftmaxOp(_SoftmaxLike):
    """Softmax of `input` along `dim`."""

    name = "torch.softmax"


@irdl_op_definition
class LogSoftmaxOp(_SoftmaxLike):
    """log(softmax(input)) along `dim`: x - max - log(sum(exp(x - max)))."""

    name = "torch.log_softmax"


@irdl_op_definition
class CumsumOp(_SoftmaxLike):
    """Running sums of `input` along `dim`: out[.., i, ..] = sum of input[.., :i+1, ..]."""

    name = "torch.cumsum"


# ----------------------------------------------------------------------------- normalisation


class NormOp(TorchOp):
    normalized_rank = prop_def(IntAttr)
    eps = prop_def(FloatAttr)

    def _verify_norm(self, params: Sequence[SSAValue | None]) -> None:
        shape = shape_of(self.input)  # type: ignore[attr-defined]
        n = self.normalized_rank.data
        if not 1 <= n <= len(shape):
            self._fail(f"normalized_rank {n} must be in [1, {len(shape)}] for a rank-{len(shape)} input")
        if self.eps.value.data < 0:
            self._fail(f"eps {self.eps.value.data} must be non-negative")
        for name, p in zip(("weight", "bias"), params):
            if p is not None and shape_of(p) != shape[len(shape) - n :]:
                self._fail(
                    f"{name} shape {_fmt(shape_of(p))} must be the normalized shape "
                    f"{_fmt(shape[len(shape) - n :])}"
                )
        self._expect_shape(shape, "(same as input)")
        self._same_element_type(self.input, *[p for p in params if p is not None])  # type: ignore


@irdl_op_definition
class RmsNormOp(NormOp):
    """x / sqrt(mean(x^2 over the trailing `normalized_rank` dims) + eps) * weight."""

    name = "torch.rms_norm"
    input = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        self._verify_norm([self.weight])


@irdl_op_definition
class LayerNormOp(NormOp):
    """(x - mean) / sqrt(var + eps) * weight + bias over the trailing `normalized_rank` dims."""

    name = "torch.layer_norm"
    input = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        self._verify_norm([self.weight, self.bias])


@irdl_op_definition
class GroupNormOp(TorchOp):
    """Input [N, C, *]: each of `num_groups` groups of C / num_groups channels is normalised
    over its channels and the trailing dims (biased variance), then weight[C] and bias[C]
    scale and shift each channel."""

    name = "torch.group_norm"
    input = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    num_groups = prop_def(IntAttr)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        shape = shape_of(self.input)
        if len(shape) < 2:
            self._fail(f"input must have rank >= 2 ([N, C, ...]), got shape {_fmt(shape)}")
        g, c = self.num_groups.data, shape[1]
        if g < 1 or c % g:
            self._fail(f"num_groups {g} must divide the {c} channels")
        for name, p in (("weight", self.weight), ("bias", self.bias)):
            if p is not None and shape_of(p) != (c,):
                self._fail(f"{name} shape {_fmt(shape_of(p))} must be [{c}]")
        if self.eps.value.data < 0:
            self._fail(f"eps {self.eps.value.data} must be non-negative")
        self._expect_shape(shape, "(same as input)")
        self._same_element_type(self.input, *[p for p in (self.weight, self.bias) if p is not None])


@irdl_op_definition
class BatchNormOp(TorchOp):
    """Batch norm in inference mode on [N, C, *]: (x - running_mean) / sqrt(running_var + eps)
    * weight + bias, all per channel (dim 1)."""

    name = "torch.batch_norm"
    input = operand_def(TensorType)
    running_mean = operand_def(TensorType)
    running_var = operand_def(TensorType)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        shape = shape_of(self.input)
        if len(shape) < 2:
            self._fail(f"input must have rank >= 2 ([N, C, ...]), got shape {_fmt(shape)}")
        c = shape[1]
        params = (("running_mean", self.running_mean), ("running_var", self.running_var),
                  ("weight", self.weight), ("bias", self.bias))
        for name, p in params:
            if p is not None and shape_of(p) != (c,):
                self._fail(f"{name} shape {_fmt(shape_of(p))} must be [{c}]")
        if self.eps.value.data < 0:
            self._fail(f"eps {self.eps.value.data} must be non-negative")
        self._expect_shape(shape, "(same as input)")
        self._same_element_type(self.input, *[p for _, p in params if p is not None])


# ----------------------------------------------------------------------------- contractions


@irdl_op_definition
class LinearOp(TorchOp):
    """input @ weight^T + bias, weight is [out, in]."""

    name = "torch.linear"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        x, w = shape_of(self.input), shape_of(self.weight)
        if len(w) != 2:
            self._fail(f"weight must be rank 2 ([out, in]), got shape {_fmt(w)}")
        if not x or x[-1] != w[1]:
            self._fail(f"input shape {_fmt(x)} does not end in the weight's in-features {w[1]}")
        if self.bias is not None and shape_of(self.bias) != (w[0],):
            self._fail(f"bias shape {_fmt(shape_of(self.bias))} must be [{w[0]}]")
        self._expect_shape((*x[:-1], w[0]))
        self._same_element_type(self.input, self.weight, *([self.bias] if self.bias else []))


@irdl_op_definition
class MatmulOp(TorchOp):
    """torch.matmul: 1-d promotion and batch broadcasting."""

    name = "torch.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        a, b = shape_of(self.lhs), shape_of(self.rhs)
        shape = matmul_shape(a, b)
        if shape is None:
            self._fail(f"operand shapes {_fmt(a)} and {_fmt(b)} do not fit a matmul")
        self._expect_shape(shape, "matmul")
        self._same_element_type(self.lhs, self.rhs)


@irdl_op_definition
class ScaledDotProductAttentionOp(TorchOp):
    """softmax(q @ k^T * scale + mask) @ v; `is_causal` masks keys after the query position.

    Shapes: query [..., Hq, L, E], key [..., Hk, S, E], value [..., Hk, S, Ev] -> [..., Hq, L, Ev].
    With `enable_gqa`, Hq may be a multiple of Hk (each key head serves Hq/Hk query heads).
    """

    name = "torch.scaled_dot_product_attention"
    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    attn_mask = opt_operand_def(TensorType)
    is_causal = prop_def(BoolAttr)
    scale = prop_def(FloatAttr)
    enable_gqa = prop_def(BoolAttr)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        q, k, v = shape_of(self.query), shape_of(self.key), shape_of(self.value)
        if len(q) < 2 or len(k) != len(q) or len(v) != len(q):
            self._fail(f"query, key and value must have one rank >= 2, got {len(q)}, {len(k)}, {len(v)}")
        if q[-1] != k[-1]:
            self._fail(f"query head dim {q[-1]} differs from key head dim {k[-1]}")
        if k[-2] != v[-2]:
            self._fail(f"key length {k[-2]} differs from value length {v[-2]}")
        if k[:-2] != v[:-2]:
            self._fail(f"key batch dims {_fmt(k[:-2])} differ from value batch dims {_fmt(v[:-2])}")
        if len(q) >= 3 and q[-3] != k[-3]:
            if not self.enable_gqa.value.data or q[-3] % k[-3] != 0:
                self._fail(
                    f"query heads {q[-3]} and key heads {k[-3]} differ "
                    "(needs enable_gqa and a multiple)"
                )
        if q[:-3] != k[:-3]:
            self._fail(f"query batch dims {_fmt(q[:-3])} differ from key batch dims {_fmt(k[:-3])}")
        if self.attn_mask is not None:
            if broadcast_shapes(shape_of(self.attn_mask), (*q[:-1], k[-2])) != (*q[:-1], k[-2]):
                self._fail(
                    f"attn_mask shape {_fmt(shape_of(self.attn_mask))} does not broadcast to "
                    f"{_fmt((*q[:-1], k[-2]))}"
                )
            if self.is_causal.value.data:
                self._fail("attn_mask and is_causal cannot both be set")
        if self.scale.value.data <= 0 or not math.isfinite(self.scale.value.data):
            self._fail(f"scale {self.scale.value.data} must be positive")
        self._expect_shape((*q[:-1], v[-1]), "attention")
        self._same_element_type(self.query, self.key, self.value)


# ----------------------------------------------------------------------------- sliding windows


def window_out(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    """Output extent of a window op along one dim (PyTorch's floor mode)."""
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def _ints(attr: ArrayAttr) -> list[int]:
    return [a.data for a in attr.data]  # type: ignore[attr-defined]


class _WindowOp(TorchOp):
    """Shared checks of ops that slide a window over the trailing `len(stride)` dims."""

    def _verify_window(self, shape: Sequence[int], kernel: Sequence[int], channels_out: int) -> None:
        stride, pad, dil = _ints(self.stride), _ints(self.padding), _ints(self.dilation)  # type: ignore[attr-defined]
        r = len(stride)
        if not (len(kernel) == len(pad) == len(dil) == r) or r < 1:
            self._fail(f"kernel, stride, padding and dilation need one entry per spatial dim ({r})")
        if len(shape) != r + 2:
            self._fail(f"input must be [N, C, {r} spatial dims], got shape {_fmt(shape)}")
        if min(stride) < 1 or min(dil) < 1 or min(pad) < 0 or min(kernel) < 1:
            self._fail("kernel, stride and dilation must be positive, padding non-negative")
        spatial = [window_out(n, k, s, p, d) for n, k, s, p, d in zip(shape[2:], kernel, stride, pad, dil)]
        if min(spatial) < 1:
            self._fail(f"the window does not fit the input shape {_fmt(shape)}")
        self._expect_shape((shape[0], channels_out, *spatial), "windowed")


@irdl_op_definition
class ConvolutionOp(_WindowOp):
    """Convolution (cross-correlation) of input [N, C, *S] with weight [Co, C / groups, *K]
    (+ bias [Co]), with stride, zero padding and dilation per spatial dim."""

    name = "torch.convolution"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    stride = prop_def(ArrayAttr[IntAttr])
    padding = prop_def(ArrayAttr[IntAttr])
    dilation = prop_def(ArrayAttr[IntAttr])
    groups = prop_def(IntAttr)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        x, w = shape_of(self.input), shape_of(self.weight)
        g = self.groups.data
        if len(w) != len(x) or g < 1 or x[1] % g or w[0] % g or w[1] != x[1] // g:
            self._fail(
                f"weight shape {_fmt(w)} does not fit input shape {_fmt(x)} with {g} groups "
                "([C_out, C_in / groups, *kernel], both channel counts divisible by groups)"
            )
        if self.bias is not None and shape_of(self.bias) != (w[0],):
            self._fail(f"bias shape {_fmt(shape_of(self.bias))} must be [{w[0]}]")
        self._verify_window(x, w[2:], w[0])
        self._same_element_type(self.input, self.weight, *([self.bias] if self.bias else []))


@irdl_op_definition
class MaxPoolOp(_WindowOp):
    """The maximum of each window (padding counts as -inf)."""

    name = "torch.max_pool"
    input = operand_def(TensorType)
    kernel = prop_def(ArrayAttr[IntAttr])
    stride = prop_def(ArrayAttr[IntAttr])
    padding = prop_def(ArrayAttr[IntAttr])
    dilation = prop_def(ArrayAttr[IntAttr])
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        self._verify_window(x, _ints(self.kernel), x[1] if len(x) > 1 else 0)
        self._same_element_type(self.input)


@irdl_op_definition
class AvgPoolOp(_WindowOp):
    """The mean of each window: the sum over `divisor` when it is set (> 0), else over the
    window's size, or, without `count_include_pad`, over its elements inside the input."""

    name = "torch.avg_pool"
    input = operand_def(TensorType)
    kernel = prop_def(ArrayAttr[IntAttr])
    stride = prop_def(ArrayAttr[IntAttr])
    padding = prop_def(ArrayAttr[IntAttr])
    dilation = prop_def(ArrayAttr[IntAttr])
    count_include_pad = prop_def(BoolAttr)
    divisor = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        self._verify_window(x, _ints(self.kernel), x[1] if len(x) > 1 else 0)
        if self.divisor.data < 0:
            self._fail(f"divisor {self.divisor.data} must be positive (or 0: none)")
        self._same_element_type(self.input)


# ----------------------------------------------------------------------------- shape ops


@irdl_op_definition
class ReshapeOp(TorchOp):
    """Reshape (view/flatten) to the result type's shape."""

    name = "torch.reshape"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        if math.prod(shape_of(self.input)) != math.prod(self.out_shape):
            self._fail(
                f"cannot reshape {_fmt(shape_of(self.input))} to {_fmt(self.out_shape)}: "
                "element counts differ"
            )
        self._same_element_type(self.input)


@irdl_op_definition
class TransposeOp(TorchOp):
    name = "torch.transpose"
    input = operand_def(TensorType)
    dim0 = prop_def(IntAttr)
    dim1 = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = list(shape_of(self.input))
        self._dim_in_range("dim0", self.dim0.data, len(shape))
        self._dim_in_range("dim1", self.dim1.data, len(shape))
        a, b = self.dim0.data, self.dim1.data
        shape[a], shape[b] = shape[b], shape[a]
        self._expect_shape(shape, "transposed")
        self._same_element_type(self.input)


@irdl_op_definition
class PermuteOp(TorchOp):
    name = "torch.permute"
    input = operand_def(TensorType)
    dims = prop_def(ArrayAttr[IntAttr])
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = shape_of(self.input)
        dims = [d.data for d in self.dims.data]
        if sorted(dims) != list(range(len(shape))):
            self._fail(f"dims {_fmt(dims)} must be a permutation of 0..{len(shape) - 1}")
        self._expect_shape([shape[d] for d in dims], "permuted")
        self._same_element_type(self.input)


@irdl_op_definition
class UnsqueezeOp(TorchOp):
    name = "torch.unsqueeze"
    input = operand_def(TensorType)
    dim = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = list(shape_of(self.input))
        self._dim_in_range("dim", self.dim.data, len(shape) + 1)
        shape.insert(self.dim.data, 1)
        self._expect_shape(shape, "unsqueezed")
        self._same_element_type(self.input)


@irdl_op_definition
class ExpandOp(TorchOp):
    """Broadcast `input` to the result type's shape (new dims in front, size-1 dims stretched)."""

    name = "torch.expand"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = shape_of(self.input)
        if broadcast_shapes(shape, self.out_shape) != self.out_shape or len(shape) > len(
            self.out_shape
        ):
            self._fail(f"cannot expand {_fmt(shape)} to {_fmt(self.out_shape)}")
        self._same_element_type(self.input)


@irdl_op_definition
class SliceOp(TorchOp):
    """input[..., start:end:step, ...] along `dim`; 0 <= start <= end <= size, step >= 1."""

    name = "torch.slice"
    input = operand_def(TensorType)
    dim = prop_def(IntAttr)
    start = prop_def(IntAttr)
    end = prop_def(IntAttr)
    step = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = list(shape_of(self.input))
        self._dim_in_range("dim", self.dim.data, len(shape))
        size = shape[self.dim.data]
        start, end, step = self.start.data, self.end.data, self.step.data
        if step < 1:
            self._fail(f"step {step} must be positive")
        if not 0 <= start <= end <= size:
            self._fail(f"bounds {start}:{end} must satisfy 0 <= start <= end <= {size}")
        shape[self.dim.data] = (end - start + step - 1) // step
        self._expect_shape(shape, "sliced")
        self._same_element_type(self.input)


@irdl_op_definition
class CatOp(TorchOp):
    """Concatenate `inputs` along `dim`."""

    name = "torch.cat"
    inputs = var_operand_def(TensorType)
    dim = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        if not self.inputs:
            self._fail("needs at least one input")
        shapes = [shape_of(v) for v in self.inputs]
        rank = len(shapes[0])
        self._dim_in_range("dim", self.dim.data, rank)
        d = self.dim.data
        for s in shapes:
            if len(s) != rank or s[:d] != shapes[0][:d] or s[d + 1 :] != shapes[0][d + 1 :]:
                self._fail(f"input shapes {', '.join(map(_fmt, shapes))} differ outside dim {d}")
        out = list(shapes[0])
        out[d] = sum(s[d] for s in shapes)
        self._expect_shape(out, "concatenated")
        self._same_element_type(*self.inputs)


@irdl_op_definition
class EmbeddingOp(TorchOp):
    """weight[indices]: rows of the [num, dim] table picked by an integer tensor."""

    name = "torch.embedding"
    weight = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        w = shape_of(self.weight)
        if len(w) != 2:
            self._fail(f"weight must be rank 2 ([num, dim]), got shape {_fmt(w)}")
        assert isinstance(self.indices.type, TensorType)
        if not isinstance(self.indices.type.element_type, IntegerType):
            self._fail(f"indices must be an integer tensor, got {self.indices.type}")
        self._expect_shape((*shape_of(self.indices), w[1]), "embedding")
        self._same_element_type(self.weight)


@irdl_op_definition
class IndexSelectOp(TorchOp):
    """input's slices along `dim` picked by a 1-d integer `index` (torch.index_select)."""

    name = "torch.index_select"
    input = operand_def(TensorType)
    index = operand_def(TensorType)
    dim = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = list(shape_of(self.input))
        self._dim_in_range("dim", self.dim.data, len(shape))
        assert isinstance(self.index.type, TensorType)
        if len(shape_of(self.index)) != 1 or not isinstance(self.index.type.element_type, IntegerType):
            self._fail(f"index must be a 1-d integer tensor, got {self.index.type}")
        shape[self.dim.data] = shape_of(self.index)[0]
        self._expect_shape(shape, "selected")
        self._same_element_type(self.input)


#: torch.scatter_reduce's reductions dpl folds with atomics (prod has none).
SCATTER_REDUCES = ("sum", "amax", "amin")


@irdl_op_definition
class ScatterReduceOp(TorchOp):
    """input with `src` folded in along `dim` at `index` by `reduce` (sum, amax or amin;
    torch.scatter_reduce with include_self, scatter_add for sum): out[.., index[i], ..] =
    reduce(out[.., index[i], ..], src[i]) for every position i of `index` (src has index's
    shape; on dims other than `dim` no larger than input's)."""

    name = "torch.scatter_reduce"
    input = operand_def(TensorType)
    index = operand_def(TensorType)
    src = operand_def(TensorType)
    dim = prop_def(IntAttr)
    reduce = prop_def(StringAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape, ishape = shape_of(self.input), shape_of(self.index)
        self._dim_in_range("dim", self.dim.data, len(shape))
        if self.reduce.data not in SCATTER_REDUCES:
            self._fail(f"reduce '{self.reduce.data}' is not one of {', '.join(SCATTER_REDUCES)}")
        assert isinstance(self.index.type, TensorType)
        if not isinstance(self.index.type.element_type, IntegerType):
            self._fail(f"index must be an integer tensor, got {self.index.type}")
        if shape_of(self.src) != ishape:
            self._fail(f"src shape {_fmt(shape_of(self.src))} differs from the index shape {_fmt(ishape)}")
        if len(ishape) != len(shape) or any(
            i > n for k, (i, n) in enumerate(zip(ishape, shape)) if k != self.dim.data
        ):
            self._fail(
                f"index shape {_fmt(ishape)} must have input's rank and be no larger than input "
                f"{_fmt(shape)} on every dim but {self.dim.data}"
            )
        self._expect_shape(shape, "(same as input)")
        self._same_element_type(self.input, self.src)


@irdl_op_definition
class FlipOp(TorchOp):
    """input reversed along each of `dims`."""

    name = "torch.flip"
    input = operand_def(TensorType)
    dims = prop_def(ArrayAttr[IntAttr])
    result = result_def(TensorType)

    def verify_(self) -> None:
        shape = shape_of(self.input)
        dims = [d.data for d in self.dims.data]
        for d in dims:
            self._dim_in_range("dim", d, len(shape))
        if len(set(dims)) != len(dims):
            self._fail(f"dims {_fmt(dims)} repeat a dimension")
        self._expect_shape(shape, "(same as input)")
        self._same_element_type(self.input)


@irdl_op_definition
class AsStridedOp(TorchOp):
    """A strided view of `input`'s elements in row-major order (torch.as_strided of a contiguous
    tensor): out[i0, .., ik] = flat(input)[offset + i0 * stride[0] + .. + ik * stride[k]]. The
    result's shape is the view's size; every position it reads must lie inside `input`."""

    name = "torch.as_strided"
    input = operand_def(TensorType)
    stride = prop_def(ArrayAttr[IntAttr])
    offset = prop_def(IntAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        size, stride = list(self.out_type.get_shape()), [s.data for s in self.stride.data]
        if len(stride) != len(size):
            self._fail(f"stride {_fmt(stride)} has {len(stride)} entries for a result of rank {len(size)}")
        if any(s < 0 for s in stride) or self.offset.data < 0:
            self._fail(f"stride {_fmt(stride)} and offset {self.offset.data} must not be negative")
        numel = math.prod(shape_of(self.input))
        last = self.offset.data + sum((n - 1) * s for n, s in zip(size, stride))
        if 0 not in size and last >= numel:
            self._fail(f"reads element {last}, past the {numel} elements of input {_fmt(shape_of(self.input))}")
        self._same_element_type(self.input)


@irdl_op_definition
class BitcastOp(TorchOp):
    """`input`'s element bits read as the result's element type of the same width
    (`Tensor.view(dtype)`): no value changes, no rounding."""

    name = "torch.bitcast"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        self._expect_shape(shape_of(self.input), "(same as input)")
        src, dst = elem_of(self.input), self.out_type.element_type
        if bit_width(src) != bit_width(dst) or bit_width(src) == 1:
            self._fail(f"cannot reinterpret {src} as {dst}: both must have the same width, above 1 bit")


@irdl_op_definition
class ToDtypeOp(TorchOp):
    """Convert `input`'s elements to the result's element type."""

    name = "torch.to_dtype"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        self._expect_shape(shape_of(self.input), "(same as input)")


Torch = Dialect(
    "torch",
    [
        ConstantOp,
        IotaOp,
        # pointwise
        NegOp, ReluOp, SiluOp, SigmoidOp, ExpOp, TanhOp, RsqrtOp, SqrtOp, ReciprocalOp, CosOp,
        SinOp, GeluOp, AbsOp, SignOp, LogOp, Log1pOp, Log2Op, Log10Op, Exp2Op, Expm1Op, ErfOp,
        FloorOp, CeilOp, TruncOp, RoundOp, LgammaOp, TanOp, AtanOp, AsinOp, AcosOp, SinhOp, CoshOp,
        AsinhOp, AcoshOp, AtanhOp, MishOp, HardsigmoidOp, HardswishOp, LeakyReluOp, EluOp,
        SoftplusOp, HardtanhOp, BitwiseNotOp, IsnanOp, IsinfOp, LogicalNotOp,
        AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, FmodOp, RemainderOp, Atan2Op, CopysignOp,
        BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, BitwiseLeftShiftOp, BitwiseRightShiftOp,
        EqOp, NeOp, LtOp, LeOp, GtOp, GeOp,
        LogicalAndOp, LogicalOrOp, LogicalXorOp, WhereOp, ClampOp,
        # reductions, softmax, normalisation
        MeanOp, SumOp, AmaxOp, AminOp, ProdOp, LogsumexpOp, AnyOp, AllOp, VarOp, StdOp,
        VectorNormOp, ArgmaxOp, ArgminOp, CumsumOp, SoftmaxOp, LogSoftmaxOp, RmsNormOp, LayerNormOp,
        GroupNormOp, BatchNormOp,
        # contractions and windows
        LinearOp, MatmulOp, ScaledDotProductAttentionOp, ConvolutionOp, MaxPoolOp, AvgPoolOp,
        # shapes and types
        ReshapeOp, TransposeOp, PermuteOp, UnsqueezeOp, ExpandOp, SliceOp, FlipOp, AsStridedOp, CatOp,
        EmbeddingOp, IndexSelectOp, ScatterReduceOp, ToDtypeOp, BitcastOp,
    ],
    [GeluApproximateAttr],
)
