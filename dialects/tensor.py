"""The tensor dialect: every op as elementwise / reduce / index_map on ranked tensors.

This is the level the torch ops decompose into (see `transforms/decompose/`). Values are builtin
ranked tensors; the ops are few and regular, so the loop lowering only has to know these:

    %bias_bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>
    %add = tensor.elementwise ins(%x, %bias_bc : tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tensor.yield %s : f32
    }
    %red = tensor.reduce sum %prod axes [1] : tensor<16x64x16xf32> -> tensor<16x1x16xf32>

- `tensor.elementwise`: operands all of the result's shape (broadcasting is an explicit
  `tensor.index_map`); the body gets one scalar per operand and, with `with_indices`, one `index`
  per result dimension; it ends in `tensor.yield`. With no operands it builds a constant or iota.
- `tensor.reduce`: folds `axes` with `sum|prod|max|min`; reduced dims stay, with extent 1.
- `tensor.index_map`: `out[d] = x[map(d)]` (broadcast, transpose, reshape, slice, repeat, ...).
- `tensor.gather`: `out[a.., i.., b..] = table[a.., indices[i..], b..]` (embedding).
- `tensor.scatter`: the combiner's identity with `src[a.., i, b..]` folded (sum, max, min) into
  `out[a.., indices[a.., i, b..], b..]` (index_add, scatter_add, scatter_reduce, index_put).
- `tensor.concat`: joins operands along `axis`.
- `tensor.constant`: a dense literal that is not a splat (splats are zero-operand elementwise ops).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from enum import auto

import numpy as np

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntAttr,
    IntegerType,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class ReduceKind(StrEnum):
    """How `tensor.reduce` folds the reduced elements."""

    SUM = auto()
    PROD = auto()
    MAX = auto()
    MIN = auto()


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "tensor.reduce_kind"


def _shape(value: SSAValue | Attribute) -> tuple[int, ...]:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _elem(value: SSAValue | Attribute) -> Attribute:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return t.element_type


def _parse_tensor_type(parser: Parser, what: str) -> TensorType:
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, TensorType):
        parser.raise_error(f"'{what}' expects a ranked tensor type, got {t}", pos, parser.pos)
    return t


def _check_static(op: IRDLOperation, values: Sequence[SSAValue]) -> None:
    for v in values:
        if not isinstance(v.type, TensorType) or any(d < 0 for d in v.type.get_shape()):
            raise VerifyException(f"'{op.name}' needs ranked tensors of static shape, got {v.type}")


# ---------------------------------------------------------------------------------------------
# tensor.yield / tensor.elementwise


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`tensor.yield %v : f32` ends an elementwise body with the element's value."""

    name = "tensor.yield"
    value = operand_def()
    assembly_format = "$value attr-dict `:` type($value)"
    traits = traits_def(IsTerminator(), Pure())

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), ElementwiseOp):
            raise VerifyException("'tensor.yield' must terminate a 'tensor.elementwise' body")


@irdl_op_definition
class ElementwiseOp(IRDLOperation):
    """`%r = tensor.elementwise ins(%a, %b : T, T) [with_indices] -> T { ^bb0(...): ... }`.

    Every operand has exactly the result's shape. The body's block arguments are one scalar per
    operand (its element type), then, with `with_indices`, one `index` per result dimension. The
    body computes one output element with arith/math ops and ends in `tensor.yield`.
    """

    name = "tensor.elementwise"

    ins = var_operand_def(TensorType)
    with_indices = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        ins: Sequence[SSAValue],
        result_type: TensorType,
        body: Region | Block,
        with_indices: bool = False,
    ):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[ins],
            result_types=[result_type],
            regions=[body],
            properties={"with_indices": UnitAttr()} if with_indices else {},
        )

    @property
    def scalar_args(self):
        return self.body.block.args[: len(self.ins)]

    @property
    def index_args(self):
        return self.body.block.args[len(self.ins) :]

    def verify_(self) -> None:
        _check_static(self, [*self.ins, self.result])
        shape = _shape(self.result)
        for i, v in enumerate(self.ins):
            if _shape(v) != shape:
                raise VerifyException(
                    f"'tensor.elementwise' operand #{i} has shape {list(_shape(v))} but the "
                    f"result has shape {list(shape)}: broadcast with tensor.index_map first"
                )
        args = self.body.block.args
        n_idx = len(shape) if self.with_indices is not None else 0
        if len(args) != len(self.ins) + n_idx:
            raise VerifyException(
                f"'tensor.elementwise' body takes {len(args)} arguments but needs "
                f"{len(self.ins)} scalars" + (f" and {n_idx} indices" if n_idx else "")
            )
        for i, (v, a) in enumerate(zip(self.ins, args)):
            if a.type != _elem(v):
                raise VerifyException(
                    f"'tensor.elementwise' body argument #{i} has type {a.type} but operand "
                    f"#{i} has element type {_elem(v)}"
                )
        for a in args[len(self.ins) :]:
            if not isinstance(a.type, IndexType):
                raise VerifyException(
                    f"'tensor.elementwise' index arguments must have type index, got {a.type}"
                )
        last = self.body.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("'tensor.elementwise' body must end in 'tensor.yield'")
        if last.value.type != _elem(self.result):
            raise VerifyException(
                f"'tensor.elementwise' yields {last.value.type} but the result element type "
                f"is {_elem(self.result)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseOp:
        ins: list[SSAValue] = []
        if parser.parse_optional_keyword("ins"):
            parser.parse_punctuation("(")
            if not parser.parse_optional_punctuation(")"):
                operands = parser.parse_comma_separated_list(
                    parser.Delimiter.NONE, parser.parse_unresolved_operand
                )
                parser.parse_punctuation(":")
                types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
                ins = parser.resolve_operands(operands, types, parser.pos)
        with_indices = parser.parse_optional_keyword("with_indices") is not None
        parser.parse_punctuation("->")
        result_type = _parse_tensor_type(parser, "tensor.elementwise")
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        op = cls(ins, result_type, body, with_indices)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.ins:
            printer.print_string(" ins(")
            printer.print_list(self.ins, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.ins], printer.print_attribute)
            printer.print_string(")")
        if self.with_indices is not None:
            printer.print_string(" with_indices")
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# tensor.reduce


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """`%r = tensor.reduce sum %x axes [1] : tensor<16x64x16xf32> -> tensor<16x1x16xf32>`.

    Folds the listed axes with the kind's operator; the reduced dims stay, with extent 1.
    """

    name = "tensor.reduce"

    input = operand_def(TensorType)
    kind = prop_def(ReduceKindAttr)
    axes = prop_def(ArrayAttr[IntAttr])
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, kind: ReduceKind, input: SSAValue, axes: Sequence[int]):
        shape = list(_shape(input))
        for a in axes:
            if 0 <= a < len(shape):
                shape[a] = 1
        super().__init__(
            operands=[input],
            properties={
                "kind": ReduceKindAttr(kind),
                "axes": ArrayAttr([IntAttr(a) for a in axes]),
            },
            result_types=[TensorType(_elem(input), shape)],
        )

    @property
    def axis_list(self) -> list[int]:
        return [a.data for a in self.axes]

    def verify_(self) -> None:
        _check_static(self, [self.input, self.result])
        shape = list(_shape(self.input))
        axes = self.axis_list
        if not axes:
            raise VerifyException("'tensor.reduce' needs at least one axis")
        for a in axes:
            if not 0 <= a < len(shape):
                raise VerifyException(
                    f"'tensor.reduce' axis {a} is out of range for a rank-{len(shape)} input"
                )
        if len(set(axes)) != len(axes):
            raise VerifyException(f"'tensor.reduce' axes {axes} repeat an axis")
        for a in axes:
            shape[a] = 1
        if list(_shape(self.result)) != shape or _elem(self.result) != _elem(self.input):
            raise VerifyException(
                f"'tensor.reduce' result must be {TensorType(_elem(self.input), shape)} "
                f"(reduced axes kept with extent 1), got {self.result.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        kind = parser.parse_str_enum(ReduceKind)
        x = parser.parse_unresolved_operand()
        parser.parse_keyword("axes")
        axes = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        parser.parse_punctuation(":")
        in_type = _parse_tensor_type(parser, "tensor.reduce")
        parser.parse_punctuation("->")
        out_type = _parse_tensor_type(parser, "tensor.reduce")
        attrs = parser.parse_optional_attr_dict()
        op = cls.build(
            operands=[parser.resolve_operand(x, in_type)],
            properties={
                "kind": ReduceKindAttr(kind),
                "axes": ArrayAttr([IntAttr(a) for a in axes]),
            },
            result_types=[out_type],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.input)
        printer.print_string(f" axes [{', '.join(str(a) for a in self.axis_list)}] : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# tensor.index_map


def expr_range(expr: AffineExpr, box: Sequence[int]) -> tuple[int, int] | None:
    """A sound [lo, hi] for `expr` over dims d_i in [0, box[i]-1] (interval arithmetic).

    None when the expression uses symbols or a non-constant divisor.
    """
    if isinstance(expr, AffineConstantExpr):
        return expr.value, expr.value
    if isinstance(expr, AffineDimExpr):
        return 0, box[expr.position] - 1
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    lhs = expr_range(expr.lhs, box)
    rhs = expr_range(expr.rhs, box)
    if lhs is None or rhs is None:
        return None
    (a, b), (c, d) = lhs, rhs
    match expr.kind:
        case AffineBinaryOpKind.Add:
            return a + c, b + d
        case AffineBinaryOpKind.Mul:
            products = (a * c, a * d, b * c, b * d)
            return min(products), max(products)
        case AffineBinaryOpKind.FloorDiv | AffineBinaryOpKind.CeilDiv if c == d and c > 0:
            if expr.kind == AffineBinaryOpKind.FloorDiv:
                return a // c, b // c
            return -(-a // c), -(-b // c)
        case AffineBinaryOpKind.Mod if c == d and c > 0:
            if a // c == b // c:
                return a % c, b % c
            return 0, c - 1
    return None


def _has_div_or_mod(expr: AffineExpr) -> bool:
    return any(
        isinstance(e, AffineBinaryOpExpr) and e.kind != AffineBinaryOpKind.Add
        and e.kind != AffineBinaryOpKind.Mul
        for e in expr.dfs()
    )


def out_of_range_index(amap: AffineMap, out_shape: Sequence[int], src_shape: Sequence[int]):
    """A (result index, source index) pair where `amap` leaves the source box, or None.

    Each map result is first bounded by interval arithmetic; a result that might leave its range
    is evaluated exactly at the corners of the result box. For results without floordiv/mod the
    extremes of an affine function lie at corners, so the check is exact; with floordiv/mod only
    the corners are checked (a violation strictly inside the box goes unreported).
    """
    if any(e == 0 for e in out_shape):
        return None
    suspicious = []
    for r, (expr, extent) in enumerate(zip(amap.results, src_shape)):
        bounds = expr_range(expr, out_shape)
        if bounds is None or bounds[0] < 0 or bounds[1] >= extent:
            suspicious.append(r)
    if not suspicious:
        return None
    for corner in itertools.product(*[sorted({0, n - 1}) for n in out_shape]):
        point = amap.eval(corner, [])
        if any(not 0 <= point[r] < src_shape[r] for r in suspicious):
            return corner, point
    return None


@irdl_op_definition
class IndexMapOp(IRDLOperation):
    """`%r = tensor.index_map %x affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>`.

    `out[d] = x[map(d)]`: the map takes one dim per result dimension and gives one index per
    source dimension. Broadcast, transpose, reshape (floordiv/mod of a linearised index), slice
    (offset/stride), unsqueeze, expand and repeat are all index maps. The verifier checks that the
    indices stay inside the source (see `out_of_range_index` for how exact that check is).
    """

    name = "tensor.index_map"

    input = operand_def(TensorType)
    map = prop_def(AffineMapAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, input: SSAValue, amap: AffineMap, result_type: TensorType):
        super().__init__(
            operands=[input], properties={"map": AffineMapAttr(amap)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        _check_static(self, [self.input, self.result])
        amap = self.map.data
        out_shape, src_shape = _shape(self.result), _shape(self.input)
        if amap.num_symbols:
            raise VerifyException("'tensor.index_map' map must not have symbols")
        if amap.num_dims != len(out_shape):
            raise VerifyException(
                f"'tensor.index_map' map has {amap.num_dims} dims but the result has rank "
                f"{len(out_shape)}"
            )
        if len(amap.results) != len(src_shape):
            raise VerifyException(
                f"'tensor.index_map' map has {len(amap.results)} results but the source has "
                f"rank {len(src_shape)}"
            )
        if _elem(self.input) != _elem(self.result):
            raise VerifyException(
                f"'tensor.index_map' result element type {_elem(self.result)} differs from "
                f"the source's {_elem(self.input)}"
            )
        bad = out_of_range_index(amap, out_shape, src_shape)
        if bad is not None:
            raise VerifyException(
                f"'tensor.index_map' maps result index {list(bad[0])} to source index "
                f"{list(bad[1])}, outside the source shape {list(src_shape)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> IndexMapOp:
        x = parser.parse_unresolved_operand()
        pos = parser.pos
        amap = parser.parse_attribute()
        if not isinstance(amap, AffineMapAttr):
            parser.raise_error("'tensor.index_map' expects an affine_map<...>", pos, parser.pos)
        parser.parse_punctuation(":")
        in_type = _parse_tensor_type(parser, "tensor.index_map")
        parser.parse_punctuation("->")
        out_type = _parse_tensor_type(parser, "tensor.index_map")
        attrs = parser.parse_optional_attr_dict()
        op = cls(parser.resolve_operand(x, in_type), amap.data, out_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_string(" ")
        printer.print_attribute(self.map)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# tensor.gather / tensor.concat / tensor.constant


def _is_integer_like(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)


def _parse_indexed(parser: Parser, name: str) -> tuple[SSAValue, SSAValue, int, TensorType, dict]:
    """`%a[%ids] axis 0 : tensor<..>, tensor<..> -> tensor<..> {attrs}` (gather, scatter): the
    operand, the indices, the axis, the result type and the attributes."""
    a = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    ids = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    parser.parse_keyword("axis")
    axis = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(":")
    a_type = _parse_tensor_type(parser, name)
    parser.parse_punctuation(",")
    i_type = _parse_tensor_type(parser, name)
    parser.parse_punctuation("->")
    out_type = _parse_tensor_type(parser, name)
    attrs = parser.parse_optional_attr_dict()
    return parser.resolve_operand(a, a_type), parser.resolve_operand(ids, i_type), axis, out_type, attrs


def _print_indexed(printer: Printer, a: SSAValue, ids: SSAValue, axis: int, result: SSAValue, attributes) -> None:
    printer.print_ssa_value(a)
    printer.print_string("[")
    printer.print_ssa_value(ids)
    printer.print_string(f"] axis {axis} : ")
    printer.print_attribute(a.type)
    printer.print_string(", ")
    printer.print_attribute(ids.type)
    printer.print_string(" -> ")
    printer.print_attribute(result.type)
    printer.print_op_attributes(attributes)


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`%r = tensor.gather %table[%ids] axis 0 : tensor<V x D>, tensor<S x i64> -> tensor<S x D>`.

    `out[a.., i.., b..] = table[a.., ids[i..], b..]` where `a..` are the dims before `axis`.
    """

    name = "tensor.gather"

    table = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, table: SSAValue, indices: SSAValue, axis: int = 0):
        ts, ids = _shape(table), _shape(indices)
        shape = [*ts[:axis], *ids, *ts[axis + 1 :]]
        super().__init__(
            operands=[table, indices],
            properties={"axis": IntAttr(axis)},
            result_types=[TensorType(_elem(table), shape)],
        )

    def verify_(self) -> None:
        _check_static(self, [self.table, self.indices, self.result])
        ts, ids, axis = _shape(self.table), _shape(self.indices), self.axis.data
        if not 0 <= axis < len(ts):
            raise VerifyException(
                f"'tensor.gather' axis {axis} is out of range for a rank-{len(ts)} table"
            )
        if not _is_integer_like(_elem(self.indices)):
            raise VerifyException(
                f"'tensor.gather' indices must be integers, got {_elem(self.indices)}"
            )
        expected = TensorType(_elem(self.table), [*ts[:axis], *ids, *ts[axis + 1 :]])
        if self.result.type != expected:
            raise VerifyException(
                f"'tensor.gather' result must be {expected}, got {self.result.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        table, ids, axis, out_type, attrs = _parse_indexed(parser, "tensor.gather")
        op = cls.build(operands=[table, ids], properties={"axis": IntAttr(axis)}, result_types=[out_type])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_indexed(printer, self.table, self.indices, self.axis.data, self.result, self.attributes)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`%r = tensor.scatter max %src[%ids] axis 0 : tensor<S x D>, tensor<S x D x i64> -> tensor<V x D>`.

    The combiner's identity (sum 0, max -inf, min +inf; an integer type's extremes) with each
    element of `src` folded in by `kind` at its own position, `axis` replaced by `ids` (of
    src's shape): `out[a.., ids[i, b..], b..] = kind(out[..], src[i, b..])`; duplicates fold in
    any order. On dims other than `axis` the result is at least as large as `src` (positions
    past it keep the identity). An index outside [0, V) is clamped onto the dim's edge (PyTorch
    raises; the GPU never writes outside the buffer).
    """

    name = "tensor.scatter"

    src = operand_def(TensorType)
    indices = operand_def(TensorType)
    kind = prop_def(ReduceKindAttr)
    axis = prop_def(IntAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, kind: ReduceKind, src: SSAValue, indices: SSAValue, axis: int, result_type: TensorType):
        super().__init__(
            operands=[src, indices],
            properties={"kind": ReduceKindAttr(kind), "axis": IntAttr(axis)},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        _check_static(self, [self.src, self.indices, self.result])
        ss, ids, out, axis = _shape(self.src), _shape(self.indices), _shape(self.result), self.axis.data
        if self.kind.data == ReduceKind.PROD:
            raise VerifyException("'tensor.scatter' folds with sum, max or min, not prod")
        if not 0 <= axis < len(ss):
            raise VerifyException(f"'tensor.scatter' axis {axis} is out of range for a rank-{len(ss)} source")
        if not _is_integer_like(_elem(self.indices)):
            raise VerifyException(f"'tensor.scatter' indices must be integers, got {_elem(self.indices)}")
        if ids != ss:
            raise VerifyException(f"'tensor.scatter' indices shape {list(ids)} differs from the source shape {list(ss)}")
        if _elem(self.result) != _elem(self.src):
            raise VerifyException(
                f"'tensor.scatter' result element type {_elem(self.result)} differs from the source's {_elem(self.src)}"
            )
        if len(out) != len(ss) or any(o < n for k, (o, n) in enumerate(zip(out, ss)) if k != axis):
            raise VerifyException(
                f"'tensor.scatter' result shape {list(out)} must have the source's rank and be no "
                f"smaller than source {list(ss)} on every dim but {axis}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ScatterOp:
        kind = parser.parse_str_enum(ReduceKind)
        src, ids, axis, out_type, attrs = _parse_indexed(parser, "tensor.scatter")
        op = cls(kind, src, ids, axis, out_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        _print_indexed(printer, self.src, self.indices, self.axis.data, self.result, self.attributes)


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """`%r = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>`."""

    name = "tensor.concat"

    inputs = var_operand_def(TensorType)
    axis = prop_def(IntAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, inputs: Sequence[SSAValue], axis: int):
        shape = list(_shape(inputs[0]))
        shape[axis] = sum(_shape(v)[axis] for v in inputs)
        super().__init__(
            operands=[inputs],
            properties={"axis": IntAttr(axis)},
            result_types=[TensorType(_elem(inputs[0]), shape)],
        )

    def verify_(self) -> None:
        _check_static(self, [*self.inputs, self.result])
        if not self.inputs:
            raise VerifyException("'tensor.concat' needs at least one operand")
        out, axis = _shape(self.result), self.axis.data
        if not 0 <= axis < len(out):
            raise VerifyException(
                f"'tensor.concat' axis {axis} is out of range for a rank-{len(out)} result"
            )
        for i, v in enumerate(self.inputs):
            s = _shape(v)
            if len(s) != len(out) or any(a != b for k, (a, b) in enumerate(zip(s, out)) if k != axis):
                raise VerifyException(
                    f"'tensor.concat' operand #{i} has shape {list(s)}, which differs from the "
                    f"result shape {list(out)} off axis {axis}"
                )
            if _elem(v) != _elem(self.result):
                raise VerifyException(
                    f"'tensor.concat' operand #{i} has element type {_elem(v)}, the result "
                    f"{_elem(self.result)}"
                )
        total = sum(_shape(v)[axis] for v in self.inputs)
        if total != out[axis]:
            raise VerifyException(
                f"'tensor.concat' operands sum to {total} along axis {axis} but the result "
                f"has {out[axis]}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConcatOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_keyword("axis")
        axis = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation("->")
        out_type = _parse_tensor_type(parser, "tensor.concat")
        attrs = parser.parse_optional_attr_dict()
        op = cls.build(
            operands=[parser.resolve_operands(operands, types, parser.pos)],
            properties={"axis": IntAttr(axis)},
            result_types=[out_type],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_ssa_value)
        printer.print_string(f" axis {self.axis.data} : ")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`%c = tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>`: a literal tensor."""

    name = "tensor.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def splat(self) -> int | float | None:
        """The one value of every element (bit for bit), or None; compares the raw bytes, so a
        zeros_like of millions of elements is not unpacked into Python numbers."""
        raw = self.value.data.data
        count = math.prod(self.value.get_shape())
        if count == 0 or len(raw) % count:
            return None
        width = len(raw) // count
        if width in (1, 2, 4, 8):
            words = np.frombuffer(raw, dtype=f"u{width}")
        else:
            words = np.frombuffer(raw, dtype=np.uint8).reshape(count, width)
        if not (words == words[0]).all():
            return None
        return self.value.get_element_type().unpack(raw[:width], 1)[0]

    def verify_(self) -> None:
        if self.value.type != self.result.type:
            raise VerifyException(
                f"'tensor.constant' value has type {self.value.type} but the result is "
                f"{self.result.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("'tensor.constant' expects a dense<...> literal", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        op = cls(value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


Tensor = Dialect(
    "tensor",
    [ElementwiseOp, YieldOp, ReduceOp, IndexMapOp, GatherOp, ScatterOp, ConcatOp, ConstantOp],
    [ReduceKindAttr],
)
