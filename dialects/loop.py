"""The loop dialect: one loop nest per kernel.

A `loop.kernel` names the buffers it reads (`ins`) and writes (`outs`) and holds a nest of
`loop.for` ops. A `free` loop runs its iterations independently; a `reduce` loop folds the values
its body accumulates into the loop's results (`acc <- add(acc, v)` in the seeds' notation).
Memory is touched only by `loop.load` / `loop.store` (and `loop.atomic`, a scatter's fold),
whose indices are affine expressions of index values: the enclosing loops' induction variables
(like `affine.load`) or an index read from memory (a gather's, a scatter's). Scalar arithmetic
is upstream `arith` / `math`.

    func.func @main(%x: memref<32x2048xf32>, %p_weight: memref<2048xf32>,
                    %rms_norm: memref<32x2048xf32>) {
      loop.kernel @k_rms_norm ins(%x, %p_weight : memref<32x2048xf32>, memref<2048xf32>)
                              outs(%rms_norm : memref<32x2048xf32>) {
        loop.for free %a0 < 32 {
          %acc0 = loop.for reduce %a1 < 2048 -> f32 {
            %in2 = loop.load %x[%a0, %a1] : memref<32x2048xf32>
            %v1 = arith.mulf %in2, %in2 : f32
            loop.accumulate add %v1 : f32
          }
          ...
          loop.store %v6, %rms_norm[%a0, %a2] : memref<32x2048xf32>
        }
      }
      func.return
    }
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import auto

from xdsl.dialects.affine import _print_affine_map_of_ssa_ids
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntAttr,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class IterKind(StrEnum):
    """How a loop's iterations relate: independent (`free`) or folded (`reduce`)."""

    FREE = auto()
    REDUCE = auto()


@irdl_attr_definition
class IterKindAttr(EnumAttribute[IterKind], SpacedOpaqueSyntaxAttribute):
    name = "loop.iter_kind"


class CombineKind(StrEnum):
    """The binary operator that folds accumulated values; each has an identity."""

    ADD = auto()
    MUL = auto()
    MAX = auto()
    MIN = auto()


@irdl_attr_definition
class CombineKindAttr(EnumAttribute[CombineKind], SpacedOpaqueSyntaxAttribute):
    name = "loop.combine"


def _print_access(
    printer: Printer, memref: SSAValue, amap: AffineMap, indices, attributes=None
) -> None:
    printer.print_ssa_value(memref)
    _print_affine_map_of_ssa_ids(printer, amap, indices)
    if attributes:
        printer.print_op_attributes(attributes)  # a schedule's mark, `{tile.masked}`
    printer.print_string(" : ")
    printer.print_attribute(memref.type)


def parse_combines(parser: Parser) -> tuple[list[CombineKind], list[SSAValue]]:
    """`add %v, max %w : f32, f32`: the operands of an accumulate op (loop, tile and kernel)."""

    def parse_one() -> tuple[CombineKind, UnresolvedOperand]:
        kind = parser.parse_str_enum(CombineKind)
        return kind, parser.parse_unresolved_operand()

    pairs = parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_one)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    values = parser.resolve_operands([o for _, o in pairs], types, parser.pos)
    return [k for k, _ in pairs], values


def print_combines(printer: Printer, kinds: ArrayAttr, values: Sequence[SSAValue]) -> None:
    printer.print_string(" ")
    printer.print_list(
        zip(kinds, values),
        lambda kv: (printer.print_string(f"{kv[0].data} "), printer.print_ssa_value(kv[1])),
    )
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined by `op` or inside its regions (results and block arguments)."""
    owner = value.owner
    owner_op = owner if isinstance(owner, Operation) else owner.parent_op()
    return owner_op is not None and op.is_ancestor(owner_op)


def verify_kernel_buffers(kernel: Operation, name: str, ins, outs) -> None:
    """The rules every kernel op shares: it writes something, its body takes no arguments, and
    the only outside values its body uses are its ins/outs. `name` is `'loop.kernel' @k`."""
    if not outs:
        raise VerifyException(f"{name} has no outs")
    if kernel.regions[0].block.args:
        raise VerifyException(f"{name.split(' @')[0]} body takes no arguments")
    buffers = {*ins, *outs}
    for op in kernel.walk():
        for operand in op.operands:
            if operand not in buffers and not defined_inside(operand, kernel):
                raise VerifyException(
                    f"{name} uses an outside value that is not one of its ins/outs"
                )


def _parse_access(parser: Parser) -> tuple[AffineMap, list[SSAValue]]:
    """`[%a0, %a1 + 1]`: an index map whose dimensions are the SSA values, in order."""
    amap, indices = parser.parse_affine_map_of_ssa_ids()
    dims = [AffineExpr.dimension(i) for i in range(amap.num_dims + amap.num_symbols)]
    amap = amap.replace_dims_and_symbols(
        dims[: amap.num_dims], dims[amap.num_dims :], len(dims), 0
    )
    return amap, list(indices)


def check_divisors(op: Operation, amap: AffineMap) -> None:
    """Every floordiv / ceildiv / mod of `amap` divides by a positive constant (`d0 mod 0` is a
    one-line error here, not a traceback in a pass that folds the map)."""
    divisions = (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod)
    for result in amap.results:
        for e in result.dfs():
            if isinstance(e, AffineBinaryOpExpr) and e.kind in divisions and not (
                    isinstance(e.rhs, AffineConstantExpr) and e.rhs.value > 0):  # fmt: skip
                raise VerifyException(f"'{op.name}' index map divides by {e.rhs} in {e}: a divisor must be a positive constant")


def _verify_access(op: Operation, memref: SSAValue, amap: AffineMap, indices) -> None:
    check_divisors(op, amap)
    memref_type = memref.type
    assert isinstance(memref_type, MemRefType)
    if len(amap.results) != memref_type.get_num_dims():
        raise VerifyException(
            f"'{op.name}' indexes a rank-{memref_type.get_num_dims()} buffer with "
            f"{len(amap.results)} indices"
        )
    if amap.num_symbols:
        raise VerifyException(f"'{op.name}' index map must not have symbols")
    if amap.num_dims != len(indices):
        raise VerifyException(
            f"'{op.name}' index map takes {amap.num_dims} values but {len(indices)} were given"
        )
    kernel = op.parent_op()
    while kernel is not None and not isinstance(kernel, KernelOp):
        kernel = kernel.parent_op()
    if kernel is not None and memref not in (*kernel.ins, *kernel.outs):
        raise VerifyException(
            f"'{op.name}' uses a buffer that is not among its kernel's ins/outs"
        )


def parse_write(parser: Parser, name: str) -> tuple[SSAValue, SSAValue, list[SSAValue], AffineMap, dict]:
    """`%v, %out[%a0, %a1 + 1] {attrs} : memref<...>`, what a store or an atomic writes: the
    value (of the buffer's element type), the buffer, the index operands, the map and the
    attributes."""
    value = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    memref = parser.parse_unresolved_operand()
    amap, indices = _parse_access(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    memref_type = parser.parse_type()
    if not isinstance(memref_type, MemRefType):
        parser.raise_error(f"'{name}' expects a memref type")
    return (parser.resolve_operand(value, memref_type.element_type), parser.resolve_operand(memref, memref_type),
            indices, amap, attrs)  # fmt: skip


def _verify_write(op: Operation, memref: SSAValue) -> KernelOp | None:
    """A store or atomic is in no reduce loop and writes an out of its kernel; the kernel."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        if getattr(parent, "is_reduce", False):
            raise VerifyException(f"'{op.name}' inside a reduce loop: reduce loops only accumulate")
        parent = parent.parent_op()
    if parent is not None and memref not in parent.outs:
        raise VerifyException(f"'{op.name}' writes a buffer that is not a kernel out")
    return parent


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = loop.load %x[%a0, %a1 + 1] : memref<...>`: read one element."""

    name = "loop.load"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    result = result_def()

    def __init__(self, memref: SSAValue, indices: Sequence[SSAValue], amap: AffineMap):
        assert isinstance(memref.type, MemRefType)
        super().__init__(
            operands=[memref, indices],
            properties={"map": AffineMapAttr(amap)},
            result_types=[memref.type.element_type],
        )

    def verify_(self) -> None:
        _verify_access(self, self.memref, self.map.data, self.indices)
        assert isinstance(self.memref.type, MemRefType)
        if self.result.type != self.memref.type.element_type:
            raise VerifyException(
                f"'loop.load' result type {self.result.type} differs from the element "
                f"type of {self.memref.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        memref = parser.parse_unresolved_operand()
        amap, indices = _parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        if not isinstance(memref_type, MemRefType):
            parser.raise_error("'loop.load' expects a memref type")
        op = cls(parser.resolve_operand(memref, memref_type), indices, amap)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.memref, self.map.data, self.indices, self.attributes)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`loop.store %v, %out[%a0, %a1] : memref<...>`: write one element."""

    name = "loop.store"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)

    def __init__(
        self, value: SSAValue, memref: SSAValue, indices: Sequence[SSAValue], amap: AffineMap
    ):
        super().__init__(
            operands=[value, memref, indices], properties={"map": AffineMapAttr(amap)}
        )

    def verify_(self) -> None:
        _verify_access(self, self.memref, self.map.data, self.indices)
        assert isinstance(self.memref.type, MemRefType)
        if self.value.type != self.memref.type.element_type:
            raise VerifyException(
                f"'loop.store' value type {self.value.type} differs from the element "
                f"type of {self.memref.type}"
            )
        _verify_write(self, self.memref)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value, memref, indices, amap, attrs = parse_write(parser, "loop.store")
        op = cls(value, memref, indices, amap)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.memref, self.map.data, self.indices, self.attributes)


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """`loop.atomic add %v, %out[%i, %a1] : memref<...>`: `out[i] = add(out[i], v)`, at an index
    that may be read from memory (a scatter: each source element folded into the position its
    index names; several may fold into one element, in any order).

    The kernel starts `out` at the combiner's identity (0 for add) and writes it only so: no
    `loop.store` of the kernel writes it. At the tile level it becomes `tile.atomic`.
    """

    name = "loop.atomic"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    kind = prop_def(CombineKindAttr)
    map = prop_def(AffineMapAttr)

    def __init__(
        self, kind: CombineKind, value: SSAValue, memref: SSAValue, indices: Sequence[SSAValue], amap: AffineMap
    ):
        super().__init__(
            operands=[value, memref, indices],
            properties={"kind": CombineKindAttr(kind), "map": AffineMapAttr(amap)},
        )

    def verify_(self) -> None:
        _verify_access(self, self.memref, self.map.data, self.indices)
        assert isinstance(self.memref.type, MemRefType)
        if self.value.type != self.memref.type.element_type:
            raise VerifyException(
                f"'loop.atomic' value type {self.value.type} differs from the element type of {self.memref.type}"
            )
        if self.kind.data == CombineKind.MUL:
            raise VerifyException("'loop.atomic' supports add, max and min, not mul")
        kernel = _verify_write(self, self.memref)
        if kernel is not None and any(isinstance(op, StoreOp) and op.memref is self.memref for op in kernel.walk()):
            raise VerifyException("'loop.atomic' folds into a buffer that a 'loop.store' of its kernel also writes")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicOp:
        kind = parser.parse_str_enum(CombineKind)
        value, memref, indices, amap, attrs = parse_write(parser, "loop.atomic")
        op = cls(kind, value, memref, indices, amap)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.memref, self.map.data, self.indices, self.attributes)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of a free loop (implicit in the textual form)."""

    name = "loop.yield"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator())


@irdl_op_definition
class AccumulateOp(IRDLOperation):
    """`loop.accumulate add %v, max %w : f32, f32` terminates a reduce loop.

    The i-th value is folded into the loop's i-th result with the i-th combiner:
    `acc_i <- kind_i(acc_i, v_i)`, starting from the combiner's identity.
    """

    name = "loop.accumulate"

    values = var_operand_def()
    kinds = prop_def(ArrayAttr[CombineKindAttr])
    traits = traits_def(IsTerminator())

    def __init__(self, kinds: Sequence[CombineKind], values: Sequence[SSAValue]):
        super().__init__(
            operands=[values],
            properties={"kinds": ArrayAttr([CombineKindAttr(k) for k in kinds])},
        )

    def verify_(self) -> None:
        if len(self.kinds) != len(self.values):
            raise VerifyException(
                f"'loop.accumulate' has {len(self.kinds)} combiners for "
                f"{len(self.values)} values"
            )
        # Any reduce loop (loop.for here, tile.strided_for at the tile level) exposes is_reduce.
        if not getattr(self.parent_op(), "is_reduce", False):
            raise VerifyException("'loop.accumulate' must terminate a reduce loop")

    @classmethod
    def parse(cls, parser: Parser) -> AccumulateOp:
        return cls(*parse_combines(parser))

    def print(self, printer: Printer) -> None:
        print_combines(printer, self.kinds, self.values)


@irdl_op_definition
class ForOp(IRDLOperation):
    """`loop.for free %a0 < 32 {...}` or `%acc = loop.for reduce %a1 < 2048 -> f32 {...}`.

    The induction variable runs over 0..extent-1. A free loop has no results and its body ends in
    the implicit `loop.yield`; a reduce loop's body ends in `loop.accumulate`, one value per result.
    """

    name = "loop.for"

    kind = prop_def(IterKindAttr)
    extent = prop_def(IntAttr)
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        kind: IterKind,
        extent: int,
        body: Region | Block,
        result_types: Sequence[Attribute] = (),
    ):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            properties={"kind": IterKindAttr(kind), "extent": IntAttr(extent)},
            regions=[body],
            result_types=[result_types],
        )

    @property
    def iv(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def is_reduce(self) -> bool:
        return self.kind.data == IterKind.REDUCE

    def verify_(self) -> None:
        if self.extent.data < 1:
            raise VerifyException(f"'loop.for' extent must be positive, got {self.extent.data}")
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException("'loop.for' body must take one index induction variable")
        last = self.body.block.last_op
        if self.is_reduce:
            if not isinstance(last, AccumulateOp):
                raise VerifyException("'loop.for' reduce body must end in 'loop.accumulate'")
            if [v.type for v in last.values] != [r.type for r in self.res]:
                raise VerifyException(
                    "'loop.for' reduce results must match the types of the accumulated values"
                )
        else:
            if self.res:
                raise VerifyException("'loop.for' free loops have no results")
            if not isinstance(last, YieldOp):  # (a loop.accumulate here fails its own verifier)
                raise VerifyException("'loop.for' free body must end in 'loop.yield'")

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        kind = parser.parse_str_enum(IterKind)
        iv = parser.parse_argument(expect_type=False).resolve(IndexType())
        parser.parse_punctuation("<")
        extent = parser.parse_integer(allow_boolean=False, allow_negative=False)
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        body = parser.parse_region((iv,))
        attrs = parser.parse_optional_attr_dict()
        op = cls(kind, extent, body, result_types)
        op.attributes |= attrs
        last = body.block.last_op
        if kind == IterKind.FREE and not (last is not None and last.has_trait(IsTerminator)):
            body.block.add_op(YieldOp())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.iv)
        printer.print_string(f" < {self.extent.data}")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.res], printer.print_attribute)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_block_terminators=self.is_reduce
        )
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class KernelOp(IRDLOperation):
    """`loop.kernel @k ins(%x : memref<..>) outs(%y : memref<..>) { nest }`: one GPU kernel.

    The body refers to the buffers directly; it may use no other outside value.
    """

    name = "loop.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    ins = var_operand_def(MemRefType)
    outs = var_operand_def(MemRefType)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = (
        "$sym_name (`ins` `(` $ins^ `:` type($ins) `)`)? (`outs` `(` $outs^ `:` type($outs) `)`)? "
        "$body attr-dict"
    )

    def __init__(
        self,
        name: str,
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        body: Region | Block | None = None,
    ):
        if body is None:
            body = Block()
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[ins, outs], properties={"sym_name": StringAttr(name)}, regions=[body]
        )

    def verify_(self) -> None:
        verify_kernel_buffers(self, f"'loop.kernel' @{self.sym_name.data}", self.ins, self.outs)



@irdl_op_definition
class ViewOp(IRDLOperation):
    """`%v = loop.view %x : memref<64x5x17x64xf32> -> memref<64x5440xf32>`: one buffer seen with
    another shape.

    The result is the source's elements in row-major order under a shape of the same element
    count (merge-dims gives a kernel the buffer with the dims it indexes at the row-major
    position of one index merged into one). Nothing is copied: a store through either is seen
    through both. It sits in the host program, before the kernel that takes it; outline-kernels
    launches the kernel with the source itself, which the kernel takes as the view's type
    (`kernel.launch` accepts a row-major view).
    """

    name = "loop.view"

    source = operand_def(MemRefType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, shape: Sequence[int]):
        t = source.type
        assert isinstance(t, MemRefType)
        result = MemRefType(t.element_type, shape, memory_space=t.memory_space)
        super().__init__(operands=[source], result_types=[result])

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, MemRefType) and isinstance(res, MemRefType)
        if src.element_type != res.element_type or src.memory_space != res.memory_space:
            raise VerifyException(f"'loop.view' changes the element type or memory space ({src} -> {res})")
        if not (src.has_static_shape() and res.has_static_shape()):
            raise VerifyException("'loop.view' needs static shapes")
        if math.prod(src.get_shape()) != math.prod(res.get_shape()):
            raise VerifyException(
                f"'loop.view' of {math.prod(src.get_shape())} elements as {math.prod(res.get_shape())} "
                f"({src} -> {res})"
            )


def view_root(v: SSAValue) -> SSAValue:
    """The buffer `v` views (through `loop.view`s), or `v` itself."""
    while isinstance(v.owner, ViewOp):
        v = v.owner.source
    return v


Loop = Dialect(
    "loop",
    [KernelOp, ForOp, LoadOp, StoreOp, AtomicOp, AccumulateOp, YieldOp, ViewOp],
    [IterKindAttr, CombineKindAttr],
)
