"""split-reduce: spread a long reduction of few rows over more blocks that combine atomically.

After blockify-launch and cooperative-reduce, a reduction tile runs one row (or a warp of
columns) per block, its reduce shared by the block's lanes:

    tile.tile (%lane : 256 = thread, %a0 : 8 = block) {
      %p = tile.strided_for reduce %r = %lane to 16777216 step 256 -> f32 { ... }
      %s = tile.combine add %p across [%lane] warp_shuffle : f32
      %m = arith.mulf %s, %inv_n : f32                       (a mean; or the sum itself)
      loop.store %m, %out[%a0] : memref<8xf32>
    }

With few rows (8 blocks on 132 SMs) and long rows, most of the GPU idles. The row is split
over S blocks of a new block axis `%rs` (first, slowest): block s reads the lane-sized runs
s, s + S, s + 2S, ... (each run still 256 consecutive elements, coalesced), and folds its
partial into the output atomically:

    tile.tile (%rs : 132 = block, %lane : 256 = thread, %a0 : 8 = block) {
      %start = affine.apply (%rs * 256 + %lane)
      %p = tile.strided_for reduce %r = %start to 16777216 step 33792 -> f32 { ... }
      %s = tile.combine add %p across [%lane] warp_shuffle : f32
      %m = arith.mulf %s, %inv_n : f32
      tile.atomic add %m, %out[%a0] : memref<8xf32>
    }

and the kernel is marked `{tile.zero_init = [i]}`: the output starts at the combiner's identity
(0 for add, -inf for max). Every element is still read once. An `add` may be scaled on its way
to the store (`sum * c` with c the same in every block: a mean), since the scaling distributes
over the partial sums; `max` and `min` store the combined value as it is. The partial sums are
added in an unspecified order (rounding may differ from the one-block sum).

S is the most that still run at once (`sms` x `blocks-per-sm` // blocks; `sms` defaults to the
module's #kernel.target's), each keeping at least `min-trips` trips of its strided loop per thread.
Rounding up instead (29 rows of 474912: 37 splits, 1073 blocks for 1056 places) leaves a few
blocks to a second wave. H200 (2026-11-30, session 27, bench/results/session27/tools/ab27.py
floor, the ceiling -> the floor, us): softmax over dim 0 of 4096 x 4096 83.6 -> 75.8, of
293 x 389 x 64 36.8 -> 31.0, mean over dim 1 of 64 x 383 x 256 11.1 -> 10.1; geomean over 39
programs 1.036x, the slowest 0.97x (mean over dim 0 of 2571 x 576 x 37).

Several top-level strided sums whose combined values reach one store only through adds,
subtracts, negations and scalings (`linear_store`: the losses of a step added into one scalar,
fused by fuse-loops into one kernel) split alike, every reduce strided over the same blocks,
each block adding its scaled sum of partials: the stored value is linear in the partials, with
no term the same in every block. H200 (2026-11-30, session 33, bench/results/session33/tools/
ab33ob.py and ab33all.py, one block -> split, us): MSE + smooth L1 + BCE + KL over 4096 x 1000
3330 -> 55 (eager 177).

Declines (logged to `dpl.passes`) a tile that is not top-level strided reduces alone, each
combined across the lanes, and a store of the result (a norm, which reads its statistic again:
split-row-stats makes those into pure reductions first); a combiner without an atomic (mul); an
epilogue other than a store (scaled, for add); or a launch whose blocks split in two would not
run at once, or rows too short to split.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, IntAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, mark_zero_init, rebuild_tile, tiles
from dpl.transforms.tile.matmul import kernel_name
from dpl.transforms.tile.target import target_sms

K = tile.AxisKind
SPLIT_AXIS = "rs"


def stored_result(value: SSAValue, kind: CombineKind, t: tile.TileOp) -> loop.StoreOp | str:
    """The store of the combined `value` (for add: possibly scaled by values that do not depend
    on it), or why not."""
    while True:
        uses = list(value.uses)
        if len(uses) != 1 or uses[0].operation.parent_op() is not t:
            return "the combined value is not used exactly once, at the top of the tile"
        user = uses[0].operation
        if isinstance(user, loop.StoreOp) and user.value is value:
            return user
        if kind == CombineKind.ADD and isinstance(user, arith.MulfOp | arith.DivfOp) and (
            isinstance(user, arith.MulfOp) or user.lhs is value
        ):
            value = user.result  # (sum of partials) * c = sum of (partial * c)
            continue
        return f"'{user.name}' of the combined value does not distribute over partial results"


def linear_store(values: list[SSAValue], t: tile.TileOp) -> loop.StoreOp | str:
    """The one store of a sum of the combined add-reductions `values`, each scaled, or why not:
    every op from them to the store at the top of the tile adds, subtracts or negates such
    terms, or multiplies (divides) one by a factor that depends on none of them; a term the same
    in every block (`sum + 1`) would be added once per block. The several losses of a training
    step summed into one scalar are such a store."""
    dep = set(values)
    store = None
    for op in t.body.block.ops:
        ins = [v for v in op.operands if v in dep]
        if not ins:
            continue
        if isinstance(op, loop.StoreOp) and op.value in dep and store is None:
            store = op
            continue
        if isinstance(op, arith.AddfOp | arith.SubfOp) and len(ins) == 2 or isinstance(op, arith.NegfOp) or (
            isinstance(op, arith.MulfOp) and len(ins) == 1) or (isinstance(op, arith.DivfOp) and op.lhs in dep and op.rhs not in dep
        ):  # fmt: skip
            dep.add(op.results[0])
            continue
        return f"'{op.name}' of the combined values is not a sum of scaled reductions"
    if store is None:
        return "the combined values reach no store at the top of the tile"
    if any(u.operation.parent_op() is not t for v in dep for u in v.uses):
        return "a combined value is used inside a loop"
    return store


def _plan(blocks: int, trips: int, p: SplitReduce) -> int | str:
    at_once = p.sms * p.blocks_per_sm
    if 2 * blocks > at_once:
        return f"{blocks} blocks, split in two, would not run at once ({at_once} at once)"
    splits = min(at_once // blocks, trips // p.min_trips)
    if splits < 2:
        return f"{trips} trips per thread are too few to split (min-trips = {p.min_trips})"
    return splits


def split_reduce(t: tile.TileOp, p: SplitReduce) -> tuple[bool, str]:
    body = [o for o in t.body.block.ops if not isinstance(o, arith.ConstantOp | affine.ApplyOp)]
    strided = [o for o in body if isinstance(o, tile.StridedForOp)]
    if not strided or any(not r.is_reduce for r in strided) or any(isinstance(o, loop.ForOp | tile.StageOp) for o in body):
        return False, "not top-level strided reduces alone (a norm or a matmul)"
    combines = []
    for red in strided:
        if len(red.res) != 1:
            return False, "a reduce does not have exactly one result"
        uses = [u.operation for u in red.res[0].uses]
        if len(uses) != 1 or not isinstance(uses[0], tile.CombineOp):
            return False, "a reduce's partial is not combined across the lanes"
        combines.append(uses[0])
    kind = combines[0].kind.data
    if kind == CombineKind.MUL:
        return False, "no atomic for mul"
    if len(combines) == 1:
        store = stored_result(combines[0].result, kind, t)
    elif any(c.kind.data != CombineKind.ADD for c in combines):
        return False, "several reductions, not all sums"
    else:
        store = linear_store([c.result for c in combines], t)
    if isinstance(store, str):
        return False, store
    if any(isinstance(o, loop.StoreOp | tile.AtomicOp) and o is not store for o in t.walk()):
        return False, "the tile writes more than the reduction's result"
    blocks = t.count(K.BLOCK)
    trips = max(-(-red.bound.data // red.step.data) for red in strided)
    splits = _plan(blocks, trips, p)
    if isinstance(splits, str):
        return False, splits
    kernel = t.parent_op()
    assert isinstance(kernel, tile.KernelOp)
    axes = [(splits, K.BLOCK, SPLIT_AXIS)] + [
        (e, k, v.name_hint or f"a{i}") for i, (v, e, k) in enumerate(t.axes)
    ]
    new = rebuild_tile(t, axes, lambda b: (list(b.args[1:]), []))
    rs = new.body.block.args[0]
    for red in strided:
        step = red.step.data
        start = affine.ApplyOp(
            [rs, red.start], AffineMapAttr(AffineMap(2, 0, (AffineDimExpr(0) * step + AffineDimExpr(1),)))
        )
        start.result.name_hint = "start"
        new.body.block.insert_op_before(start, red)
        red.operands[0] = start.result
        red.properties["step"] = IntAttr(step * splits)
    atomic = tile.AtomicOp(kind, store.value, store.memref, list(store.indices), store.map.data)
    atomic.attributes |= store.attributes
    Rewriter.replace_op(store, atomic)
    mark_zero_init(kernel, [atomic.memref])
    return True, (
        f"rows split over {splits} blocks (%{SPLIT_AXIS}; {blocks} -> {blocks * splits} blocks, "
        f"{trips} -> {-(-trips // splits)} trips per thread), combined by atomic {kind.value}"
        + (f" ({len(strided)} reductions' scaled sum)" if len(strided) > 1 else "")
    )



@dataclass(frozen=True)
class SplitReduce(ModulePass):
    """Split few long rows of a reduction over more blocks that fold their partials atomically."""

    name = "split-reduce"

    sms: int | None = None
    """The GPU's multiprocessors (default: the module's #kernel.target's)."""
    blocks_per_sm: int = 8
    """Blocks of the reduction one multiprocessor runs at once (2048 threads / 256)."""
    min_trips: int = 16
    """The fewest trips of its strided loop each thread keeps."""

    def __post_init__(self):
        for option in ("sms", "blocks_per_sm", "min_trips"):
            check_option(self, option, 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.sms is None:
            return replace(self, sms=target_sms(None, op)).apply(ctx, op)
        for t in tiles(op):
            where = kernel_name(t)
            done, what = split_reduce(t, self)
            LOG.info("split-reduce: %s%s: %s", "" if done else "declined ", where, what)
