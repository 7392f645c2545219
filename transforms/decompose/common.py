"""Helpers shared by the torch -> tensor decompositions (not a pass module).

`Emitter` builds tensor-dialect ops just before a torch op; `Scalar` builds the arith/math body of
a `tensor.elementwise`. `decompose(module, table)` replaces every op whose class is in `table`
with the value its rule builds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import tensor as T
from dpl.dialects.scalar import RemFOp


def shape_of(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType), v.type
    return tuple(v.type.get_shape())


def elem_of(v: SSAValue) -> Attribute:
    assert isinstance(v.type, TensorType), v.type
    return v.type.element_type


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


class Scalar:
    """Builds scalar arith/math ops into an elementwise body, for one element type."""

    def __init__(self, builder: Builder, etype: Attribute):
        self.b = builder
        self.t = etype

    def _one(self, op: Operation) -> SSAValue:
        self.b.insert(op)
        return op.results[0]

    def const(self, value: float, etype: Attribute | None = None) -> SSAValue:
        t = etype or self.t
        attr = FloatAttr(float(value), t) if is_float(t) else IntegerAttr(int(value), t)
        return self._one(arith.ConstantOp(attr))

    def _bin(self, fop, iop, a: SSAValue, b: SSAValue) -> SSAValue:
        if is_float(a.type):
            return self._one(fop(a, b))
        if iop is None:
            raise ValueError(f"no integer form of '{fop.name}'")
        return self._one(iop(a, b))

    def add(self, a, b):
        return self._bin(arith.AddfOp, arith.AddiOp, a, b)

    def sub(self, a, b):
        return self._bin(arith.SubfOp, arith.SubiOp, a, b)

    def mul(self, a, b):
        return self._bin(arith.MulfOp, arith.MuliOp, a, b)

    def div(self, a, b):
        return self._bin(arith.DivfOp, arith.DivSIOp, a, b)

    def max(self, a, b):
        return self._bin(arith.MaximumfOp, arith.MaxSIOp, a, b)

    def min(self, a, b):
        return self._bin(arith.MinimumfOp, arith.MinSIOp, a, b)

    def pow(self, a, b):
        return self._bin(math.PowFOp, None, a, b)

    def rem(self, a, b):
        """C's remainder (fmod for floats, % for integers): the sign of `a`."""
        return self._bin(RemFOp, arith.RemSIOp, a, b)

    def neg(self, a):
        if is_float(a.type):
            return self._one(arith.NegfOp(a))
        return self.sub(self.const(0, a.type), a)

    def abs(self, a):
        if is_float(a.type):
            return self._one(math.AbsFOp(a))
        return self.select(self.cmp("lt", a, self.const(0, a.type)), self.neg(a), a)

    def cmp(self, pred: str, a, b):
        """`pred` in eq ne lt le gt ge, as PyTorch compares: floats ordered (ne: unordered, so
        NaN != NaN), integers signed, bools unsigned (true > false)."""
        if is_float(a.type):
            fpred = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
            return self._one(arith.CmpfOp(a, b, fpred[pred]))
        if pred in ("eq", "ne"):
            return self.cmpi(pred, a, b)
        sign = "u" if isinstance(a.type, IntegerType) and a.type.width.data == 1 else "s"
        return self.cmpi(sign + pred, a, b)

    def nonzero(self, a):
        """`a != 0` as an i1 (a bool stays itself)."""
        if isinstance(a.type, IntegerType) and a.type.width.data == 1:
            return a
        return self.cmp("ne", a, self.const(0, a.type))

    def bool_to(self, c, etype: Attribute):
        """A bool as 0 / 1 of `etype`."""
        if is_float(etype):
            return self._one(arith.UIToFPOp(c, etype))
        if isinstance(etype, IntegerType) and etype.width.data == 1:
            return c
        return self._one(arith.ExtUIOp(c, etype))

    def unary(self, op_cls, a):
        return self._one(op_cls(a))

    def cmpi(self, pred: str, a, b):
        return self._one(arith.CmpiOp(a, b, pred))

    def select(self, c, a, b):
        return self._one(arith.SelectOp(c, a, b))

    def op(self, op: Operation) -> SSAValue:
        return self._one(op)


class Emitter:
    """Builds tensor-dialect ops at one insertion point."""

    def __init__(self, anchor: Operation, hint: str | None = None):
        self.b = Builder(InsertPoint.before(anchor))
        self.hint = hint
        self.created: list[Operation] = []

    def _one(self, op: Operation, hint: str | None = None) -> SSAValue:
        self.b.insert(op)
        self.created.append(op)
        if hint:
            op.results[0].name_hint = hint
        return op.results[0]

    def elementwise(
        self,
        ins: Sequence[SSAValue],
        etype: Attribute,
        shape: Sequence[int],
        body: Callable[..., SSAValue],
        with_indices: bool = False,
        hint: str | None = None,
    ) -> SSAValue:
        """`body(s, *scalars[, *indices])` returns the element; `s` is a Scalar builder."""
        arg_types = [elem_of(v) for v in ins]
        if with_indices:
            arg_types += [IndexType()] * len(shape)
        block = Block(arg_types=arg_types)
        for i, arg in enumerate(block.args):
            arg.name_hint = "abcdefgh"[i] if i < len(ins) else f"i{i - len(ins)}"
        s = Scalar(Builder(InsertPoint.at_end(block)), etype)
        value = body(s, *block.args)
        s.b.insert(T.YieldOp(value))
        op = T.ElementwiseOp(list(ins), TensorType(etype, list(shape)), block, with_indices)
        return self._one(op, hint)

    def map(self, x: SSAValue, amap: AffineMap, shape: Sequence[int], hint=None) -> SSAValue:
        if tuple(shape) == shape_of(x) and amap == AffineMap.identity(len(shape)):
            return x
        return self._one(T.IndexMapOp(x, amap, TensorType(elem_of(x), list(shape))), hint)

    def map_exprs(self, x, exprs: Sequence[AffineExpr], shape: Sequence[int], hint=None):
        return self.map(x, AffineMap(len(shape), 0, tuple(exprs)), shape, hint)

    def broadcast(self, x: SSAValue, shape: Sequence[int], hint=None) -> SSAValue:
        """NumPy broadcasting of `x` to `shape` (trailing dims aligned; extent-1 dims pinned at 0)."""
        src = shape_of(x)
        lead = len(shape) - len(src)
        exprs = [
            AffineExpr.constant(0) if n == 1 and shape[lead + i] != 1 else AffineExpr.dimension(lead + i)
            for i, n in enumerate(src)
        ]
        return self.map_exprs(x, exprs, shape, hint or "bc")

    def reduce(self, kind: T.ReduceKind, x: SSAValue, axes: Sequence[int], hint=None) -> SSAValue:
        """`x` folded by `kind` over `axes` (kept as dims of extent 1); over no axes (all the
        dims of a 0-d tensor) `x` itself, the fold of its one element."""
        if not axes:
            return x
        return self._one(T.ReduceOp(kind, x, sorted(axes)), hint or "red")

    def squeeze(self, x: SSAValue, axes: Sequence[int], hint=None) -> SSAValue:
        """Drop the given extent-1 dims with an index_map."""
        src = shape_of(x)
        out = [n for i, n in enumerate(src) if i not in axes]
        exprs: list[AffineExpr] = []
        k = 0
        for i in range(len(src)):
            if i in axes:
                exprs.append(AffineConstantExpr(0))
            else:
                exprs.append(AffineExpr.dimension(k))
                k += 1
        return self.map_exprs(x, exprs, out, hint)

    def unary(self, x: SSAValue, fn: Callable[..., SSAValue], etype=None, hint=None) -> SSAValue:
        return self.elementwise([x], etype or elem_of(x), shape_of(x), fn, hint=hint)

    def binary(self, a, b, fn, shape=None, etype=None, hint=None) -> SSAValue:
        """Broadcast `a` and `b` to `shape` (default: their broadcast shape) and combine."""
        if shape is None:
            shape = _broadcast_shape(shape_of(a), shape_of(b))
        a, b = self.broadcast(a, shape), self.broadcast(b, shape)
        return self.elementwise([a, b], etype or elem_of(a), shape, fn, hint=hint)

    def contract(
        self,
        a: SSAValue,
        a_exprs: Sequence[AffineExpr],
        b: SSAValue,
        b_exprs: Sequence[AffineExpr],
        full: Sequence[int],
        axis: int,
        hint=None,
    ) -> SSAValue:
        """sum over `axis` of a[a_exprs] * b[b_exprs] on the box `full`; `axis` is dropped."""
        abc = self.map_exprs(a, a_exprs, full, "lhs_bc")
        bbc = self.map_exprs(b, b_exprs, full, "rhs_bc")
        prod = self.elementwise(
            [abc, bbc], elem_of(a), full, lambda s, x, y: s.mul(x, y), hint="prod"
        )
        red = self.reduce(T.ReduceKind.SUM, prod, [axis])
        return self.squeeze(red, [axis], hint)


def _broadcast_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


Rule = Callable[[Operation, Emitter], SSAValue]


def decompose(module: ModuleOp, table: dict[type[Operation], Rule]) -> None:
    """Replace each op whose class is in `table` by the value its rule builds before it."""
    for op in list(module.walk()):
        rule = table.get(type(op))
        if rule is None:
            continue
        hint = op.results[0].name_hint if op.results else None
        emitter = Emitter(op, hint)
        value = rule(op, emitter)
        if value.type != op.results[0].type:
            raise ValueError(
                f"decomposing '{op.name}' gave {value.type}, expected {op.results[0].type}"
            )
        if hint and value.owner in emitter.created:
            value.name_hint = hint
        Rewriter.replace_op(op, [], [value])
