"""pad-matmul: round a matmul tile's ragged M, N and K up to sizes its block tile divides.

A matmul tile fresh from tileify (see `dpl.transforms.tile.matmul`: thread axes only, K not
chunked) whose sizes are not multiples of the block tile (`rows` x `threads` rows, `cols` x
`threads` columns, `k-tile` of K) would get a slow schedule: register-tile declines an M the
register rows do not divide, blockify-launch gives a ragged M or N fewer threads (a 1000 x 1000
output: blocks of 2 x 2 threads), and chunk-matmul-k declines a ragged K (nothing staged per K
step, no split-K, no pipelining). Instead the sizes are rounded up and every access that can
then leave its buffer is marked `{tile.masked = [dims]}` with the dims it can leave along
(reads there give 0, writes there are dropped):

    tile.tile (%m : 1000 = thread, %n : 1000 = thread) {
      %acc = loop.for reduce %k < 1000 -> f32 { x[%m, %k] * w[%k, %n] }
      loop.store %acc, %out[%m, %n]
    }
 -> tile.tile (%m : 1024 = thread, %n : 1024 = thread) {
      %acc = loop.for reduce %k < 1024 -> f32 {
        %a = loop.load %x[%m, %k] {tile.masked = [0, 1]}  %b = loop.load %w[%k, %n] ... }
      loop.store %acc, %out[%m, %n] {tile.masked = [0, 1]}
    }

An M (or N) of E becomes the next multiple of `rows` x `threads`, or for an E below that, `rows`
times the next power of two of E / `rows` (so blockify-launch gives the side whole threads);
a K of more than `k-tile` becomes the next multiple of `k-tile`. The tensor-core pipeline
(schedule_mma.py) pads to its block tile with `rows=bm cols=bn threads=1` and `k-tile=32`.

With `whole-k` W, a ragged K of at most W is instead rounded up only to whole float4s
(`float4_rows`: 79 -> 84) where the block tiles' grid fills every SM (`sms`): chunk-matmul-k then
leaves it whole (no multiple of k-tile) and stage-inputs stages all of it at once, one wait for
its loads where K / k-tile padded steps waited on each in turn (a K of 79 ran 3 steps of 32, 96
padded); rows of whole float4s keep a K-contiguous operand's shared reads 16 bytes wide. A grid
that leaves SMs idle keeps the padded K, whose steps split-matmul-k can spread over blocks (a K
left whole cannot be split). H200 (2026-11-29, session 18, wkab18.py; the schedule's own picks,
padded -> whole, us): 512 x 2741 x 79 tt 13.5 -> 11.7, bmm 21 x 25x1381x101 tt 17.4 -> 15.2,
bmm 64 x 97x739x37 nt 36.2 -> 25.7, 97 x 1201 x 97 tt 7.6 -> 6.7, 1984 x 512 x 47 6.9 -> 6.2;
slower where a block an SM leaves nothing to hide the one wait (linear 256 x 63 -> 2176 + sum,
136 blocks: 8.9 -> 10.4). A K that k-tile divides gains nothing (64: 12.9 -> 15.6 us) and is
chunked.

Meaning is kept: the points added along M and N compute values that no store writes (each store
indexes a dim where M >= E puts the index past the buffer: `out[%m, %n]`, not a flattened
`out[%m * N + %n]`, where a padded `%n` would land in the next row), and their loads are masked, so
they read nothing out of bounds. The K iterations added contribute exactly 0: the accumulated
value is a product with a factor that is a masked load reading past its buffer at every added
`%k` (and sums, differences and negations of such products), the other factors being finite
(inputs with inf or NaN could give NaN where the unpadded sum gives inf).

Declines (logged to `dpl.passes`) a tile that is not a matmul, has block or cell axes or a chunked
K, or whose sizes need no rounding; an M or N side is left as it is when a store does not
index it so, and K when the accumulated value does not vanish past K as above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, tiles
from dpl.transforms.tile.matmul import kernel_name, matmul_info
from dpl.transforms.tile.padding import grow, past_end, ranges_of, vanishes
from dpl.transforms.tile.target import target_sms

K = tile.AxisKind


def padded_size(extent: int, per_thread: int, threads: int) -> int:
    """The size an M / N side of `extent` is rounded to (see the module doc)."""
    q = -(-extent // per_thread)
    if q > threads:
        q = -(-q // threads) * threads
    else:
        q = 1 << (q - 1).bit_length()
    return q * per_thread


def float4_rows(k: int) -> int:
    """A whole K's padded length: the next multiple of 4 whose quarter is odd, so a staged row of
    it holds whole float4s and 8 threads reading a float4 each down a column (rows 4q floats
    apart, q odd) hit 8 different 16-byte bank groups (79 -> 84, 91 -> 92, 45 -> 52)."""
    q = -(-k // 4)
    return 4 * (q + 1 - q % 2)


def pad(t: tile.TileOp, rows: int, cols: int, threads: int, k_tile: int, whole_k: int = 0,
        sms: int = 1) -> tuple[bool, str]:  # fmt: skip
    """Round up the sizes of matmul tile `t`; (whether it did, what it did or why not)."""
    info = matmul_info(t)
    if info is None:
        return False, "not a matmul tile"
    if any(k != K.THREAD for _, _, k in t.axes):
        return False, "the tile already has block or cell axes (run pad-matmul before them)"
    if info.inner is not None:
        return False, "K is already chunked"
    extent = {v: e for v, e, _ in t.axes}
    ranges = ranges_of(t)
    stores = [o for o in t.walk() if isinstance(o, (loop.StoreOp, tile.AtomicOp))]
    new_extent = dict(extent)
    notes = []
    sides = {}  # the fastest M and N axes, and the block tile's side along each
    for axes, per, what in ((info.m_axes, rows, "M"), (info.n_axes, cols, "N")):
        found = [v for v, _, k in t.axes if k == K.THREAD and v in axes]
        if not found:
            continue
        a = found[-1]
        sides[a] = per * threads
        size = padded_size(extent[a], per, threads)
        if size == extent[a]:
            continue
        if not all(past_end(s, a, extent[a], ranges) for s in stores):
            notes.append(f"{what} = {extent[a]} kept: a store does not index it past its buffer")
            continue
        new_extent[a] = size
        notes.append(f"{what} {extent[a]} -> {size}")
    red, k = info.reduce, info.reduce.iv
    kn = red.extent.data
    new_k = kn
    blocks = math.prod(-(-new_extent[v] // sides[v]) if v in sides else e for v, e in new_extent.items())
    if kn > k_tile and kn % k_tile:
        acc = red.body.block.last_op
        assert isinstance(acc, loop.AccumulateOp)
        if not all(vanishes(v, k, kn, ranges) for v in acc.values):
            notes.append(f"K = {kn} kept: the product does not vanish past K (a masked factor)")
        elif kn <= whole_k and blocks >= sms:
            new_k = float4_rows(kn)
            notes.append(f"K {kn} -> {new_k}, whole ({blocks} blocks fill {sms} SMs: staged at once)")
        else:
            new_k = -(-kn // k_tile) * k_tile
            notes.append(f"K {kn} -> {new_k}")
    if new_extent == extent and new_k == kn:
        return False, "; ".join(notes) or "the sizes need no rounding"
    _, masked = grow(t, new_extent, {red: new_k})
    return True, "; ".join(notes) + f"; {masked} accesses masked"


@dataclass(frozen=True)
class PadMatmul(ModulePass):
    """Round a matmul tile's ragged M, N, K up to its block tile; mask the accesses past the end."""

    name = "pad-matmul"

    rows: int = 4
    """Register rows per thread (register-tile's `rows`)."""
    cols: int = 4
    """Register columns per thread (register-tile's `cols`)."""
    threads: int = 16
    """Threads per side of the block tile (blockify-launch: 16 x 16 of 256)."""
    k_tile: int = 32
    """chunk-matmul-k's `k-tile`."""
    whole_k: int = 0
    """A ragged K of at most this many is rounded up only to whole float4s (`float4_rows`) and
    left unchunked, staged at once, where the grid fills every SM; 0: K is always rounded up to
    `k-tile`."""
    sms: int | None = None
    """The GPU's multiprocessors, for `whole-k` (default: the module's target's)."""

    def __post_init__(self):
        for option in ("rows", "cols", "threads", "k_tile", "sms"):
            check_option(self, option, 1)
        check_option(self, "whole_k", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sms = target_sms(self.sms, op)
        for t in tiles(op):
            where = kernel_name(t)
            done, what = pad(t, self.rows, self.cols, self.threads, self.k_tile, self.whole_k, sms)
            LOG.info("pad-matmul: %s%s: %s", "" if done else "declined ", where, what)
