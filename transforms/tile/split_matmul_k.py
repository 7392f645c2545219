"""split-matmul-k: spread a matmul's K-outer loop over `splits` blocks that add into the output.

After chunk-matmul-k, a matmul tile whose epilogue is a plain store of the accumulator

    %acc = loop.for reduce %ko < KO -> f32 { ...%ko... }
    loop.store %acc, %out[...]

gets a new block axis `%ks : splits = block` (placed first, so it varies slowest); the K-outer loop
runs KO / splits trips with `%ko -> %ks * (KO / splits) + %ko` (when KO == splits the loop goes
and `%ko -> %ks`), and each block adds its partial sum into the output:

    tile.atomic add %acc, %out[...]

so a small M x N with a long K still fills the GPU. Runtime contract: the output must start at 0
(the identity of add). The kernel is marked `{tile.zero_init = [i, ...]}` with the positions of
the outs written this way; the materializer / runtime must zero those buffers before the launch
(cudaMemsetAsync on the launch stream), and the NumPy executor (exec_tile) does the same. The
partial sums are added in an unspecified order, so results can differ from the sequential sum by
rounding (in float64 tests, within 1e-10).

Declines (logged to `dpl.passes`) a tile that is not a matmul, whose K is not chunked, that
already holds stages (run before stage-inputs), whose K-outer trip count is not a multiple of
`splits` (or `splits` < 2), or whose epilogue is not a plain store of the accumulator (a bias add,
a relu: those do not distribute over the partial sums).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerAttr, ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.tile.common import LOG, rebuild_tile
from dpl.transforms.tile.matmul import fold_applies, for_each_tile, matmul_info, rewrite_value

ZERO_INIT = "tile.zero_init"
"""Kernel attribute: positions of the outs that must be zeroed before the launch."""


def zero_init_outs(kernel: tile.KernelOp) -> list[int]:
    """The out positions a kernel needs zeroed before its launch (split-matmul-k's atomics)."""
    attr = kernel.attributes.get(ZERO_INIT)
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.value.data for a in attr if isinstance(a, IntegerAttr)]


def split_k(t: tile.TileOp, splits: int) -> str | None:
    info = matmul_info(t)
    if info is None:
        return "not a matmul tile"
    if info.inner is None:
        return "K is not chunked (run chunk-matmul-k first)"
    if any(isinstance(o, tile.StageOp) for o in t.walk()):
        return "the tile already holds stages (run split-matmul-k before stage-inputs)"
    red = info.reduce
    trips = red.extent.data
    if splits < 2 or trips % splits:
        return f"K-outer of {trips} trips is not a multiple of splits = {splits} (>= 2)"
    uses = [u for r in red.res for u in r.uses]
    if len(red.res) != 1 or len(uses) != 1:
        return "the accumulator is not used exactly once"
    store = uses[0].operation
    if not isinstance(store, loop.StoreOp) or store.value is not red.res[0] or store.parent_op() is not t:
        return "the epilogue is not a plain store of the accumulator"
    kernel = t.parent_op()
    assert isinstance(kernel, tile.KernelOp)
    axes = [(splits, tile.AxisKind.BLOCK, "ks")] + [
        (e, k, v.name_hint or f"a{i}") for i, (v, e, k) in enumerate(t.axes)
    ]
    new = rebuild_tile(t, axes, lambda b: (list(b.args[1:]), []))
    ks = new.body.block.args[0]
    per = trips // splits
    if per == 1:
        red.iv.replace_all_uses_with(ks)
        parent = red.parent_block()
        assert parent is not None
        acc = red.body.block.last_op
        assert isinstance(acc, loop.AccumulateOp)
        value = acc.values[0]
        for op in list(red.body.block.ops):
            if op is acc:
                continue
            op.detach()
            parent.insert_op_before(op, red)
        red.res[0].replace_all_uses_with(value)
        red.detach()
        red.erase()
        fold_applies(new)
    else:
        red.properties["extent"] = IntAttr(per)
        rewrite_value(red.body.block, red.iv, ({ks: per, red.iv: 1}, 0), None)
        fold_applies(new)
    atomic = tile.AtomicOp(CombineKind.ADD, store.value, store.memref, list(store.indices), store.map.data)
    atomic.attributes |= store.attributes
    block = store.parent_block()
    assert block is not None
    block.insert_op_before(atomic, store)
    store.detach()
    store.erase()
    outs = list(kernel.outs)
    marked = sorted(set(zero_init_outs(kernel)) | {outs.index(atomic.memref)})
    kernel.attributes[ZERO_INIT] = ArrayAttr([IntegerAttr(i, 64) for i in marked])
    return None


@dataclass(frozen=True)
class SplitMatmulK(ModulePass):
    """Split a matmul's K-outer loop over `splits` blocks that `tile.atomic add` into a zeroed output."""

    name = "split-matmul-k"

    splits: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: split_k(t, self.splits)):
            if reason is None:
                LOG.info("split-matmul-k: %s: K split over %d blocks", where, self.splits)
            else:
                LOG.info("split-matmul-k: declined %s: %s", where, reason)
