"""hold-rows: an input row that several thread-strided loops read is loaded into registers once.

A row kernel gives each block, warp or lane group a row and reads it in one strided loop per
pass: softmax reads x three times (max, sum of exp, the output), LayerNorm twice or three times.
Unheld, each pass reads it from global memory again (the later reads hit L1 or L2 only as long
as the row stays there), or stage-inputs stages it in shared memory. On the H100, softmax over
rows of 733-1097 a warp each ran 0.68-0.80x eager unheld (bench/results/h100-2026-11-24-session9.md),
eager's kernel holding the row in registers. The row pipeline runs hold-rows before stage-inputs,
so a row held is never staged: on the H200 (2026-11-29, session 17, rows_ab.py) holding rather
than staging a block's row ran softmax 102208 x 1117 358 -> 243 us (with 128 lanes), 32768 x 2999
264 -> 193, LayerNorm 65536 x 1500 246 -> 196, var 40000 x 3000 144 -> 110, and softmax
4096 x 32000 (1024 lanes, 32 trips) 437 -> 325; the staged row's fill loads a lane's elements
one latency after another where its trips do not divide evenly, while a held row's loads issue
together.

For the top-level `tile.strided_for %r = %lane to N step S` loops of a tile whose start is a
thread axis of extent S (each thread has the elements lane, lane + S, ...) and whose trips
T = ceil(N / S) are at most `max-trips`, an input read by two or more of them at the same index
with `%r` as one entry (a dim of size N: the last for a row, a middle one for a column) is held
(masked as the loads were along other dims, rows rounded up past the buffer; along the held dim
too where the trips pass N):

    %x_reg = tile.hold %x[%row, %lane] step 32 : memref<R x 733 x f32> -> memref<23xf32>

A norm over the channels of (batch, channels, h, w) reads a column, `%x[%b, %r, %h, %w]` with
threads along w: where a thread passes over it in at least `column-trips` trips, it is held
along dim 1 (`tile.hold %x[%b, %lane, %h, %w] step 8 at 1`), so the output loop does not read
x again. Such a block's columns are tens of KB: unheld, RMSNorm over the 256 channels of
32 x 256 x 56 x 56 read 138 MB from DRAM for x's 103 (H200, session 20, ncu). Holding ran it
80.6 -> 61.4 us and 256 x 239 x 4 x 64 (30 trips) 51.5 -> 39.2. Columns of fewer trips
(8-16; 17 sweep programs, `bench/results/session20/call7-holdab20.txt`) gained 1.03x in geomean
but not everywhere: 13 ran up to 1.30x faster, 4 slower (0.77-0.93x: softmax over dim 2 of
131 x 29 x 128 x 109, 16 trips, 152 -> 183 us). Without a model of which lose, they keep their
loads; `column-trips` (24) lies between the groups measured (16 and 30).

A column longer than `long-column` (256) elements, which blockify-launch spreads over up to 32
lanes (blocks of up to 1024 threads), is held from `long-column-trips` (16): read again it would
not stay in the cache. H200 (2026-11-30, session 27, bench/results/session27/tools/ab27x.py,
not held -> held from 16 trips, us): softmax over dim 1 of 853 x 301 x 128 (16 lanes, 19 trips)
119 -> 73, over dim 0 of 691 x 37824 (32 lanes, 22 trips) 122 -> 88; 44 programs 1.30x, none
slower than 0.97x.

placed before the first of those loops, and each loop reading it becomes a counted loop whose
element index is the thread's trip:

    %acc = tile.strided_for reduce %r = %lane to 733 step 32 -> f32 {
      %v = loop.load %x[%row, %r] ...
 -> %acc = loop.for reduce %j < 23 -> f32 {
      %r = affine.apply (%lane + %j * 32)
      %v = loop.load %x_reg[%j] ...
    } {tile.unroll}

so after unrolling each held element is one register. Where S does not divide N the loop runs
T whole trips: the accesses at `%r` past N are masked (`{tile.masked}` on that dim: reads give 0,
writes are dropped) and a reduce loop folds the combiner's identity there
(`arith.select %r < N`). The held inputs' trips add up to at most `registers` per thread (most
reads first). Where a row has fewer lanes than a warp, a free loop that vectorize-access can make
float4 with a float4 for every lane (rows of whole 4-element groups, at least 4 a lane) keeps its
global reads, so its loads and stores stay float4, and does not count among the two: a warp's
scalar access there touches the lines of several rows. H100 (session 9): LayerNorm over rows of
32 on 8 lanes 0.0072 ms so, 0.0081 with its output loop held and scalar; softmax over rows of 8
on 8 lanes (a float4 for 2 of the 8 lanes) 0.0030 so, 0.0025 held; on rows of a whole warp
holding that loop too was as fast or faster (softmax 1283 x 256 0.0031 -> 0.0027, LayerNorm
256x512 x 256 0.1000 -> 0.0957).

Declines (logged to `dpl.passes`) a tile with no two such loops reading one input, an input also
read elsewhere or at another index, a loop whose `%r` is used other than as the index of a dim
of size N when it would be padded, rows of more than `max-trips` trips, and columns along a
middle dim of fewer than `column-trips` (`long-column-trips` past `long-column` elements).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.types import element_bytes
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tunable import tunable

WARP = 32

_IDENTITY = {
    loop.CombineKind.ADD: 0.0,
    loop.CombineKind.MUL: 1.0,
    loop.CombineKind.MAX: float("-inf"),
    loop.CombineKind.MIN: float("inf"),
}


def _thread_extents(t: tile.TileOp) -> dict[SSAValue, int]:
    return {arg: extent for arg, extent, kind in t.axes if kind == tile.AxisKind.THREAD}


def _row_loops(t: tile.TileOp, max_trips: int) -> dict[tuple, list[tile.StridedForOp]]:
    """The tile's top-level strided loops over a thread axis of extent = step, by (start, bound,
    step), of at most `max_trips` trips and holding no loop."""
    threads = _thread_extents(t)
    groups: dict[tuple, list[tile.StridedForOp]] = defaultdict(list)
    for op in t.body.block.ops:
        if not isinstance(op, tile.StridedForOp) or threads.get(op.start) != op.step.data:
            continue
        if -(-op.bound.data // op.step.data) > max_trips:
            continue
        if any(isinstance(o, (loop.ForOp, tile.StridedForOp)) for o in op.body.walk()):
            continue
        groups[(op.start, op.bound.data, op.step.data)].append(op)
    return groups


def _index_dim(access: loop.LoadOp | loop.StoreOp, iv: SSAValue) -> int | None:
    """The dim `access` indexes at exactly `iv` where no other index uses `iv`, else None."""
    exprs = access.map.data.results
    at = [d for d, e in enumerate(exprs) if _uses(e, access.indices, iv)]
    if len(at) != 1:
        return None
    e = exprs[at[0]]
    return at[0] if isinstance(e, AffineDimExpr) and access.indices[e.position] is iv else None


def _row_dim(load: loop.LoadOp, iv: SSAValue, bound: int) -> int | None:
    """The dim (of size `bound`, not masked) that `load` reads at exactly `iv`, where no other
    index uses `iv`; else None. The last dim for a row; a middle one for a column (the channels
    of (batch, channels, h, w))."""
    t = load.memref.type
    assert isinstance(t, MemRefType)
    d = _index_dim(load, iv)
    if d is None or t.get_shape()[d] != bound or d in tile.masked_dims(load):
        return None
    return d


def _last_index_is(access: loop.LoadOp | loop.StoreOp, iv: SSAValue) -> bool:
    """Whether `access`'s last index is exactly `iv` and no other index uses it."""
    return _index_dim(access, iv) == len(access.map.data.results) - 1


def _uses(e: AffineExpr, operands, iv: SSAValue) -> bool:
    """Whether affine expression `e` over `operands` reads `iv`."""
    return any(operands[d] is iv for d in e.used_dims())


def _key(load: loop.LoadOp, iv: SSAValue) -> tuple:
    """What a held load's index is apart from the loop's variable (the same for all loads held)."""
    return (str(load.map.data), tuple(None if v is iv else v for v in load.indices), tuple(tile.masked_dims(load)))


def _paddable(op: tile.StridedForOp, n: int) -> bool:
    """Whether every use of `op`'s variable is the index of a dim of size `n`, exactly (so
    masking that dim drops the trips past `n`)."""
    for use in op.iv.uses:
        user = use.operation
        if not isinstance(user, (loop.LoadOp, loop.StoreOp)):
            return False
        t = user.memref.type
        assert isinstance(t, MemRefType)
        for d, e in enumerate(user.map.data.results):
            if not _uses(e, user.indices, op.iv):
                continue
            if not (isinstance(e, AffineDimExpr) and t.get_shape()[d] == n):
                return False
    return True


def _float4_output(f: tile.StridedForOp) -> bool:
    """Whether `f` is a free loop over a row narrower than a warp (step < 32 lanes: a warp's
    scalar access touches several rows' lines) that vectorize-access can make float4 with a
    float4 for every lane: it keeps its global reads, float4s with its stores."""
    return float4_row_loop(f, f.bound.data, f.step.data)


def float4_row_loop(f: tile.StridedForOp | loop.ForOp, bound: int, step: int) -> bool:
    """Whether free loop `f` over a row of `bound` elements, taken by `step` lanes (fewer than a
    warp), becomes float4 with a float4 for every lane in vectorize-access: a whole number of
    4-element groups per row, at least one a lane, each access reading or writing `[..., %r]`
    of an f32 buffer whose rows are whole groups. (blockify-launch asks it of a packed row's
    loop before striding it over `step` lanes.)"""
    if f.is_reduce or step >= WARP or bound % 4 or bound % step or bound < 4 * step:
        return False
    for o in f.body.walk():
        if isinstance(o, (loop.LoadOp, loop.StoreOp)) and f.iv in o.indices:
            t = o.memref.type
            assert isinstance(t, MemRefType)
            if not (isinstance(t.element_type, Float32Type) and t.get_shape()[-1] % 4 == 0
                    and _last_index_is(o, f.iv)):  # fmt: skip
                return False
    return True


def _defined_before(v: SSAValue, op: Operation) -> bool:
    owner = v.owner
    return not (isinstance(owner, Operation) and op.is_ancestor(owner))


@dataclass(frozen=True)
class HoldRows(ModulePass):
    """Load a row read by several thread-strided loops into registers once (`tile.hold`)."""

    name = "hold-rows"

    max_trips: int = tunable(32, (0, 8, 16, 24, 32))
    """The most elements a thread holds of one row (0: hold nothing)."""
    registers: int = 32
    """The most 32-bit registers a thread holds of all its held rows together (an f64 element
    takes two)."""
    column_trips: int = 24
    """The fewest trips a thread makes over a column along a middle dim (not the last) for it
    to be held (module doc)."""
    long_column: int = 256
    """Columns longer than this are held from `long-column-trips` instead (module doc)."""
    long_column_trips: int = 16
    """The fewest trips over a column longer than `long-column` for it to be held."""

    def __post_init__(self):
        check_option(self, "max_trips", 0)
        check_option(self, "registers", 1)
        check_option(self, "column_trips", 1)
        check_option(self, "long_column", 1)
        check_option(self, "long_column_trips", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, tile.KernelOp)]:
            if self.max_trips:
                self.hold_kernel(kernel)

    def hold_kernel(self, kernel: tile.KernelOp) -> None:
        t = kernel.tile
        name = kernel.sym_name.data
        for (start, bound, step), loops in _row_loops(t, self.max_trips).items():
            trips = -(-bound // step)
            padded = trips * step != bound
            budget = self.registers
            held: list[tuple[SSAValue, list[loop.LoadOp], int]] = []
            loads_of = defaultdict(list)
            for o in t.walk():
                if isinstance(o, loop.LoadOp):
                    loads_of[o.memref].append(o)
            keep = {f for f in loops if _float4_output(f)}
            for x in sorted(kernel.ins, key=lambda v: -len(loads_of[v])):
                if not {ld.parent_op() for ld in loads_of[x]} <= set(loops):
                    continue
                loads = [ld for ld in loads_of[x] if ld.parent_op() not in keep]
                owners = {ld.parent_op() for ld in loads}
                if len(owners) < 2:
                    continue
                dims = {_row_dim(ld, ld.parent_op().iv, bound) for ld in loads}
                if None in dims:
                    LOG.info("hold-rows: @%s: %s is read at an index other than the row's", name, x.name_hint)
                    continue
                rank = len(loads[0].map.data.results)
                fewest = self.long_column_trips if bound > self.long_column else self.column_trips
                if dims != {rank - 1} and trips < fewest:
                    LOG.info("hold-rows: @%s: %s is a column of %d trips, fewer than %d",
                             name, x.name_hint, trips, fewest)  # fmt: skip
                    continue
                if len({_key(ld, ld.parent_op().iv) for ld in loads}) != 1:
                    LOG.info("hold-rows: @%s: %s is read at different rows", name, x.name_hint)
                    continue
                first = min(owners, key=lambda f: loops.index(f))
                if not all(_defined_before(v, first) for v in loads[0].indices if v is not loads[0].parent_op().iv):
                    continue
                assert isinstance(x.type, MemRefType)
                cost = trips * max(1, element_bytes(x.type.element_type) // 4)  # an f64 element: two registers
                if cost > budget:
                    LOG.info("hold-rows: @%s: %s not held (%d registers left)", name, x.name_hint, budget)
                    continue
                budget -= cost
                held.append((x, loads, dims.pop()))
            if not held:
                continue
            changed = sorted({ld.parent_op() for _, ls, _ in held for ld in ls}, key=loops.index)
            if padded and not all(_paddable(f, bound) for f in changed):
                LOG.info("hold-rows: @%s: a loop uses its row index other than as an index", name)
                continue
            if padded and not all(isinstance(v.type, AnyFloat) for f in changed for v in f.res):
                LOG.info("hold-rows: @%s: a padded loop reduces integers", name)
                continue
            regs: dict[loop.LoadOp, SSAValue] = {}
            for x, loads, dim in held:
                first = min({ld.parent_op() for ld in loads}, key=loops.index)  # (its indices are defined there)
                iv = loads[0].parent_op().iv
                indices = [start if v is iv else v for v in loads[0].indices]
                h = tile.HoldOp(x, loads[0].map.data, indices, step, trips, dim=dim)
                # rows rounded past the buffer stay masked
                masked = sorted({*tile.masked_dims(loads[0]), *([dim] if padded else [])})
                if masked:
                    tile.mark_masked(h, masked)
                h.result.name_hint = f"{x.name_hint or 'x'}_reg"
                Rewriter.insert_op(h, InsertPoint.before(first))
                for ld in loads:
                    regs[ld] = h.result
            for f in changed:
                self.count_loop(f, start, bound, step, trips, regs, padded)
            LOG.info(
                "hold-rows: @%s: %s held in %d registers a thread; %d loops counted",
                name, ", ".join(x.name_hint or "?" for x, _, _ in held), trips, len(changed),
            )  # fmt: skip

    @staticmethod
    def count_loop(f: tile.StridedForOp, start: SSAValue, bound: int, step: int, trips: int,
                   regs: dict[loop.LoadOp, SSAValue], padded: bool) -> None:  # fmt: skip
        """`f` as a `loop.for` of `trips` trips whose held loads read their register."""
        body = Block(arg_types=[IndexType()])
        j = body.args[0]
        j.name_hint = "j"
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        r = affine.ApplyOp([start, j], AffineMapAttr(AffineMap(2, 0, (d0 + d1 * step,))))
        r.result.name_hint = f.iv.name_hint
        body.add_op(r)
        f.iv.replace_all_uses_with(r.result)
        for o in list(f.body.block.ops):
            o.detach()
            body.add_op(o)
        for o in list(body.ops):
            if isinstance(o, loop.LoadOp) and o in regs:
                new = loop.LoadOp(regs[o], [j], AffineMap(1, 0, (d0,)))
                Rewriter.replace_op(o, new)
                new.result.name_hint = o.result.name_hint
            elif padded and isinstance(o, (loop.LoadOp, loop.StoreOp)) and o.indices and r.result in o.indices:
                # only the dims whose index reads `%r` pass the buffer; an access given `%r` as an
                # operand its map does not read (a channel's weight, `(d0, d1, d2) -> (d1)`) stays
                # in its buffer and is not masked
                dims = [d for d, e in enumerate(o.map.data.results) if _uses(e, o.indices, r.result)]
                if dims:
                    tile.mark_masked(o, sorted(set(dims) | set(tile.masked_dims(o))))
        acc = body.last_op
        if padded and isinstance(acc, loop.AccumulateOp):
            with_identity = []
            c = arith.ConstantOp(IntegerAttr(bound, IndexType()))
            inside = arith.CmpiOp(r.result, c.result, "ult")
            Rewriter.insert_op([c, inside], InsertPoint.before(acc))
            for kind, v in zip(acc.kinds, acc.values):
                ident = arith.ConstantOp(FloatAttr(_IDENTITY[kind.data], v.type))
                sel = arith.SelectOp(inside.result, v, ident.result)
                Rewriter.insert_op([ident, sel], InsertPoint.before(acc))
                with_identity.append(sel.result)
            Rewriter.replace_op(acc, loop.AccumulateOp([k.data for k in acc.kinds], with_identity))
        kind = loop.IterKind.REDUCE if f.is_reduce else loop.IterKind.FREE
        types: list[Attribute] = [res.type for res in f.res]
        new_loop = loop.ForOp(kind, trips, body, types)
        tile.mark_unroll(new_loop)
        Rewriter.replace_op(f, new_loop)
