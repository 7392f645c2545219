"""A small builder of kernel IR for the lowerings that write a whole `kernel.func` at once
(materialize-attention): constants, affine index arithmetic, loops and guards, register-array
and shared-memory accesses, and the cloning of tile-level region ops (loads, stores, scalar
math, affine.apply) into kernel ops.

    em = Emitter(block)
    i = em.index(d0 * 4 + d1, [tid, j])          # arith on index values
    em.for_(8, lambda n: ..., unroll=True)        # kernel.for %n = 0 to 8 step 1 unroll
    em.if_(cond, then, otherwise)                 # kernel.if
    v = em.load(acc, [n], d0 * 4 + 1)             # kernel.load %acc[%n * 4 + 1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import Float32Type, FloatAttr, IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from dpl.dialects import kernel as K
from dpl.dialects import loop

_INDEX_OPS = {
    AffineBinaryOpKind.Add: arith.AddiOp,
    AffineBinaryOpKind.Mul: arith.MuliOp,
    AffineBinaryOpKind.FloorDiv: arith.DivUIOp,
    AffineBinaryOpKind.Mod: arith.RemUIOp,
    AffineBinaryOpKind.CeilDiv: arith.CeilDivUIOp,
}


def dims(n: int) -> list[AffineExpr]:
    return [AffineExpr.dimension(i) for i in range(n)]


def amap(n: int, *exprs: AffineExpr | int) -> AffineMap:
    """A map over n dims with the given results (ints are constants)."""
    return AffineMap(n, 0, tuple(AffineExpr.constant(e) if isinstance(e, int) else e for e in exprs))


class EmitError(ValueError):
    """A region op the builder cannot lower; the message is one line."""


class Emitter:
    """Appends kernel ops at an insertion block (`self.ip`); constants go to the top of `top`."""

    def __init__(self, top: Block):
        self.top = top
        self.ip = top
        self.consts: dict[tuple, SSAValue] = {}

    def emit(self, op: Operation) -> Operation:
        self.ip.add_op(op)
        return op

    def value(self, op: Operation, name: str | None = None) -> SSAValue:
        r = self.emit(op).results[0]
        if name:
            r.name_hint = name
        return r

    def const(self, value: int | float, t: Attribute | None = None) -> SSAValue:
        t = IndexType() if t is None else t
        key = (value, str(t))
        if key not in self.consts:
            attr = IntegerAttr(int(value), t) if isinstance(t, IndexType) else FloatAttr(float(value), t)
            op = arith.ConstantOp(attr)
            if isinstance(t, IndexType):
                op.result.name_hint = f"c{int(value)}" if value >= 0 else f"cm{-int(value)}"
            if self.top.first_op is None:
                self.top.add_op(op)
            else:
                self.top.insert_op_before(op, self.top.first_op)
            self.consts[key] = op.result
        return self.consts[key]

    def f32(self, value: float) -> SSAValue:
        return self.const(value, Float32Type())

    def index(self, e: AffineExpr, leaves: Sequence[SSAValue], name: str = "") -> SSAValue:
        """An affine expression over `leaves` as index arithmetic."""
        if isinstance(e, AffineConstantExpr):
            return self.const(e.value)
        if isinstance(e, AffineDimExpr):
            return leaves[e.position]
        assert isinstance(e, AffineBinaryOpExpr)
        lhs, rhs = self.index(e.lhs, leaves), self.index(e.rhs, leaves)
        return self.value(_INDEX_OPS[e.kind](lhs, rhs), name or None)

    def block_of(self, fn: Callable[[], None], args: Sequence[Attribute] = ()) -> Block:
        blk, saved = Block(arg_types=list(args)), self.ip
        self.ip = blk
        try:
            fn()
        finally:
            self.ip = saved
        return blk

    def if_(self, cond: SSAValue, then: Callable[[], None], otherwise: Callable[[], None] | None = None) -> None:
        blk = self.block_of(then)
        blk.add_op(K.YieldOp())
        other = None
        if otherwise is not None:
            eb = self.block_of(otherwise)
            eb.add_op(K.YieldOp())
            other = Region(eb)
        self.emit(K.IfOp(cond, Region(blk), other))

    def for_(self, ub: int | SSAValue, body: Callable[[SSAValue], None], unroll: bool = False,
             name: str = "i", lb: int | SSAValue = 0) -> None:  # fmt: skip
        blk = Block(arg_types=[IndexType()])
        blk.args[0].name_hint = name
        saved = self.ip
        self.ip = blk
        try:
            body(blk.args[0])
        finally:
            self.ip = saved
        blk.add_op(K.YieldOp())
        self.emit(K.ForOp(lb, ub, 1, Region(blk), unroll=0 if unroll else None))

    def reduce_for(self, ub: int, kind: loop.CombineKind, body: Callable[[SSAValue], SSAValue],
                   name: str = "i") -> SSAValue:  # fmt: skip
        """`kernel.for %i = 0 to ub step 1 unroll -> f32 { kernel.accumulate kind body(i) }`."""
        blk = Block(arg_types=[IndexType()])
        blk.args[0].name_hint = name
        saved = self.ip
        self.ip = blk
        try:
            v = body(blk.args[0])
        finally:
            self.ip = saved
        blk.add_op(K.AccumulateOp([kind], [v]))
        return self.emit(K.ForOp(0, ub, 1, Region(blk), [v.type], unroll=0)).results[0]

    def load(self, buf: SSAValue, indices: Sequence[SSAValue], *exprs: AffineExpr | int, name: str = "") -> SSAValue:
        return self.value(K.LoadOp(buf, list(indices), amap(len(indices), *exprs)), name or None)

    def store(self, v: SSAValue, buf: SSAValue, indices: Sequence[SSAValue], *exprs: AffineExpr | int) -> None:
        self.emit(K.StoreOp(v, buf, list(indices), amap(len(indices), *exprs)))

    def arith(self, cls, *operands: SSAValue, name: str = "") -> SSAValue:
        return self.value(cls(*operands), name or None)

    def clone(self, op: Operation, m: dict[SSAValue, SSAValue]) -> None:
        """Emit tile-level `op` (a load, store, affine.apply or region-free arith/math op) as
        kernel IR, operands through `m` (which gains its results)."""

        def get(v: SSAValue) -> SSAValue:
            return m.get(v, v)

        if isinstance(op, loop.LoadOp):
            new: Operation = K.LoadOp(get(op.memref), [get(i) for i in op.indices], op.map.data)
        elif isinstance(op, loop.StoreOp):
            new = K.StoreOp(get(op.value), get(op.memref), [get(i) for i in op.indices], op.map.data)
        elif isinstance(op, affine.ApplyOp):
            m[op.result] = self.index(op.map.data.results[0], [get(v) for v in op.mapOperands],
                                      op.result.name_hint or "")  # fmt: skip
            return
        elif op.dialect_name() in ("arith", "math") and not op.regions:
            new = op.clone_without_regions()
            for i, o in enumerate(op.operands):
                new.operands[i] = get(o)
        else:
            raise EmitError(f"'{op.name}' cannot be lowered from an attention region")
        self.emit(new)
        for old, r in zip(op.results, new.results):
            r.name_hint = old.name_hint
            m[old] = r

    def clone_region(self, region: Region, args: Sequence[SSAValue], outer: dict[SSAValue, SSAValue]) -> list[SSAValue]:
        """Emit a tile-level region's ops (not its yield) with its arguments bound to `args`;
        returns the yielded values."""
        m = dict(outer)
        block = region.block
        for a, v in zip(block.args, args):
            m[a] = v
        for op in block.ops:
            if op is block.last_op:
                return [m.get(v, v) for v in op.operands]
            self.clone(op, m)
        return []
