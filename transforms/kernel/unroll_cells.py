"""unroll-cells: unroll the register tile of each `tile.tile` (its `cell` axes) in the IR.

A cell axis is a virtual thread one real thread runs unrolled (dialects/tile.py). This pass
removes the cell axes from the tile: an op that does not depend on a cell axis stays as it is;
a cell-dependent op gets one copy per point of the cell axes it depends on (its results named
`<name>_c01` for cell point (0, 1)); a cell axis used as an index becomes that point's constant.
A reduce loop whose accumulator depends on cells stays ONE loop, with one result per cell point
(the per-cell accumulators, so they live in registers); a `tile.strided_for` whose start depends
on a cell axis is repeated per point; a `tile.combine` of a cell-dependent partial combines the
copies together (one collective, several values). Stages do not depend on cells (their origin
is uniform), so they are kept once.

    tile.tile (%a0 : 8 = thread, %c0 : 2 = cell) {
      %v = loop.load %x[%a0 * 2 + %c0] : memref<16xf32>
      loop.store %v, %y[%a0 * 2 + %c0] : memref<16xf32>
    }
 -> tile.tile (%a0 : 8 = thread) {
      %v_c0 = loop.load %x[%a0 * 2 + %c0_1] : memref<16xf32>     // %c0_1 = arith.constant 0
      loop.store %v_c0, %y[%a0 * 2 + %c0_1] : memref<16xf32>
      %v_c1 = loop.load %x[%a0 * 2 + %c1] : memref<16xf32>       // %c1 = arith.constant 1
      ...

Declines a tile without cell axes (left as it is). An op it cannot copy (one with regions other
than a loop) is a one-line error naming the op and the kernel.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.tile import AxisKind
from dpl.transforms.kernel.lowering import fail


def cell_suffix(key: tuple[int, ...]) -> str:
    """`_c01` for cell point (0, 1) (`_c10_3` when an index has two digits)."""
    if not key:
        return ""
    sep = "" if all(k < 10 for k in key) else "_"
    return "_c" + sep.join(map(str, key))


class _Val:
    """An old value's copies: one per point of the cell axes it depends on."""

    __slots__ = ("deps", "vals")

    def __init__(self, deps: tuple[int, ...]):
        self.deps = deps
        self.vals: dict[tuple[int, ...], SSAValue] = {}


class CellUnroller:
    """Builds the cell-free copy of one tile.tile."""

    def __init__(self, kernel: tile.KernelOp, old: tile.TileOp):
        self.name = kernel.sym_name.data
        self.old = old
        axes = old.axes
        self.extent = {i: e for i, (_, e, _) in enumerate(axes)}
        self.cells = {i for i, (_, _, k) in enumerate(axes) if k == AxisKind.CELL}
        keep = [i for i in range(len(axes)) if i not in self.cells]
        self.new = tile.TileOp([(axes[i][1], axes[i][2]) for i in keep])
        self.vmap: dict[SSAValue, _Val] = {}
        self.deps: dict[SSAValue, frozenset[int]] = {}
        self.fixed: dict[int, int] = {}
        self.consts: dict[int, SSAValue] = {}
        self.last_const: Operation | None = None
        for i, arg in zip(keep, self.new.body.block.args):
            arg.name_hint = axes[i][0].name_hint
            self.bind(axes[i][0], arg)
        self.cell_args = {axes[i][0]: i for i in self.cells}
        for arg, i in self.cell_args.items():
            self.deps[arg] = frozenset({i})

    # -- values ---------------------------------------------------------------------------------

    def d(self, v: SSAValue) -> frozenset[int]:
        return self.deps.get(v, frozenset())

    def bind(self, old: SSAValue, new: SSAValue) -> None:
        val = _Val(())
        val.vals[()] = new
        self.vmap[old] = val

    def define(self, old: SSAValue, new: SSAValue, pt: dict[int, int]) -> None:
        ds = tuple(sorted(self.d(old)))
        val = self.vmap.get(old)
        if val is None or val.deps != ds:
            val = self.vmap[old] = _Val(ds)
        key = tuple(pt[p] for p in ds)
        val.vals[key] = new
        if old.name_hint:
            new.name_hint = old.name_hint + cell_suffix(key)

    def lookup(self, old: SSAValue, pt: dict[int, int]) -> SSAValue:
        if old in self.cell_args:
            return self.const(pt[self.cell_args[old]])
        val = self.vmap.get(old)
        if val is None:
            return old  # defined outside the tile: a kernel buffer or a uniform constant
        return val.vals[tuple(pt[p] for p in val.deps)]

    def const(self, c: int) -> SSAValue:
        if c not in self.consts:
            op = arith.ConstantOp(IntegerAttr(c, IndexType()))
            last = self.last_const
            where = InsertPoint.after(last) if last else InsertPoint.at_start(self.new.body.block)
            Rewriter.insert_op(op, where)
            self.last_const = op
            self.consts[c] = op.result
        return self.consts[c]

    def points(self, deps: frozenset[int]) -> Iterator[dict[int, int]]:
        free = [p for p in sorted(deps) if p not in self.fixed]
        for combo in itertools.product(*(range(self.extent[p]) for p in free)):
            pt = dict(self.fixed)
            pt.update(zip(free, combo))
            yield pt

    @contextmanager
    def fixing(self, pt: dict[int, int]):
        saved = self.fixed
        self.fixed = dict(pt)
        try:
            yield
        finally:
            self.fixed = saved

    # -- analysis -------------------------------------------------------------------------------

    def analyze(self, block: Block) -> None:
        """The cell axes each value depends on."""
        for op in block.ops:
            if isinstance(op, tile.StridedForOp | loop.ForOp):
                head = self.d(op.start) if isinstance(op, tile.StridedForOp) else frozenset()
                self.deps[op.body.block.args[0]] = head
                self.analyze(op.body.block)
                last = op.body.block.last_op
                if isinstance(last, loop.AccumulateOp):
                    for r, v in zip(op.results, last.values):
                        self.deps[r] = self.d(v) | head
            else:
                dd = frozenset().union(*(self.d(o) for o in op.operands))
                for region in op.regions:
                    for b in region.blocks:
                        self.analyze(b)
                for r in op.results:
                    self.deps[r] = dd

    # -- copying --------------------------------------------------------------------------------

    def run(self) -> tile.TileOp:
        self.analyze(self.old.body.block)
        self.emit_block(self.old.body.block, self.new.body.block)
        return self.new

    def emit_block(self, block: Block, into: Block) -> None:
        for op in block.ops:
            self.emit_op(op, into)

    def emit_op(self, op: Operation, into: Block) -> None:
        if isinstance(op, tile.StridedForOp) and any(p not in self.fixed for p in self.d(op.start)):
            for pt in self.points(self.d(op.start)):
                with self.fixing(pt):
                    self.emit_op(op, into)
        elif isinstance(op, loop.ForOp | tile.StridedForOp):
            self.emit_loop(op, into)
        elif isinstance(op, tile.CombineOp):
            pts = list(self.points(self.d(op.value)))
            values = [self.lookup(op.value, pt) for pt in pts]
            axes = [self.lookup(a, self.fixed) for a in op.axes]
            new = tile.CombineOp(op.kind.data, values, axes, op.strategy.data)
            new.attributes |= op.attributes
            into.add_op(new)
            for pt, r in zip(pts, new.res):
                self.define(op.result, r, pt)
        elif op.regions:
            fail(self.name, op, "is not supported inside a tile kernel")
        else:
            deps = frozenset().union(*(self.d(r) for r in op.results))
            if isinstance(op, loop.StoreOp | tile.AtomicOp):
                deps = self.d(op.value).union(*(self.d(i) for i in op.indices))
            for pt in self.points(deps):
                new = op.clone(value_mapper={o: self.lookup(o, pt) for o in op.operands})
                into.add_op(new)
                for old_r, new_r in zip(op.results, new.results):
                    self.define(old_r, new_r, pt)

    def emit_loop(self, op: loop.ForOp | tile.StridedForOp, into: Block) -> None:
        """One copy of the loop; its reduce results one per cell point of their values."""
        last = op.body.block.last_op
        entries = []
        if isinstance(last, loop.AccumulateOp):
            for r, kind, v in zip(op.results, last.kinds, last.values):
                for pt in self.points(self.d(r)):
                    entries.append((r, kind.data, v, pt))
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = op.body.block.args[0].name_hint
        self.bind(op.body.block.args[0], body.args[0])
        for inner in op.body.block.ops:
            if inner is not last:
                self.emit_op(inner, body)
        if entries:
            kinds = [k for _, k, _, _ in entries]
            body.add_op(loop.AccumulateOp(kinds, [self.lookup(v, pt) for _, _, v, pt in entries]))
        else:
            body.add_op(loop.YieldOp())
        types = [r.type for r, _, _, _ in entries]
        if isinstance(op, loop.ForOp):
            new = loop.ForOp(op.kind.data, op.extent.data, body, types)
        else:
            start = self.lookup(op.start, self.fixed)
            new = tile.StridedForOp(op.kind.data, start, op.bound.data, op.step.data, body, types)
        new.attributes |= op.attributes
        into.add_op(new)
        for (r, _, _, pt), n in zip(entries, new.results):
            self.define(r, n, pt)


@dataclass(frozen=True)
class UnrollCells(ModulePass):
    """Unroll the cell axes (register tile) of each tile.tile into per-cell copies of its ops."""

    name = "unroll-cells"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, tile.KernelOp)]:
            old = kernel.tile
            if any(k == AxisKind.CELL for _, _, k in old.axes):
                Rewriter.replace_op(old, CellUnroller(kernel, old).run(), [])
