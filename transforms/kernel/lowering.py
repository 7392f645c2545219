"""What the passes of `materialize` share (transforms/kernel/materialize.py lists them).

Between `outline-kernels` and `lower-axes` a kernel is mixed IR: a `kernel.func` whose body is a
prologue (constants, the block/thread indices, guards, barrier set-up) followed by one bound
`tile.tile` (dialects/tile.py) holding the rest, tile and kernel ops side by side:

    kernel.func @k(...) grid [32, 1, 1] block [256, 1, 1] smem 0 {
      %a1 = kernel.block_id x
      %a0 = kernel.thread_id x
      tile.tile (%t : 256 = thread at %a0, %b : 32 = block at %a1) thread_id %a0 { ... }
    }

`TileLowering` is the state one pass keeps for one such kernel: the tile's axes and the values
they are bound to, an insertion point for new ops, and the helpers every lowering needs (index
arithmetic, constants, `axis == 0` guards, access maps folded over the kernel's values).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from xdsl.dialects import affine, arith, func
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import tile
from dpl.dialects.loop import CombineKind
from dpl.dialects.tile import AxisKind


class MaterializeError(ValueError):
    """A tile construct materialize cannot lower; the message is one line."""


def fail(kernel: str, op: Operation, what: str) -> NoReturn:
    raise MaterializeError(f"materialize: @{kernel}: '{op.name}' {what}")


#: Index arithmetic per affine operator (operands non-negative: unsigned division, remainder).
AFFINE_OPS = {
    AffineBinaryOpKind.Add: arith.AddiOp,
    AffineBinaryOpKind.Mul: arith.MuliOp,
    AffineBinaryOpKind.FloorDiv: arith.DivUIOp,
    AffineBinaryOpKind.Mod: arith.RemUIOp,
    AffineBinaryOpKind.CeilDiv: arith.CeilDivUIOp,
}


def affine_value(e: AffineExpr, leaves: Sequence[SSAValue], const: Callable[[int], SSAValue],
                 named: Callable[[Operation, str], SSAValue], name: str = "") -> SSAValue:  # fmt: skip
    """`e` over `leaves` as index arithmetic, constants from `const`, each op emitted by
    `named(op, name)` (`name` names the last op only); a symbol is a ValueError (index maps
    here have none)."""
    if isinstance(e, AffineConstantExpr):
        return const(e.value)
    if isinstance(e, AffineDimExpr):
        return leaves[e.position]
    if not isinstance(e, AffineBinaryOpExpr):
        raise ValueError("symbols in an index map")
    lhs, rhs = affine_value(e.lhs, leaves, const, named), affine_value(e.rhs, leaves, const, named)
    return named(AFFINE_OPS[e.kind](lhs, rhs), name)


def const_of(v: SSAValue | None) -> int | None:
    """The value of an index constant, else None."""
    if v is not None and isinstance(v.type, IndexType):
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return owner.value.value.data
    return None


def dims(n: int) -> list[AffineExpr]:
    return [AffineExpr.dimension(i) for i in range(n)]


def amap(n: int, *exprs: AffineExpr | int) -> AffineMap:
    """A map over n dims with the given results (ints are constants)."""
    results = tuple(AffineExpr.constant(e) if isinstance(e, int) else e for e in exprs)
    return AffineMap(n, 0, results)


def is_pow2(n: int) -> bool:
    return n >= 1 and (n & (n - 1)) == 0


def multiple_of(e: AffineExpr, n: int) -> bool:
    """Whether `e` is provably a multiple of `n` for every value of its dims."""
    if n == 1:
        return True
    if isinstance(e, AffineConstantExpr):
        return e.value % n == 0
    if isinstance(e, AffineBinaryOpExpr):
        if e.kind == AffineBinaryOpKind.Add:
            return multiple_of(e.lhs, n) and multiple_of(e.rhs, n)
        if e.kind == AffineBinaryOpKind.Mul:
            return multiple_of(e.lhs, n) or multiple_of(e.rhs, n)
    return False


def replace_uses(old: SSAValue, new: SSAValue) -> None:
    """Every use of `old` becomes `new` (unlike `replace_all_uses_with`, names stay as they are:
    the generated CUDA takes its variable names from them)."""
    for use in tuple(old.uses):
        use.operation.operands[use.index] = new


def bound_tiles(module: ModuleOp) -> Iterator[tuple[K.KernelFuncOp, tile.TileOp]]:
    """Each kernel.func holding a bound tile.tile, with that tile."""
    for kfunc in [op for op in module.body.block.ops if isinstance(op, K.KernelFuncOp)]:
        tiles = [op for op in kfunc.walk() if isinstance(op, tile.TileOp)]
        if tiles:
            yield kfunc, tiles[0]


def main_funcs(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in module.body.block.ops if isinstance(f, func.FuncOp)]


def drop_dead_arith(kfunc: K.KernelFuncOp) -> None:
    """Erase arith/math ops whose results nothing uses (index helpers folded into maps)."""
    changed = True
    while changed:
        changed = False
        for op in list(kfunc.walk()):
            if (
                op.dialect_name() in ("arith", "math")
                and not op.regions
                and all(not r.uses for r in op.results)
            ):
                Rewriter.erase_op(op)
                changed = True


class Emitter:
    """Emits ops at an insertion point of a kernel.func; constants go to the top of its body."""

    def __init__(self, kfunc: K.KernelFuncOp):
        self.func = kfunc
        self.name = kfunc.sym_name.data
        self.ip = InsertPoint.at_end(kfunc.body.block)
        self.consts: dict[tuple, SSAValue] = {}
        self.last_const: Operation | None = None

    def fail(self, op: Operation, what: str) -> NoReturn:
        fail(self.name, op, what)

    # -- placement ------------------------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.ip)
        return op

    @contextmanager
    def at(self, ip: InsertPoint | Block):
        saved = self.ip
        self.ip = InsertPoint.at_end(ip) if isinstance(ip, Block) else ip
        try:
            yield
        finally:
            self.ip = saved

    # -- values ---------------------------------------------------------------------------------

    def const(self, value: int | float, t: Attribute | None = None) -> SSAValue:
        t = IndexType() if t is None else t
        key = (value, str(t))
        if key not in self.consts:
            if isinstance(t, IndexType | IntegerType):
                op = arith.ConstantOp(IntegerAttr(int(value), t))
            else:
                op = arith.ConstantOp(FloatAttr(float(value), t))
            if self.last_const is None:
                Rewriter.insert_op(op, InsertPoint.at_start(self.func.body.block))
            else:
                Rewriter.insert_op(op, InsertPoint.after(self.last_const))
            self.last_const = op
            self.consts[key] = op.result
        return self.consts[key]

    def f32(self, value: float) -> SSAValue:
        return self.const(value, Float32Type())

    def named(self, op: Operation, name: str = "") -> SSAValue:
        r = self.emit(op).results[0]
        r.name_hint = name or None
        return r

    def divui(self, a: SSAValue, n: int, name: str = "") -> SSAValue:
        if n == 1:
            return a
        return self.named(arith.DivUIOp(a, self.const(n)), name)

    def remui(self, a: SSAValue, n: int, name: str = "") -> SSAValue:
        return self.named(arith.RemUIOp(a, self.const(n)), name)

    def cmp(self, a: SSAValue, b: SSAValue | int, pred: str, name: str = "") -> SSAValue:
        if isinstance(b, int):
            b = self.const(b)
        return self.named(arith.CmpiOp(a, b, pred), name)

    # -- index maps -----------------------------------------------------------------------------

    def expr_value(self, e: AffineExpr, leaves: Sequence[SSAValue], name: str = "") -> SSAValue:
        """An affine expression over `leaves` as index arithmetic (non-negative operands); `name`
        names its last op."""
        try:
            return affine_value(e, leaves, self.const, self.named, name)
        except ValueError as err:  # a symbol
            raise MaterializeError(f"materialize: @{self.name}: {err}") from None

    # -- structure (for lowerings that write a kernel's body themselves) --------------------------

    def region_of(self, fn: Callable[[], None]) -> Region:
        """The ops `fn` emits, as a region ending in `kernel.yield`."""
        block = Block()
        with self.at(block):
            fn()
        block.add_op(K.YieldOp())
        return Region(block)

    def if_(
        self, cond: SSAValue, then: Callable[[], None], otherwise: Callable[[], None] | None = None
    ) -> None:
        then_region = self.region_of(then)
        self.emit(K.IfOp(cond, then_region, self.region_of(otherwise) if otherwise else None))

    def for_(self, ub: int | SSAValue, body: Callable[[SSAValue], None], unroll: bool = False,
             name: str = "i") -> None:  # fmt: skip
        """`kernel.for %name = 0 to ub step 1 [unroll] { body(%name) }`."""
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = name
        with self.at(block):
            body(block.args[0])
        block.add_op(K.YieldOp())
        self.emit(K.ForOp(0, ub, 1, Region(block), unroll=0 if unroll else None))

    def reduce_for(self, ub: int, kind: CombineKind, body: Callable[[SSAValue], SSAValue],
                   name: str = "i") -> SSAValue:  # fmt: skip
        """`kernel.for %name = 0 to ub step 1 unroll -> f32 { kernel.accumulate kind
        body(%name) }`."""
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = name
        with self.at(block):
            v = body(block.args[0])
        block.add_op(K.AccumulateOp([kind], [v]))
        return self.emit(K.ForOp(0, ub, 1, Region(block), [v.type], unroll=0)).results[0]

    def load(
        self, buf: SSAValue, indices: Sequence[SSAValue], *exprs: AffineExpr | int, name: str = ""
    ) -> SSAValue:
        """`kernel.load buf[exprs]`, the exprs over `indices` (ints: constants)."""
        return self.named(K.LoadOp(buf, list(indices), amap(len(indices), *exprs)), name)

    def store(
        self, v: SSAValue, buf: SSAValue, indices: Sequence[SSAValue], *exprs: AffineExpr | int
    ) -> None:
        """`kernel.store v, buf[exprs]`, the exprs over `indices` (ints: constants)."""
        self.emit(K.StoreOp(v, buf, list(indices), amap(len(indices), *exprs)))


class TileLowering(Emitter):
    """One pass's view of one bound tile: its axes, the indices they are bound to, and the
    helpers that need them (guards, access maps over kernel values)."""

    def __init__(self, kfunc: K.KernelFuncOp, tile_op: tile.TileOp):
        super().__init__(kfunc)
        self.tile = tile_op
        self.axes = tile_op.axes
        self.extent = {i: e for i, (_, e, _) in enumerate(self.axes)}
        self.threads = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.THREAD]
        self.blocks = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.BLOCK]
        self.big = [p for p in self.threads if self.extent[p] > 1]
        self.T = tile_op.count(AxisKind.THREAD)
        self.bound = dict(zip(tile_op.body.block.args, tile_op.bindings))
        self.axis_val = dict(enumerate(tile_op.bindings))
        self.tid = tile_op.thread_index
        self.ip = InsertPoint.at_end(tile_op.body.block)
        self.guards: dict[tuple, SSAValue] = {}

    def holder(self) -> Operation:
        """The op of the kernel.func's body that holds the tile (the tile, or the guard around
        it): the prologue is everything before it."""
        op: Operation = self.tile
        while op.parent_op() is not self.func:
            parent = op.parent_op()
            assert parent is not None
            op = parent
        return op

    def prologue(self) -> list[Operation]:
        holder = self.holder()
        out = []
        for op in self.func.body.block.ops:
            if op is holder:
                break
            out.append(op)
        return out

    def prologue_end(self) -> InsertPoint:
        return InsertPoint.before(self.holder())

    def after_indices(self) -> InsertPoint:
        """Right after the block/thread indices the tile is bound to."""
        values = {*self.tile.bindings, *([self.tid] if self.tid is not None else [])}
        last = None
        for op in self.prologue():
            if not isinstance(op, arith.ConstantOp) and any(r in values for r in op.results):
                last = op
        if last is None:
            return InsertPoint.at_start(self.func.body.block)
        return InsertPoint.after(last)

    def value(self, v: SSAValue) -> SSAValue:
        """What `v` is in kernel terms: an axis of the tile is the index it is bound to."""
        return self.bound.get(v, v)

    def guard(self, axes: tuple[int, ...]) -> SSAValue:
        """`axis == 0` for each of `axes`, and-ed, computed once at the end of the prologue
        (`is_t0` when they are all the tile's thread axes: the flat thread index is 0)."""
        if axes in self.guards:
            return self.guards[axes]
        if list(axes) == self.big:
            assert self.tid is not None
            cond = self.find_is_zero(self.tid)
            if cond is None:
                with self.at(self.prologue_end()):
                    cond = self.cmp(self.tid, 0, "eq", "is_t0")
        else:
            with self.at(self.prologue_end()):
                cond = None
                for p in axes:
                    c = self.cmp(self.axis_val[p], 0, "eq")
                    cond = c if cond is None else self.emit(arith.AndIOp(cond, c)).results[0]
                assert cond is not None
                cond.name_hint = "is_" + "_".join(
                    (self.axes[p][0].name_hint or f"t{p}") + "0" for p in axes
                )
        self.guards[axes] = cond
        return cond

    def find_is_zero(self, v: SSAValue) -> SSAValue | None:
        """An `arith.cmpi eq, v, 0` of the prologue (one an earlier pass made), if any."""
        for op in self.prologue():
            if (
                isinstance(op, arith.CmpiOp)
                and op.predicate.value.data == 0
                and op.lhs is v
                and const_of(op.rhs) == 0
            ):
                return op.result
        return None

    def index_expr(
        self, v: SSAValue, leaves: list[SSAValue], subst: dict[SSAValue, SSAValue] | None = None
    ) -> AffineExpr:
        """Index `v` as an expression over kernel values (`leaves`, extended as needed): the
        `affine.apply`s it is computed by are folded in, constants inlined, axes replaced by
        their indices, and values in `subst` by their substitutes."""
        if subst and v in subst:
            new = subst[v]
        else:
            owner = v.owner
            if isinstance(owner, affine.ApplyOp):
                amap = owner.map.data
                subs = [self.index_expr(o, leaves, subst) for o in owner.mapOperands]
                return amap.results[0].replace_dims_and_symbols(
                    subs[: amap.num_dims], subs[amap.num_dims :]
                )
            new = self.value(v)
        c = const_of(new)
        if c is not None:
            return AffineExpr.constant(c)
        for i, leaf in enumerate(leaves):
            if leaf is new:
                return AffineExpr.dimension(i)
        leaves.append(new)
        return AffineExpr.dimension(len(leaves) - 1)

    def access(
        self,
        amap: AffineMap,
        indices: Sequence[SSAValue],
        subst: dict[SSAValue, SSAValue] | None = None,
    ) -> tuple[AffineMap, list[SSAValue]]:
        """`amap` over `indices` as a map over kernel values (see `index_expr`)."""
        leaves: list[SSAValue] = []
        reps = [self.index_expr(o, leaves, subst) for o in indices]
        new = amap.replace_dims_and_symbols(
            reps[: amap.num_dims], reps[amap.num_dims :], len(leaves), 0
        )
        return new, leaves

    def enclosing_loops(self, op: Operation) -> list[Operation]:
        """The loops around `op` inside the tile, outermost first."""
        loops = []
        parent = op.parent_op()
        while parent is not None and parent is not self.tile:
            if parent.name in ("loop.for", "kernel.for", "tile.strided_for"):
                loops.append(parent)
            parent = parent.parent_op()
        return loops[::-1]
