"""stage-inputs: hoist an input read several times within a block into a `tile.stage`.

For each kernel input, the loads of it in a tile are read as linear forms: every index is either
block-uniform (block axes and constants: it goes into the stage origin) or `uniform + %iv` for
the induction variable of a loop inside the tile (a slab dim of the loop's bound, the uniform part
into the origin). When all loads of the input agree on origin and slab dims and there are at
least `min-reuse` of them, one stage is placed at the top level of the tile body before the first
of them, and each load reads the stage at its loop indices instead (the seeds' RMSNorm: x staged
once per row, both strided loops read x_smem).

A norm over several dims reads its row through collapse-loops' one loop, `x[%a1, %r floordiv
256, %r mod 256]` with %r over all 45 x 256 elements: those trailing dims are staged whole (origin
0, slab dims of their extents) and each load reads the stage at its own indices there
(`_flat_suffix`).

Declines (logged to `dpl.passes`) an input read fewer than `min-reuse` times, indexed by a thread
axis or otherwise non-linearly, read with different origins or slab dims, or whose slab (with the stages
already placed in the tile) would not fit `smem-bytes` (48 KB) of shared memory. A tile bound in a
`kernel.func` (materialized already) is left as it is.

Matmul tiles (`dpl.transforms.tile.matmul`) are staged per K step instead: each input read inside
the K reduce (A, B, and K-only operands like the seeds' bias) gets one stage per K-outer
iteration, placed in the K-outer body before the K-inner loop (before the K loop when K is not
chunked). Every index of such a load is a block-uniform part (block axes, the K-outer index: the
origin) plus a dense mixed-radix combination of thread / cell axes and the K-inner index (the
slab, one slab dim per term, most significant first): after chunk-matmul-k, register-tile and
blockify-launch, `x[%b * 64 + %t * 4 + %c, %ko * 32 + %ki]` gives

    %x_smem = tile.stage %x origin [%b * 64, %ko * 32] slab [t : 16 at 0, cell : 4 at 0, ki : 32 at 1]

a [64 x 32] slab read as `%x_smem[%t, %c, %ki]`. A slab may run past the buffer only along dims its loads are
`{tile.masked}` on (pad-matmul's ragged sizes); the stage is then masked on those dims too (its
fill reads 0 there). Such an input is declined when it is also read outside the K-inner loop, read at different indices, indexed by something else, indexed by every
thread axis (no thread would reuse another's element), or its slab would not fit. A non-linear
summand over block axes and the K-outer index only goes into the origin as it is: a grouped-query
head `%h floordiv 7` gives `tile.stage %k origin [0, %h floordiv 7, %b * 64, %ko * 32] ...`.
Indices are first simplified with the loop bounds (`common.simplify_index`), so the o-projection's
head-major operand `attn[(%ko * 32 + %ki) floordiv 128, .., (%ko * 32 + %ki) mod 128]` (%ki < 32)
reads as `attn[%ko floordiv 4, .., %ko mod 4 * 32 + %ki]` and is staged with origin
`[%ko floordiv 4, .., %ko mod 4 * 32]`; a head_dim the k-tile does not divide stays non-linear.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.kernel import MAX_SMEM
from dpl.dialects.types import element_bytes
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, flat_offset, linear, linear_expr, simplify_map, tiles
from dpl.transforms.tile.matmul import MatmulInfo, form_expr, matmul_info, substitute, value_form
from dpl.transforms.tunable import tunable


def _loop_bound(v: SSAValue) -> int | None:
    if isinstance(v, BlockArgument):
        parent = v.block.parent_op()
        if isinstance(parent, loop.ForOp):
            return parent.extent.data
        if isinstance(parent, tile.StridedForOp):
            return parent.bound.data
    return None


def _flat_suffix(load: loop.LoadOp) -> tuple[int, SSAValue] | None:
    """(k, iv): the first dim k of the trailing dims (two or more) that `load` indexes at the
    row-major position of one loop variable iv running over all of them (collapse-loops' `%r
    floordiv 256, %r mod 256` over dims of (45, 256), %r < 11520), else None. H100 (2026-11-24, session 8,
    ms, unstaged -> staged): LayerNorm over (45, 256) of (64, 29, 45, 256) 0.1244 -> 0.1147, over
    (349, 53) of (640, 349, 53) (a row of 74 KB, staged whole by 1024 threads) 0.0551 -> 0.0504;
    over (384, 17) of (64, 64, 384, 17) 0.1031 -> 0.1089 (filled a float at a time)."""
    results, indices = load.map.data.results, list(load.indices)
    shape = load.memref.type.get_shape()  # type: ignore[union-attr]
    for k in range(len(shape) - 1):
        flat = flat_offset(results[k:], shape[k:])
        form = None if flat is None else linear(flat, indices)
        if form is not None and form[1] == 0 and list(form[0].values()) == [1]:
            (iv,) = form[0]
            if _loop_bound(iv) == math.prod(shape[k:]):
                return k, iv
    return None


def _read(load: loop.LoadOp, blocks: set[SSAValue]):
    """(origin forms, {source dim: (iv, bound, the stage's index there)}) for a stageable
    load, else a reason. The stage's index is the loop variable, or for a flat suffix of dims
    (`_flat_suffix`: the whole dims, origin 0) the load's own index there."""
    origin, slab = [], {}
    results, indices = load.map.data.results, list(load.indices)
    suffix = _flat_suffix(load)
    shape = load.memref.type.get_shape()  # type: ignore[union-attr]
    for d, expr in enumerate(results):
        if suffix is not None and d >= suffix[0]:
            slab[d] = (suffix[1], shape[d], expr)
            origin.append(({}, 0))
            continue
        form = linear(expr, indices)
        if form is None:
            return "a non-linear index"
        terms, const = form
        ivs = [v for v in terms if _loop_bound(v) is not None]
        others = [v for v in terms if v not in ivs and v not in blocks]
        if others:
            return "an index using a thread axis or a non-uniform value"
        if len(ivs) > 1 or (ivs and terms[ivs[0]] != 1):
            return "an index mixing loop variables"
        if ivs:
            slab[d] = (ivs[0], _loop_bound(ivs[0]), AffineDimExpr(indices.index(ivs[0])))
        origin.append(({v: c for v, c in terms.items() if v not in ivs}, const))
    return origin, slab


def _smem_used(t: tile.TileOp) -> int:
    return sum(
        element_bytes(s.result.type.element_type) * math.prod(s.result.type.get_shape())
        for s in t.walk()
        if isinstance(s, tile.StageOp)
    )


def stage_tile(t: tile.TileOp, min_reuse: int, smem_bytes: int) -> list[str]:
    kernel = t.parent_op()
    assert isinstance(kernel, tile.KernelOp)
    info = matmul_info(t)
    if info is not None:
        return stage_matmul(t, info, smem_bytes)
    blocks = {v for v, _, k in t.axes if k == tile.AxisKind.BLOCK}
    used = _smem_used(t)
    notes = []
    for buf in kernel.ins:
        loads = [op for op in t.walk() if isinstance(op, loop.LoadOp) and op.memref is buf]
        name = buf.name_hint or "input"
        if not loads and any(isinstance(op, tile.HoldOp) and op.source is buf for op in t.walk()):
            notes.append(f"{name}: held in registers (hold-rows)")
            continue
        if len(loads) < min_reuse:
            notes.append(f"{name}: read {len(loads)} time(s), fewer than {min_reuse}")
            continue
        reads = [_read(ld, blocks) for ld in loads]
        bad = next((r for r in reads if isinstance(r, str)), None)
        if bad is not None:
            notes.append(f"{name}: {bad}")
            continue
        origin = reads[0][0]
        dims = sorted(reads[0][1])
        if any(r[0] != origin or sorted(r[1]) != dims for r in reads):
            notes.append(f"{name}: reads with different origins or slab dims")
            continue
        if not dims:
            notes.append(f"{name}: reads a single element per block")
            continue
        extents = [max(r[1][d][1] for r in reads) for d in dims]
        size = element_bytes(buf.type.element_type) * math.prod(extents)
        if used + size > smem_bytes:
            notes.append(f"{name}: slab of {size} bytes does not fit {smem_bytes} of shared memory")
            continue
        shape = buf.type.get_shape()
        if any(o[0] == {} and o[1] + e > shape[d] for o, e, d in
               [(origin[d], e, d) for d, e in zip(dims, extents)]):
            notes.append(f"{name}: slab runs past the buffer")
            continue
        used += size
        order: list[SSAValue] = []
        for terms, _ in origin:
            order += [v for v in terms if v not in order]
        amap = AffineMap(len(order), 0, tuple(linear_expr(o, order) for o in origin))
        labels = [reads[0][1][d][0].name_hint or f"s{d}" for d in dims]
        slab = [tile.SlabDimAttr(e, d, lab) for e, d, lab in zip(extents, dims, labels)]
        stage = tile.StageOp(buf, amap, order, slab)
        stage.result.name_hint = f"{name}_smem"
        first = min(loads, key=lambda ld: _top_index(t, ld))
        t.body.block.insert_op_before(stage, _top(t, first))
        for ld, (_, sl) in zip(loads, reads):
            ivs = list(dict.fromkeys(sl[d][0] for d in dims))  # the stage is indexed by these alone
            over_ivs = [AffineDimExpr(ivs.index(v)) if v in ivs else AffineConstantExpr(0) for v in ld.indices]
            exprs = tuple(sl[d][2].replace_dims_and_symbols(over_ivs, []) for d in dims)
            new = loop.LoadOp(stage.result, ivs, AffineMap(len(ivs), 0, exprs))
            new.result.name_hint = ld.result.name_hint
            Rewriter.replace_op(ld, new)
        notes.append(f"{name}: staged ({len(loads)} reads)")
    return notes


def _summands(expr: AffineExpr) -> list[AffineExpr]:
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind == AffineBinaryOpKind.Add:
        return _summands(expr.lhs) + _summands(expr.rhs)
    return [expr]


def _split_dim(expr: AffineExpr, indices: list[SSAValue], origin_vals: set[SSAValue]):
    """An index as (linear form, non-linear summands over origin values only, each with the
    values it reads, in order), or None. `%a1 floordiv 7 * 128 + %t` (a grouped-query head)
    gives ({%t: 1}, 0) and [((a1 floordiv 7) * 128, (%a1,))]."""
    terms: dict[SSAValue, int] = {}
    const, raw = 0, []
    for e in _summands(expr):
        form = linear(e, indices)
        if form is not None:
            form = substitute(form, {v: value_form(v) for v in form[0]})
            for v, c in form[0].items():
                terms[v] = terms.get(v, 0) + c
            const += form[1]
            continue
        used = sorted(AffineMap(len(indices), 0, (e,)).used_dims())
        if not all(indices[i] in origin_vals for i in used):
            return None
        vals = tuple(indices[i] for i in used)
        where = {i: AffineDimExpr(n) for n, i in enumerate(used)}
        dims = [where.get(i, AffineConstantExpr(0)) for i in range(len(indices))]
        raw.append((e.replace_dims_and_symbols(dims, []), vals))
    return ({v: c for v, c in terms.items() if c}, const), raw


def _raw_range(raw, extent_of: dict[SSAValue, int]) -> tuple[int, int] | None:
    """Smallest and largest value of the non-linear summands, by enumeration (block axes and
    the K-outer index have small extents); None when there are too many points."""
    lo = hi = 0
    for e, vals in raw:
        points = [()]
        for v in vals:
            points = [p + (i,) for p in points for i in range(extent_of[v])]
            if len(points) > 1 << 16:
                return None
        ys = [e.eval(list(p), []) for p in points]
        lo, hi = lo + min(ys), hi + max(ys)
    return lo, hi


def _matmul_read(load: loop.LoadOp, origin_vals: set[SSAValue], ext: dict[SSAValue, int]):
    """(origin (form, non-linear summands) per dim, slab terms per source dim, most significant
    first) or a reason."""
    indices = list(load.indices)
    origin, slab = [], []
    for expr in simplify_map(load.map.data, indices).results:
        split = _split_dim(expr, indices, origin_vals)
        if split is None:
            return "a non-linear index over thread, cell or K-inner values"
        (terms, const), raw = split
        if any(v not in origin_vals and v not in ext for v in terms):
            return "an index using a value that is neither a block/thread/cell axis nor a K index"
        origin.append((({v: c for v, c in terms.items() if v in origin_vals}, const), tuple(raw)))
        dense = sorted(((v, c) for v, c in terms.items() if v in ext), key=lambda t: -t[1])
        stride = 1
        for v, c in reversed(dense):
            if c != stride:
                return "a strided (not dense) index over thread, cell or K-inner values"
            stride *= ext[v]
        slab.append([v for v, _ in dense])
    return origin, slab


def stage_matmul(t: tile.TileOp, info: MatmulInfo, smem_bytes: int) -> list[str]:
    """Stage the inputs of the K reduce of a matmul tile once per K-outer iteration."""
    kernel = t.parent_op()
    assert isinstance(kernel, tile.KernelOp)
    K = tile.AxisKind
    if info.inner is not None:
        host, anchor, origin_ivs = info.reduce.body.block, info.inner, {info.reduce.iv: info.reduce.extent.data}
    else:
        host, anchor, origin_ivs = t.body.block, info.reduce, {}
    extent_of = {v: e for v, e, _ in t.axes} | origin_ivs
    blocks = [v for v, _, k in t.axes if k == K.BLOCK]
    threads = {v for v, _, k in t.axes if k == K.THREAD}
    cells = {v for v, _, k in t.axes if k == K.CELL}
    ext = {v: e for v, e, k in t.axes if k != K.BLOCK} | {anchor.iv: anchor.extent.data}
    origin_vals = set(blocks) | set(origin_ivs)
    used = _smem_used(t)
    notes = []
    for buf in kernel.ins:
        name = buf.name_hint or "input"
        loads = [op for op in t.walk() if isinstance(op, loop.LoadOp) and op.memref is buf]
        if not loads:
            continue
        if any(ld.parent_op() is not anchor for ld in loads):
            notes.append(f"{name}: read outside the K loop")
            continue
        reads = [_matmul_read(ld, origin_vals, ext) for ld in loads]
        bad = next((r for r in reads if isinstance(r, str)), None)
        if bad is not None:
            notes.append(f"{name}: {bad}")
            continue
        if any(r != reads[0] for r in reads):
            notes.append(f"{name}: reads at different indices")
            continue
        origin, slab = reads[0]
        flat = [v for vs in slab for v in vs]
        if not flat:
            notes.append(f"{name}: one element per K step (read directly, the same for every thread)")
            continue
        if threads and threads <= set(flat):
            notes.append(f"{name}: indexed by every thread axis (no reuse across threads)")
            continue
        extents = [ext[v] for v in flat]
        size = element_bytes(buf.type.element_type) * math.prod(extents)
        if used + size > smem_bytes:
            notes.append(f"{name}: slab of {size} bytes does not fit {smem_bytes} of shared memory")
            continue
        shape = buf.type.get_shape()
        masked = sorted({d for ld in loads for d in tile.masked_dims(ld)})
        past = False
        for d, (((terms, const), raw), vs) in enumerate(zip(origin, slab)):
            span = _raw_range(raw, extent_of)
            if span is None:
                past = True
                break
            hi = const + span[1] + sum(c * (extent_of[v] - 1) for v, c in terms.items() if c > 0)
            lo = const + span[0] + sum(c * (extent_of[v] - 1) for v, c in terms.items() if c < 0)
            if lo < 0 or (hi + math.prod(ext[v] for v in vs) > shape[d] and d not in masked):
                past = True
        if past:
            notes.append(f"{name}: slab runs past the buffer")
            continue
        used += size
        order = [
            v
            for v in blocks + list(origin_ivs)
            if any(v in terms or any(v in vals for _, vals in raw) for (terms, _), raw in origin)
        ]
        amap = AffineMap(len(order), 0, tuple(_origin_expr(o, order) for o in origin))
        dims = []
        for d, vs in enumerate(slab):
            for v in vs:
                label = "cell" if v in cells else (v.name_hint or f"s{d}")
                dims.append(tile.SlabDimAttr(ext[v], d, label))
        stage = tile.StageOp(buf, amap, order, dims)
        stage.result.name_hint = f"{name}_smem"
        if masked:  # padded past a ragged size (pad-matmul): the fill reads 0 past the buffer
            tile.mark_masked(stage, masked)
        host.insert_op_before(stage, anchor)
        for ld in loads:
            new = loop.LoadOp(
                stage.result, flat, AffineMap(len(flat), 0, tuple(AffineDimExpr(i) for i in range(len(flat))))
            )
            new.result.name_hint = ld.result.name_hint
            Rewriter.replace_op(ld, new)
        notes.append(f"{name}: staged per K step ({math.prod(extents)} elements)")
    return notes


def _origin_expr(entry, order: list[SSAValue]) -> AffineExpr:
    """One origin index over `order`: its linear form plus its non-linear summands."""
    form, raw = entry
    expr = form_expr(form, order)
    for e, vals in raw:
        expr = expr + e.replace_dims_and_symbols([AffineDimExpr(order.index(v)) for v in vals], [])
    return expr



def _top(t: tile.TileOp, op: Operation) -> Operation:
    while op.parent_op() is not t:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _top_index(t: tile.TileOp, op: Operation) -> int:
    return list(t.body.block.ops).index(_top(t, op))


@dataclass(frozen=True)
class StageInputs(ModulePass):
    """Stage inputs read at least `min-reuse` times in a block into shared memory."""

    name = "stage-inputs"

    min_reuse: int = tunable(2, (2, 4, 16))
    smem_bytes: int = 48 * 1024

    def __post_init__(self):
        check_option(self, "min_reuse", 1)
        check_option(self, "smem_bytes", 4, MAX_SMEM)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for t in tiles(op):
            kernel = t.parent_op()
            if not isinstance(kernel, tile.KernelOp):  # a bound tile of a kernel.func: lowered already
                continue
            for note in stage_tile(t, self.min_reuse, self.smem_bytes):
                LOG.info("stage-inputs: @%s: %s", kernel.sym_name.data, note)
