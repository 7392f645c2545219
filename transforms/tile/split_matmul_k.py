"""split-matmul-k: spread a matmul's K-outer loop over several blocks that add into the output.

After chunk-matmul-k, a matmul tile whose epilogue stores the accumulator, alone or plus terms
that do not depend on it (a bias, a residual)

    %acc = loop.for reduce %ko < KO -> f32 { ...%ko... }
    loop.store %acc, %out[...]                       (or: %v = arith.addf %acc, %bias
                                                           loop.store %v, %out[...])

gets a new block axis `%ks : S = block` (placed first, so it varies slowest); the K-outer loop
runs KO / S trips with `%ko -> %ks * (KO / S) + %ko` (when KO == S the loop goes and
`%ko -> %ks`), and each block adds its partial sum into the output:

    tile.atomic add %acc, %out[...]

With an additive epilogue (`arith.addf` of the accumulator and a term, either operand order, or a
chain of them such as `(acc + X) + Y`, each sum used once and only by the next), only the first
split adds the terms: instead of storing `%v`, each block adds

    %first = arith.cmpi eq, %ks, %c0 : index         (the first split)
    %part = arith.select %first, %v, %acc : f32      (split 0: acc + X + Y; others: acc)
    tile.atomic add %part, %out[...]

so the output gets sum(partials) + X + Y exactly once.

The split count S is `splits`, or chosen automatically when `splits = 0` (the default), from a
model of the launch (`split_time`): with B the blocks of the tile's launch (the product of its
`block` axes; before blockify-launch, when it has none, the estimate ceil(tile elements /
`tile-elements`), 64 x 64 by default as register-tile 4x4 on 16 x 16 threads makes), T the K-outer
trips and C = `sms` x `blocks-per-sm` the blocks that run at once, a split s runs in
ceil(B s / C) rounds of T / s trips, plus its atomic adds (s per output element, counted as
s x `atomic-trips` / T of the work), and, with `contention-trips` (0 by default), per round that
many trips for each further split of a tile running at the same time as its others (`adders`:
about C / B of a tile's splits share a round; their atomic adds to the same addresses wait on each
other). S is the s (1, or a divisor of T leaving >= `min-trips` trips per split; with
`short-k-splits` = S, a K-outer shorter than S x `min-trips` trips: 1 / S of its trips,
`min_split_trips`, so a short K still splits up to S ways where its tile grid leaves SMs idle) of
least modeled time, the smallest of equals; 1 (no split) unless that saves >= 10%.
On an H100 (132 SMs) a 64 x 64 tile's 448 blocks (M 512, N 3584, K 3584: T = 112) run 3 per SM in
2 rounds unsplit and in 8 rounds of 16 trips with S = 7 (1.14 rounds' worth plus 9% for atomics).

Runtime contract: the output must start at 0 (the identity of add). The kernel is marked
`{tile.zero_init = [i, ...]}` with the positions of the outs written this way; the materializer /
runtime must zero those buffers before the launch, and the NumPy executor (exec_tile) does the
same. The partial sums are added in an unspecified order, so results can differ from the
sequential sum by rounding (in float64 tests, within 1e-10).

Declines (logged to `dpl.passes`) a tile that is not a matmul, whose K is not chunked, that
already holds stages (run before stage-inputs), whose epilogue is not a store of the accumulator
or of the accumulator plus terms (a relu, a multiply: those do not distribute over the partial
sums), whose K-outer trip count is not a multiple of an explicit `splits` (or `splits` < 2) where
the loop cannot run past its end (a multiple, it is padded to one as below), or,
automatically, whose launch would gain < 10% from a split (modeled) or whose K-outer has no divisor
s >= 2 leaving >= `min_split_trips` trips per split.

Where the splits that divide the trips leave half the GPU idle (194 trips = 2 x 97 for a
32 x 4096 output), or none of them beats the unsplit launch while that leaves SMs idle (178 =
2 x 89 trips on the 84 tiles of 128 x 128 of an 853 x 1536 output, 132 SMs: 2 splits take two
rounds and gain nothing), and the K loop may run past its end (the accumulated value vanishes there: a
product with a factor read past its buffer, as pad-matmul checks), a split whose trips round up
by at most a sixteenth (one trip below 16 trips: 11 as 2 splits of 6) is tried too (12 splits of
17 trips, 204 in all); taken when the model says it saves 10% more, the K-outer loop runs the
rounded trips and the loads past K are masked (`padding.grow`). With `sparse-tile`, a launch of
fewer blocks than SMs also tries splits of down to 2 trips (SPARSE_GRID); where one of those is
taken, the kernel records the count it displaced, `{tile.dense_splits = 3}` (1: none), so that
the schedule can weigh the tile at that count too (`splits=3`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntAttr, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, index_constant, mark_zero_init, rebuild_tile, tiles
from dpl.transforms.tile.matmul import fold_applies, kernel_name, matmul_info, rewrite_value
from dpl.transforms.tunable import tunable
from dpl.transforms.tile.padding import grow, ranges_of, vanishes
from dpl.transforms.tile.target import target_sms

SPLIT_AXIS = "ks"
"""The name of the block axis a split adds (the schedule reads the split count from it)."""

def launch_blocks(t: tile.TileOp, tile_elements: int) -> int:
    """The blocks of `t`'s launch: its block axes, or (none yet) its elements / `tile_elements`."""
    blocks = [e for _, e, k in t.axes if k == tile.AxisKind.BLOCK]
    if blocks:
        return math.prod(blocks)
    return max(1, -(-math.prod(e for _, e, _ in t.axes) // tile_elements))


def split_time(blocks: int, trips: int, splits: int, at_once: int, atomic_trips: float,
               contention_trips: float = 0.0) -> float:  # fmt: skip
    """The modeled time, in K-outer trips of one block, of a launch of `blocks` tiles with
    `trips` K-outer trips split `splits` ways when `at_once` blocks run at a time: the rounds of
    blocks times the trips of each, plus the atomic adds of the partial sums (none unsplit), plus
    per round `contention_trips` for each further split of a tile that adds into the same outputs
    at the same time (`adders`)."""
    rounds = -(-blocks * splits // at_once)
    atomics = atomic_trips * splits if splits > 1 else 0.0
    time = rounds * (trips / splits) * (1 + atomics / trips)
    if contention_trips and splits > 1:
        time += rounds * contention_trips * (adders(blocks, splits, at_once) - 1)
    return time


def adders(blocks: int, splits: int, at_once: int) -> float:
    """The splits of one tile that run at the same time, adding into the same outputs: the split
    axis varies slowest in the launch, so a round of `at_once` blocks holds about at_once / blocks
    splits of each of the `blocks` tiles (1 to `splits`)."""
    return min(float(splits), max(1.0, at_once / blocks))


#: A split launch left on at most 1 / SPARSE_GRID of the SMs (one 128 x 97 tile over K = 1181,
#: two of 256 x 64 over K = 783: 3 and 8 blocks on 132 SMs, 0.2x and 0.4x eager on the H100)
#: also tries splits down to SPARSE_MIN_TRIPS trips, with any padding of the K loop (the last
#: split's masked trips add no round): the model (split_time, the tile's contention_trips) then
#: picks the count. H200 (session 28, call 5: the 52 sweep programs of seeds 0 and 41-63 that
#: it changes, bench/results/session28/call5-sparse.txt): 1 / 4 -> every launch of fewer blocks
#: than SMs, 1.55 -> 1.75x eager, 36 faster (matmul_tt 45x523x1472 13.2 -> 8.3 us, linear +
#: SiLU * mul 1024 x 1856 -> 31 15.2 -> 11.1), 10 slower, one a cliff the sparse split made by
#: displacing the dense one in the schedule (matmul_tn 1117x19x347: 32 x 32 split 3 6.5 us, its
#: sparse split modeled slower than unsplit, unsplit 11.3): the kernel now says what the split
#: displaced (DENSE_SPLITS) and the schedule weighs that too.
SPARSE_GRID = 1
SPARSE_MIN_TRIPS = 2

DENSE_SPLITS = "tile.dense_splits"
"""Kernel attribute: where a split of SPARSE_MIN_TRIPS-or-more trips was taken (`sparse-tile`),
the split count the rule without it picks (1: none), so the schedule can weigh that too."""


def min_split_trips(trips: int, min_trips: int, short_k_splits: int = 0) -> int:
    """The fewest K-outer trips a split keeps: `min_trips`, or, given `short_k_splits` = S, for a
    K-outer loop too short to split so (under S x `min_trips` trips) 1 / S of its trips (S = 4,
    11 trips: 3), so that a short K still splits up to S ways where the tile grid leaves SMs
    idle."""
    if short_k_splits and trips < short_k_splits * min_trips:
        return max(1, -(-trips // short_k_splits))
    return min_trips


def choose_splits(blocks: int, trips: int, p: SplitMatmulK, pad: bool = False) -> tuple[int, int, int] | str:
    """The automatic split count for `blocks` blocks and `trips` K-outer trips, the trips the
    K-outer loop then runs (more than `trips` when padded) and, for a sparse split, the count it
    displaced (else 0); or why none. Splits divide the
    trips; with `pad` (the K loop may run past its end, masked), where those leave half the GPU
    idle or none beats the unsplit launch, which leaves SMs idle, a split whose trips round up by
    at most a sixteenth is taken if it saves 10% more (194 trips = 2 x 97 of 32 blocks: 12
    splits of 17, 204 trips, rather than 2 of 97). Where the pick leaves the launch on at most
    1 / SPARSE_GRID of the SMs (tiles of at most `sparse-tile` elements), splits down to
    SPARSE_MIN_TRIPS trips, padded as far as need be, are tried as well and taken if they save
    10% more."""
    least = min_split_trips(trips, p.min_trips, p.short_k_splits)
    first = _choose(blocks, trips, p, pad, least, strict_pad=True)
    used = 1 if isinstance(first, str) else first[0]
    if blocks * used * SPARSE_GRID <= p.sms and least > SPARSE_MIN_TRIPS and p.tile_elements <= p.sparse_tile:
        sparse = _choose(blocks, trips, p, pad, SPARSE_MIN_TRIPS, strict_pad=False)
        if not isinstance(sparse, str) and (isinstance(first, str) or sparse[2] <= 0.9 * first[2]):
            return sparse[0], sparse[1], used
    return first if isinstance(first, str) else (first[0], first[1], 0)


def _choose(blocks: int, trips: int, p: SplitMatmulK, pad: bool, least: int,
            strict_pad: bool) -> tuple[int, int, float] | str:  # fmt: skip
    """choose_splits' pick among splits of at least `least` trips (padded by at most a
    sixteenth where `strict_pad`): (splits, trips run, modeled time), or why none."""
    at_once = p.sms * p.blocks_per_sm
    cost = {1: split_time(blocks, trips, 1, at_once, p.atomic_trips, p.contention_trips)}
    runs = {1: trips}
    padded: dict[int, int] = {}
    for s in range(2, trips // least + 1):
        per = -(-trips // s)
        if per * s == trips:
            runs[s] = trips
            cost[s] = split_time(blocks, trips, s, at_once, p.atomic_trips, p.contention_trips)
        elif pad and per >= least and (not strict_pad or per * s - trips <= max(1, trips // 16)):
            padded[s] = per * s
    if len(runs) == 1 and not padded:
        return f"no split of the {trips} K-outer trips leaves >= {least} per block (min-trips = {p.min_trips})"
    best = min(cost, key=lambda s: (cost[s], s))
    idle = 2 * blocks * best < at_once or (best == 1 and blocks % at_once)  # (by the splits that divide)
    if padded and idle:
        pad_cost = {s: split_time(blocks, n, s, at_once, p.atomic_trips, p.contention_trips) for s, n in padded.items()}
        best_pad = min(pad_cost, key=lambda s: (pad_cost[s], s))
        if pad_cost[best_pad] <= 0.9 * cost[best]:
            best, runs[best_pad], cost[best_pad] = best_pad, padded[best_pad], pad_cost[best_pad]
    if best == 1 or cost[best] > 0.9 * cost[1]:
        return (
            f"{blocks} blocks ({at_once} at once) gain < 10% from any split "
            f"(best {best}: {cost[best] / cost[1]:.2f} of the unsplit time)"
        )
    return best, runs[best], cost[best]


def epilogue(acc: SSAValue, t: tile.TileOp) -> loop.StoreOp | str:
    """The top-level store of `acc` or of `acc + terms` (a chain of single-use `arith.addf`)."""
    value = acc
    while True:
        uses = list(value.uses)
        if len(uses) != 1:
            return "the accumulator (or a sum of it) is not used exactly once"
        user = uses[0].operation
        if user.parent_op() is not t:
            return f"'{user.name}' of the accumulator is not in the tile body"
        if isinstance(user, loop.StoreOp) and user.value is value:
            return user
        if not isinstance(user, arith.AddfOp):
            return (
                f"the epilogue applies '{user.name}' to the accumulator, which does not distribute "
                "over the partial sums (only a store of acc or of acc + terms does)"
            )
        value = user.result  # single use: the other operand cannot depend on the accumulator


def split_k(t: tile.TileOp, p: SplitMatmulK) -> tuple[bool, str]:
    """Split the K-outer of matmul tile `t`; (whether it did, what it did or why it declined)."""
    info = matmul_info(t)
    if info is None:
        return False, "not a matmul tile"
    if info.inner is None:
        return False, "K is not chunked (run chunk-matmul-k first)"
    if any(isinstance(o, tile.StageOp) for o in t.walk()):
        return False, "the tile already holds stages (run split-matmul-k before stage-inputs)"
    red = info.reduce
    trips = red.extent.data
    if len(red.res) != 1:
        return False, "the K reduce does not have exactly one result"
    store = epilogue(red.res[0], t)
    if isinstance(store, str):
        return False, store
    assert info.inner is not None
    acc = info.inner.body.block.last_op
    assert isinstance(acc, loop.AccumulateOp)
    pad = all(vanishes(v, red.iv, trips, ranges_of(t)) for v in acc.values)  # K-outer may run past its end
    splits, padded, dense, how = p.splits, trips, 0, ""
    if splits == 0:
        blocks = launch_blocks(t, p.tile_elements)
        chosen = choose_splits(blocks, trips, p, pad)
        if isinstance(chosen, str):
            return False, chosen
        splits, padded, dense = chosen
        at_once = p.sms * p.blocks_per_sm
        saved = split_time(blocks, padded, splits, at_once, p.atomic_trips, p.contention_trips) / split_time(
            blocks, trips, 1, at_once, p.atomic_trips
        )
        how = f" (automatic: {blocks} x {splits} blocks, {at_once} at once, {saved:.2f} of the unsplit time)"
        if dense:
            how += f"; a sparse split, displacing {dense}"
    elif splits > 1 and trips % splits and pad:  # a given count that does not divide: padded, masked
        padded = -(-trips // splits) * splits
    if padded != trips:  # run K-outer past its end, the K-indexed loads masked there
        t, _ = grow(t, {}, {red: padded})
        how += f"; K-outer padded {trips} -> {padded} trips"
        trips = padded
    if splits == 1:
        return False, "splits = 1: K kept whole"
    if splits < 2 or trips % splits:
        return False, (f"K-outer of {trips} trips is not a multiple of splits = {splits} (>= 2), and running "
                       "it past its end would not be masked")  # fmt: skip
    kernel = t.parent_op()
    assert isinstance(kernel, tile.KernelOp)
    if dense:
        kernel.attributes[DENSE_SPLITS] = IntegerAttr(dense, 64)
    axes = [(splits, tile.AxisKind.BLOCK, SPLIT_AXIS)] + [
        (e, k, v.name_hint or f"a{i}") for i, (v, e, k) in enumerate(t.axes)
    ]
    new = rebuild_tile(t, axes, lambda b: (list(b.args[1:]), []))
    ks = new.body.block.args[0]
    if store.value is not red.res[0]:  # acc + terms: only split 0 adds the terms
        c0 = index_constant(0)
        first = arith.CmpiOp(ks, c0.result, "eq")
        part = arith.SelectOp(first.result, store.value, red.res[0])
        c0.result.name_hint, first.result.name_hint, part.result.name_hint = "c0", "first", "part"
        block = store.parent_block()
        assert block is not None
        block.insert_ops_before([c0, first, part], store)
        store.operands[0] = part.result
    per = trips // splits
    if per == 1:
        red.iv.replace_all_uses_with(ks)
        parent = red.parent_block()
        assert parent is not None
        acc = red.body.block.last_op
        assert isinstance(acc, loop.AccumulateOp)
        for op in list(red.body.block.ops):
            if op is acc:
                continue
            op.detach()
            parent.insert_op_before(op, red)
        Rewriter.replace_op(red, [], [acc.values[0]])
        fold_applies(new)
    else:
        red.properties["extent"] = IntAttr(per)
        rewrite_value(red.body.block, red.iv, ({ks: per, red.iv: 1}, 0), None)
        fold_applies(new)
    atomic = tile.AtomicOp(
        CombineKind.ADD, store.value, store.memref, list(store.indices), store.map.data
    )
    atomic.attributes |= store.attributes
    Rewriter.replace_op(store, atomic)
    mark_zero_init(kernel, [atomic.memref])
    return True, f"K-outer split over {splits} blocks (%ks), {per} trips each{how}"


@dataclass(frozen=True)
class SplitMatmulK(ModulePass):
    """Split a matmul's K-outer loop over blocks that `tile.atomic add` into a zeroed output."""

    name = "split-matmul-k"

    splits: int = tunable(0, (0, 1, 2, 3, 4, 6, 8, 12, 16))
    """The split count; 0 chooses it from the launch model (`split_time`)."""
    sms: int | None = None
    """Automatic: the GPU's multiprocessors (default: the module's #kernel.target's)."""
    blocks_per_sm: int = 3
    """Automatic: the tile's blocks that run at once on one multiprocessor (64 x 64 tiles of
    4 x 4 registers: 3, limited by 80 registers a thread; 128 x 128 of 8 x 8: 1)."""
    atomic_trips: float = 1.5
    """Automatic: the cost of one split's atomic adds, in K-outer trips (of 32: 48 / K per split,
    measured as the gap between split and unsplit launches of equal rounds on an H100)."""
    contention_trips: float = 0.0
    """Automatic: per round, the cost in K-outer trips of each further split of a tile adding
    into the same outputs at the same time (same-address atomic adds wait on each other in L2;
    `adders`). 0 leaves it out (the SIMT tiles' calibration); the tensor-core tiles set theirs
    (schedule_mma.contention_trips)."""
    min_trips: int = 8
    """Automatic: the fewest K-outer trips each split keeps."""
    short_k_splits: int = 0
    """Automatic: a K-outer of fewer than short-k-splits x min-trips trips may still split up to
    this many ways, each keeping 1 / short-k-splits of its trips (`min_split_trips`; 0: never)."""
    tile_elements: int = 64 * 64
    """Automatic: output elements per block when the tile has no block axes yet."""
    sparse_tile: int = 0
    """Automatic: tiles of at most this many output elements left on at most 1 / SPARSE_GRID of
    the SMs also try splits of SPARSE_MIN_TRIPS trips (0: never). The SIMT pipeline of 64 x 64
    and 32 x 32 tiles sets 4096 (schedule_classes.PIPELINES); on the H100, SIMT 128 x 128 tiles
    and wgmma 64 x 64 ones split so ran slower than the plans they displaced (TinyLlama's k/v
    projection at seq 128: 0.270 -> 0.286 ms a layer; 389 x 239 x 896 nt 12.3 -> 13.7 us;
    1024 x 384 -> 128 + mean 9.8 -> 10.5 us), their per-block cost not being modeled."""

    def __post_init__(self):
        check_option(self, "splits", 0)
        check_option(self, "sms", 1)
        check_option(self, "blocks_per_sm", 1)
        check_option(self, "atomic_trips", 0.0)
        check_option(self, "contention_trips", 0.0)
        check_option(self, "min_trips", 1)
        check_option(self, "short_k_splits", 0)
        check_option(self, "tile_elements", 1)
        check_option(self, "sparse_tile", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.sms is None:
            return replace(self, sms=target_sms(None, op)).apply(ctx, op)
        for t in tiles(op):
            where = kernel_name(t)
            done, what = split_k(t, self)
            LOG.info("split-matmul-k: %s%s: %s", "" if done else "declined ", where, what)
