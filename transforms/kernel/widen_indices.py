"""widen-indices: mark each `kernel.func` whose index arithmetic can pass 2^31 as 64-bit.

The CUDA printer prints `index` values as 32-bit `int` unless the kernel says `index_bits 64`,
then as `long long`. This pass decides per kernel, from its launch extents and constants, by
interval arithmetic over every value the printed code computes in `index`:

- `kernel.thread_id`/`block_id`/`block_dim`/`grid_dim`/`lane_id`/`warp_id` range over the launch
  extents, constants are themselves, `arith` ops on `index` combine their operands' ranges;
- a `kernel.for` induction variable ranges from its lower bound to its upper bound - 1, and the
  loop's increment computes up to `ub - 1 + step` (the value that ends the loop);
- every access (`kernel.load`, `store`, `atomic`, `cp_async`, `tma_load`, the mbarrier ops)
  evaluates each subexpression of its index map and the row-major flat offset the printer forms
  from them (`i * 2048 + j`, each partial sum included);
- an index read from data (`arith.index_cast` of an integer) is taken to be a position along
  one dimension of a buffer of the kernel (gather, embedding), as PyTorch requires of valid
  indices; any other index value of unknown range (a scalar argument) counts as unbounded.

A kernel where some such value can reach 2^31 - 1 in magnitude, or that holds a buffer or
launches a grid of more elements than that (what the CUDA printer refuses at 32 bits: the first
2^31 of 2^31 + 1 floats as float4s reach index 2^31 - 1 only), gets `index_bits 64`; the others
are declined (logged to `dpl.passes`) and keep 32-bit math, which is faster. Run it last, after
every pass that changes a kernel's launch or its index maps.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntAttr, IntegerAttr, IntegerType, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.passes import ModulePass

from dpl.dialects import kernel as K

LOG = logging.getLogger("dpl.passes")

INT32_MAX = 2**31 - 1
UNBOUNDED = (-(2**63), 2**63 - 1)

Range = tuple[int, int]


def _add(a: Range, b: Range) -> Range:
    return a[0] + b[0], a[1] + b[1]


def _mul(a: Range, b: Range) -> Range:
    corners = [x * y for x in a for y in b]
    return min(corners), max(corners)


def _div(a: Range, b: Range) -> Range:
    """Integer division (floor or truncating): by a positive divisor the quotient's range comes
    from the corners; otherwise it is no larger in magnitude than the dividend."""
    if b[0] > 0:
        corners = [x // y for x in a for y in b] + [int(x / y) for x in a for y in b]
        return min(corners), max(corners)
    m = max(abs(a[0]), abs(a[1]))
    return -m, m


def _rem(a: Range, b: Range) -> Range:
    m = max(abs(b[0]), abs(b[1])) - 1
    if a[0] >= 0 and b[0] > 0:
        return 0, min(a[1], m)
    return -m, m


class IndexRanges:
    """The range of every `index` value of one `kernel.func`, and the largest magnitude any
    value the printed code computes in `index` can reach (`peak`)."""

    def __init__(self, func: K.KernelFuncOp):
        self.func = func
        self.ranges: dict[SSAValue, Range] = {}
        self.peak = 0
        self.data_extent = max((d for t in self._buffer_types() for d in t.get_shape()), default=1)
        for op in func.body.walk():
            self.visit(op)

    def _buffer_types(self) -> Iterator[MemRefType]:
        for arg in self.func.args:
            if isinstance(arg.type, MemRefType):
                yield arg.type
        for op in self.func.body.walk():
            if isinstance(op, K.SmemOp | K.AllocaOp) and isinstance(op.result.type, MemRefType):
                yield op.result.type

    # -- ranges ---------------------------------------------------------------------------------

    def note(self, r: Range) -> Range:
        self.peak = max(self.peak, abs(r[0]), abs(r[1]))
        return r

    def of(self, value: SSAValue | int) -> Range:
        if isinstance(value, int):
            return value, value
        return self.ranges.get(value, UNBOUNDED)

    def set(self, value: SSAValue, r: Range) -> None:
        if isinstance(value.type, IndexType):
            self.ranges[value] = self.note(r)

    def visit(self, op: Operation) -> None:
        for memref, amap, indices in accesses(op):
            self.access(memref, amap, indices)
        if isinstance(op, K.ForOp):
            self.loop(op)
            return
        if len(op.results) != 1 or not isinstance(op.results[0].type, IndexType):
            for r in op.results:
                self.set(r, UNBOUNDED)
            return
        self.set(op.results[0], self.result(op))

    def result(self, op: Operation) -> Range:
        launch = {"grid": self.func.grid_extents, "block": self.func.block_extents}
        dims = "xyz"
        if isinstance(op, K.ThreadIdOp):
            return 0, launch["block"][dims.index(op.dim.data.value)] - 1
        if isinstance(op, K.BlockIdOp):
            return 0, launch["grid"][dims.index(op.dim.data.value)] - 1
        if isinstance(op, K.BlockDimOp):
            n = launch["block"][dims.index(op.dim.data.value)]
            return n, n
        if isinstance(op, K.GridDimOp):
            n = launch["grid"][dims.index(op.dim.data.value)]
            return n, n
        if isinstance(op, K.LaneIdOp):
            return 0, 31
        if isinstance(op, K.WarpIdOp):
            return 0, (self.func.num_threads - 1) // 32
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data, op.value.value.data
        if op.name in ("arith.index_cast", "arith.index_castui"):
            if isinstance(op.operands[0].type, IntegerType):
                return -self.data_extent, self.data_extent
            return self.of(op.operands[0])
        a = [self.of(v) for v in op.operands]
        match op.name:
            case "arith.addi":
                return _add(a[0], a[1])
            case "arith.subi":
                return _add(a[0], (-a[1][1], -a[1][0]))
            case "arith.muli":
                return _mul(a[0], a[1])
            case "arith.divui" | "arith.divsi" | "arith.floordivsi" | "arith.ceildivsi":
                return _div(a[0], a[1])
            case "arith.ceildivui":  # printed (a + b - 1) / b
                self.note(_add(a[0], a[1]))
                return _div(a[0], a[1])
            case "arith.remui" | "arith.remsi":
                return _rem(a[0], a[1])
            case "arith.maxsi" | "arith.maxui" | "arith.minsi" | "arith.minui":
                return min(a[0][0], a[1][0]), max(a[0][1], a[1][1])
            case "arith.select":
                return min(a[1][0], a[2][0]), max(a[1][1], a[2][1])
        return UNBOUNDED

    def loop(self, op: K.ForOp) -> None:
        lb, ub, step = (self.of(op.bound(k)) for k in ("lb", "ub", "step"))
        self.note(lb)
        self.note((0, ub[1] - 1 + step[1]))  # the increment that ends the loop
        self.set(op.iv, (lb[0], max(lb[1], ub[1] - 1)))
        for r in op.res:
            self.set(r, UNBOUNDED)

    def expr(self, e: AffineExpr, operands: Sequence[Range], num_dims: int) -> Range:
        if isinstance(e, AffineConstantExpr):
            return self.note((e.value, e.value))
        if isinstance(e, AffineDimExpr):
            return operands[e.position]
        if isinstance(e, AffineSymExpr):
            return operands[num_dims + e.position]
        assert isinstance(e, AffineBinaryOpExpr)
        lhs = self.expr(e.lhs, operands, num_dims)
        rhs = self.expr(e.rhs, operands, num_dims)
        if e.kind == AffineBinaryOpKind.Add:
            return self.note(_add(lhs, rhs))
        if e.kind == AffineBinaryOpKind.Mul:
            return self.note(_mul(lhs, rhs))
        if e.kind == AffineBinaryOpKind.Mod:
            return self.note(_rem(lhs, rhs))
        if e.kind == AffineBinaryOpKind.CeilDiv:  # printed (a + b - 1) / b
            self.note(_add(lhs, rhs))
        return self.note(_div(lhs, rhs))

    def access(self, memref: SSAValue, amap: AffineMap, indices: Sequence[SSAValue]) -> None:
        """Each index expression and the printer's row-major sum of them times the strides."""
        t = memref.type
        if not isinstance(t, MemRefType):
            return
        operands = [self.of(v) for v in indices]
        shape = t.get_shape()
        total: Range = (0, 0)
        for i, e in enumerate(amap.results):
            stride = 1
            for d in shape[i + 1 :]:
                stride *= d
            total = self.note(_add(total, self.note(_mul(self.expr(e, operands, amap.num_dims), (stride, stride)))))


def accesses(op: Operation) -> Iterator[tuple[SSAValue, AffineMap, Sequence[SSAValue]]]:
    """(buffer, index map, index operands) of each access `op` makes: the map properties
    `map`, `src_map`, `dst_map`, `barrier_map` with their operands `memref`/`src`/..., `indices`/
    `src_indices`/..."""
    for name, attr in op.properties.items():
        if not (isinstance(attr, AffineMapAttr) and name.endswith("map")):
            continue
        prefix = name[: -len("map")]
        memref = getattr(op, prefix.rstrip("_") or "memref", None)
        indices = getattr(op, prefix + "indices", None)
        if isinstance(memref, SSAValue) and indices is not None:
            yield memref, attr.data, tuple(indices)


def needs_64_bit(func: K.KernelFuncOp) -> tuple[bool, int]:
    """Whether some index value of `func` can pass 2^31 - 1, or it holds a buffer or launches a
    grid of more elements than that (the CUDA printer's own check), and the largest magnitude
    found."""
    peak = IndexRanges(func).peak
    return peak > INT32_MAX or max(n for n, _ in func.element_counts()) > INT32_MAX, peak


class WidenIndices(ModulePass):
    """Mark each kernel.func whose index values can pass 2^31 - 1 as `index_bits 64`."""

    name = "widen-indices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            wide, peak = needs_64_bit(func)
            name = func.sym_name.data
            if not wide:
                LOG.info("widen-indices: @%s: declined: indices stay within %d (32-bit)", name, peak)
                continue
            func.index_bits = IntAttr(64)
            LOG.info("widen-indices: @%s: indices reach %d, past 2^31 - 1: 64-bit", name, peak)
