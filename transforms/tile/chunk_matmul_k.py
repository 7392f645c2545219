"""chunk-matmul-k: split a matmul's K reduce into a K-outer loop holding a K-inner loop.

In a matmul tile (see `dpl.transforms.tile.matmul`), the top-level reduce

    %acc = loop.for reduce %k < K -> f32 { ...x[%m, %k]... w[%k, %n]... }

becomes

    %acc = loop.for reduce %ko < K/kt -> f32 {
      %p = loop.for reduce %ki < kt -> f32 { ...x[%m, %ko * kt + %ki]... }
      loop.accumulate add %p : f32
    }

so that stage-inputs can stage one [rows x kt] / [kt x cols] slab of A and B per K-outer
iteration (and the double-buffer / pipeline passes can overlap those fills). Meaning is kept: the
sum over k is the same sum regrouped (exactly so in exact arithmetic; the summation order is
unchanged, k still runs 0..K-1 in order).

A floordiv / mod index over k is simplified with the loop bounds (`common.simplify_index`):
attention's head-major output read by the o-projection, `[k floordiv 128, k mod 128]`, becomes
`[%ko floordiv 4, %ko mod 4 * 32 + %ki]` at kt = 32, block-uniform per K-outer step plus %ki,
so stage-inputs can stage it too.

Declines (logged to `dpl.passes`) a tile that is not a matmul, whose K is already chunked, or whose
K is smaller than, equal to, or not a multiple of, `k-tile`. K equal to one k-tile is left as it
is: one K-outer trip would only give double-buffer a second slab to allocate and nothing to
overlap (a batched x.T @ w over K = 32 then held fewer blocks per SM and ran in two waves).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import IterKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.matmul import for_each_tile, matmul_info, rewrite_value
from dpl.transforms.tunable import tunable


def chunk_k(t: tile.TileOp, kt: int) -> str | None:
    """Chunk the K reduce of matmul tile `t` by `kt`; the reason it declined, or None."""
    info = matmul_info(t)
    if info is None:
        return "not a matmul tile (one K reduce over A[M, K] and B[K, N])"
    if info.inner is not None:
        return "K is already chunked"
    red = info.reduce
    k = red.extent.data
    if k < kt:
        return f"K = {k} is smaller than k-tile {kt}"
    if k == kt:
        return f"K = {k} is one k-tile: nothing to chunk (stage-inputs stages it once)"
    if k % kt:
        return f"K = {k} is not a multiple of k-tile {kt}"
    types = [r.type for r in red.res]
    acc = red.body.block.last_op
    assert isinstance(acc, loop.AccumulateOp)
    kinds = [kind.data for kind in acc.kinds]
    inner = loop.ForOp(IterKind.REDUCE, kt, red.detach_region(red.body), types)
    outer_body = Block(arg_types=[IndexType()])
    outer_body.add_op(inner)
    outer_body.add_op(loop.AccumulateOp(kinds, list(inner.res)))
    outer = loop.ForOp(IterKind.REDUCE, k // kt, outer_body, types)
    outer.attributes |= red.attributes
    ko, ki = outer.iv, inner.iv
    ko.name_hint, ki.name_hint = "ko", "ki"
    for old, new_in, new_out in zip(red.res, inner.res, outer.res):
        new_in.name_hint = (old.name_hint or "acc") + "_k"
        new_out.name_hint = old.name_hint
    Rewriter.replace_op(red, outer)
    rewrite_value(inner.body.block, ki, ({ko: kt, ki: 1}, 0), None)
    return None


@dataclass(frozen=True)
class ChunkMatmulK(ModulePass):
    """Split a matmul tile's K reduce into K-outer (K / k-tile) and K-inner (k-tile) loops."""

    name = "chunk-matmul-k"

    k_tile: int = tunable(32, (8, 16, 32, 64))

    def __post_init__(self):
        check_option(self, "k_tile", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: chunk_k(t, self.k_tile)):
            if reason is None:
                LOG.info("chunk-matmul-k: %s: K chunked by %d", where, self.k_tile)
            else:
                LOG.info("chunk-matmul-k: declined %s: %s", where, reason)
