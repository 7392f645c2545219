"""NumPy reference executor for tile-level programs.

A tile-level program is a loop-level one (`func.func @main` with memrefs, `memref.alloc`,
kernels in order, `func.return`) whose kernels may be `tile.kernel`s; remaining `loop.kernel`s
run on the loop executor. A tile kernel runs vectorised like `exec_loop`: every `tile.tile` axis
(block, thread and cell alike) is one NumPy axis, and so is every loop nested inside, so a value
is an array broadcastable over (tile axes..., loop axes...).

Semantics kept faithfully:
- `tile.strided_for %i = %s to N step S` runs, per thread, i = s, s + S, ... < N. It is one
  NumPy axis of extent ceil((N - min s) / S); iterations past the bound are masked off: their
  loads read nothing meaningful, their stores are dropped and reduce loops fold the combiner's
  identity in their place.
- `tile.stage` copies the slab (origin + slab dims, per block) into a buffer, and loads of the
  stage read that copy; a read outside the slab gives NaN, so a wrong stage shows in any
  comparison. `buffers N at %k` keeps N slots: iteration k of the loop `%k` fills slot k mod N,
  and a slot holds the latest fill at or before the current iteration (NaN before its first), so
  a load of the wrong slot reads stale data or NaN; a slot index out of range is an error.
  `pad` (extra elements in the physical layout), `async` / `tma` (how the copy is done) and
  `swizzle` (the physical TMA layout) do not change what a load at an index reads, so they are
  not modelled beyond the verifier's checks.
- `tile.hold` loads each thread's elements (index + j * step on the held dim, j < count) into
  an array of its own, read like a stage: outside the source along a masked dim an element is
  0, along another NaN.
- `tile.combine` folds each partial over the listed thread axes; every thread of them sees it.
- `tile.atomic` folds each value into the output element (duplicates accumulate), once per point
  of the axes its value and indices depend on (a block's combined partial: once per block).
- `{tile.masked = [dims]}` on a load, store, atomic or stage: an index outside the buffer along
  those dims reads 0 (a load, a stage's fill) or is not written (a store, an atomic); outside
  along another dim a load or store is an error, and a stage's fill gives NaN.
- `mma.stage` / `mma.dot` (tensor-core tiles): exec_tile_mma.py.
- `attn.flash` (one block's attention): exec_tile_attn.py.
- `{tile.zero_init = [i, ...]}` on a kernel (split-matmul-k, split-reduce) starts those outs at
  their atomics' identity (0 for add, -inf for max, inf for min) before it runs, as the runtime
  must.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import affine
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from dpl.interpreters import exec_loop
from dpl.interpreters.exec_tile_attn import TileAttnMixin
from dpl.interpreters.exec_tile_mma import TileMmaMixin
from dpl.interpreters.affine_np import eval_map
from dpl.interpreters.scalar_eval import eval_op, is_scalar_op
from dpl.dialects import loop, tile

_REDUCERS = {
    loop.CombineKind.ADD: np.sum,
    loop.CombineKind.MUL: np.prod,
    loop.CombineKind.MAX: np.max,
    loop.CombineKind.MIN: np.min,
}


def run(module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run `@main` on `inputs` (one array per argument); return its results."""
    return exec_loop.run(module, inputs, {tile.KernelOp: run_kernel})


def _loop_depth(block: Block) -> int:
    depth = 0
    for op in block.ops:
        for region in op.regions:
            for inner in region.blocks:
                nested = isinstance(op, (loop.ForOp, tile.StridedForOp))
                depth = max(depth, _loop_depth(inner) + nested)
    return depth


def run_kernel(kernel: tile.KernelOp, env: dict[SSAValue, np.ndarray]) -> None:
    for i in _zero_init(kernel):  # split-K / split-reduce: atomics fold into outs that start at
        out = kernel.outs[i]  # the identity of their combiner (0 for add, -inf for max)
        kinds = {o.kind.data for o in kernel.walk() if isinstance(o, tile.AtomicOp) and o.memref is out}
        env[out][...] = exec_loop.identity_of(kinds.pop(), env[out].dtype) if len(kinds) == 1 else 0
    t = kernel.tile
    rank = len(t.axes) + _loop_depth(t.body.block)
    _TileNest(rank, env).kernel(kernel)


def _zero_init(kernel: tile.KernelOp) -> list[int]:
    """Positions of the outs `{tile.zero_init = [...]}` asks to be zeroed before the launch."""
    attr = kernel.attributes.get("tile.zero_init")
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.value.data for a in attr if isinstance(a, IntegerAttr)]


def read_within(src: np.ndarray, arrays: Sequence[np.ndarray], masked: Sequence[int]) -> np.ndarray:
    """`src` at the index arrays (one per dim, of one shape), as a stage's fill or a hold reads
    it: 0 where outside along a `masked` dim (the lowering's `in ? x[..] : 0`), else NaN outside."""
    inside = np.ones(arrays[0].shape, bool)
    for a, size in zip(arrays, src.shape):
        inside &= (a >= 0) & (a < size)
    clipped = tuple(np.where(inside, a, 0) for a in arrays)
    data = np.where(inside, src[clipped], np.nan).astype(src.dtype)
    for d in masked:
        data[(arrays[d] < 0) | (arrays[d] >= src.shape[d])] = 0
    return data


class _TileNest(TileMmaMixin, TileAttnMixin):
    def __init__(self, rank: int, env: dict[SSAValue, np.ndarray]):
        self.rank = rank
        self.env = env
        self.extents = [1] * rank
        self.axis_of: dict[SSAValue, int] = {}
        self.active: np.ndarray | None = None  # mask of live strided iterations
        self.stages: dict[SSAValue, tuple[np.ndarray, int]] = {}  # value -> (array, slot dims)
        self.mma_stages: dict[SSAValue, np.ndarray] = {}  # mma.stage -> (nest dims..., R, K)

    def nested(self, block: Block, rows: int, cols: int) -> _TileNest:
        """A nest of rank + 2 for a region run per (row, col) of a rows x cols tile (mma.stage,
        attn.flash): the values `block` reads from this nest, non-memrefs given two unit dims."""
        sub = type(self)(self.rank + 2, {})
        sub.extents = list(self.extents) + [rows, cols]
        for v in {o for inner in block.walk() for o in inner.operands}:
            if v in self.env:
                value = self.env[v]
                if isinstance(v.type, MemRefType):
                    sub.env[v] = value
                else:
                    a = np.asarray(value)
                    sub.env[v] = a.reshape(a.shape + (1, 1)) if a.ndim == self.rank else a
        return sub

    def full(self, value) -> np.ndarray:
        array = np.asarray(value)
        if array.ndim == 0:
            return array.reshape((1,) * self.rank)
        return array

    def kernel(self, kernel: tile.KernelOp) -> None:
        for op in kernel.body.block.ops:
            if isinstance(op, tile.TileOp):
                for d, (arg, extent, _) in enumerate(op.axes):
                    shape = [1] * self.rank
                    shape[d] = extent
                    self.extents[d] = extent
                    self.env[arg] = np.arange(extent).reshape(shape)
                    self.axis_of[arg] = d
                self.block(op.body.block, len(op.axes))
            else:
                self.op(op, 0)

    def block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.op(op, depth)

    def _mask_index(self, idx: list) -> list:
        if self.active is None:
            return idx
        return [np.where(self.active, i, 0) for i in idx]

    def op(self, op: Operation, depth: int) -> None:
        env = self.env
        if isinstance(op, loop.ForOp):
            extent = op.extent.data
            shape = [1] * self.rank
            shape[depth] = extent
            self.extents[depth] = extent
            env[op.iv] = np.arange(extent).reshape(shape)
            self.block(op.body.block, depth + 1)
            if op.is_reduce:
                self._fold(op, depth, extent, None)
            self.extents[depth] = 1
        elif isinstance(op, tile.StridedForOp):
            start = np.asarray(env[op.start])
            bound, step = op.bound.data, op.step.data
            lo = int(start.min()) if start.size else 0
            trips = max(0, -(-(bound - lo) // step))
            shape = [1] * self.rank
            shape[depth] = max(trips, 1)
            self.extents[depth] = shape[depth]
            iv = self.full(start) + step * np.arange(shape[depth]).reshape(shape)
            mask = iv < bound
            if trips == 0:
                mask = np.zeros_like(mask)
            outer = self.active
            self.active = mask if outer is None else (mask & outer)
            env[op.iv] = np.where(self.active, iv, 0)
            self.block(op.body.block, depth + 1)
            if op.is_reduce:
                self._fold(op, depth, shape[depth], self.active)
            self.active = outer
            self.extents[depth] = 1
        elif isinstance(op, loop.LoadOp):
            idx = self._mask_index(eval_map(op.map.data, [env[i] for i in op.indices]))
            if op.memref in self.stages:
                env[op.result] = self._load_stage(op.memref, idx)
            elif tile.is_masked(op):
                buf = env[op.memref]
                inside, idx = _inside(idx, buf.shape, tile.masked_dims(op), self.active)
                env[op.result] = self.full(np.where(inside, buf[tuple(idx)], 0).astype(buf.dtype))
            else:
                env[op.result] = self.full(env[op.memref][tuple(idx)])
        elif isinstance(op, loop.StoreOp):
            idx = eval_map(op.map.data, [env[i] for i in op.indices])
            self._write(op.memref, env[op.value], idx, None, tile.masked_dims(op))
        elif isinstance(op, tile.AtomicOp):
            idx = eval_map(op.map.data, [env[i] for i in op.indices])
            self._write(op.memref, env[op.value], idx, exec_loop.UFUNCS[op.kind.data], tile.masked_dims(op))
        elif isinstance(op, tile.StageOp):
            self._stage(op)
        elif isinstance(op, tile.HoldOp):
            self._hold(op)
        elif isinstance(op, tile.CombineOp):
            axes = tuple(self.axis_of[a] for a in op.axes)
            for result, partial in zip(op.res, op.values):
                value = self.full(env[partial])
                target = list(value.shape)
                for a in axes:
                    target[a] = self.extents[a]
                env[result] = _REDUCERS[op.kind.data](
                    np.broadcast_to(value, target), axis=axes, keepdims=True
                )
        elif isinstance(op, affine.ApplyOp):
            env[op.result] = self.full(eval_map(op.map.data, [env[v] for v in op.mapOperands])[0])
        elif isinstance(op, (loop.YieldOp, loop.AccumulateOp)):
            pass
        elif self.mma_op(op) or self.attn_op(op):
            pass
        elif is_scalar_op(op):
            for result, value in zip(op.results, eval_op(op, [env[o] for o in op.operands])):
                env[result] = self.full(value)
        else:
            raise ValueError(f"the tile executor does not know '{op.name}'")

    def _fold(self, op, depth: int, count: int, mask: np.ndarray | None) -> None:
        acc = op.body.block.last_op
        assert isinstance(acc, loop.AccumulateOp)
        for result, kind, value in zip(op.res, acc.kinds, acc.values):
            v = self.full(self.env[value])
            target = list(np.broadcast_shapes(v.shape, mask.shape if mask is not None else ()))
            target[depth] = count
            v = np.broadcast_to(v, target)
            if mask is not None:
                v = np.where(mask, v, exec_loop.identity_of(kind.data, v.dtype))
            self.env[result] = _REDUCERS[kind.data](v, axis=depth, keepdims=True)

    def _write(self, buf: SSAValue, value, idx: list, ufunc, masked: Sequence[int] = ()) -> None:
        target = self.env[buf]
        if not idx and ufunc is None:  # a rank-0 buffer holds one element
            target[()] = np.asarray(value).reshape(-1)[-1]
            return
        if not idx:  # an atomic into a rank-0 buffer: each block's value folds in, as below
            target = target.reshape(1)  # (a view of the buffer)
            idx = [np.zeros((), dtype=np.int64)]
        live_mask = self.active
        if masked:  # elements outside the buffer along the masked dims are not written
            inside, _ = _inside([self.full(i) for i in idx], target.shape, masked, live_mask)
            live_mask = inside if live_mask is None else (inside & live_mask)
        parts = [self.full(value), *[self.full(i) for i in idx]]
        if live_mask is not None:
            parts.append(live_mask)
        arrays = np.broadcast_arrays(*parts)
        if live_mask is not None:
            live = arrays[-1]
            arrays = [a[live] for a in arrays[:-1]]
        where = tuple(arrays[1:])
        if ufunc is None:
            target[where] = arrays[0]
        else:
            ufunc.at(target, where, arrays[0])

    def _stage(self, op: tile.StageOp) -> None:
        """Copy the slab of every block into a stage array: (nest dims..., slab dims...)."""
        src = self.env[op.source]
        origin = [self.full(o) for o in eval_map(op.origin.data, [self.env[v] for v in op.origin_operands])]
        slab = [(d.extent.data, d.dim.data) for d in op.slab]
        n = len(slab)
        nest_shape = np.broadcast_shapes(*[o.shape for o in origin], (1,) * self.rank)
        src_idx = [o.reshape(o.shape + (1,) * n) for o in origin]
        # slab dims on one source dim: the earlier more significant
        for k, (extent, dim) in enumerate(slab):
            stride = 1
            for extent2, dim2 in slab[k + 1 :]:
                if dim2 == dim:
                    stride *= extent2
            shape = [1] * (self.rank + n)
            shape[self.rank + k] = extent
            src_idx[dim] = src_idx[dim] + stride * np.arange(extent).reshape(shape)
        full_shape = tuple(nest_shape) + tuple(e for e, _ in slab)
        arrays = np.broadcast_arrays(*src_idx, np.zeros(full_shape, bool))[:-1]
        data = read_within(src, arrays, tile.masked_dims(op))
        if op.buffers is not None:
            assert op.buffer_loop is not None
            data = self._slots(data, op.buffers.data, np.asarray(self.env[op.buffer_loop]))
        self.stages[op.result] = (data, 1 if op.buffers is not None else 0)

    def _hold(self, op: tile.HoldOp) -> None:
        """Each nest point's held elements: (nest dims..., count), read like a stage."""
        src = self.env[op.source]
        n = op.count
        idx = [self.full(i) for i in eval_map(op.map.data, [self.env[v] for v in op.indices])]
        idx = [np.asarray(i).reshape(np.shape(i) + (1,)) for i in idx]
        idx[op.held_dim] = idx[op.held_dim] + op.step.data * np.arange(n).reshape((1,) * self.rank + (n,))
        self.stages[op.result] = (read_within(src, np.broadcast_arrays(*idx), tile.masked_dims(op)), 0)

    def _slots(self, data: np.ndarray, n: int, k: np.ndarray) -> np.ndarray:
        """The N slots of a buffered stage along its loop: (nest dims..., N, slab dims...).

        Iteration k of the loop fills slot k mod N; at iteration k slot s holds the fill of the
        latest k' <= k with k' mod N == s, or NaN when there is none yet."""
        ax = next((d for d, size in enumerate(k.shape) if size > 1), None)
        count = 1 if ax is None else k.shape[ax]
        nest = list(data.shape[: self.rank])
        if ax is not None:
            nest[ax] = count
        data = np.broadcast_to(data, tuple(nest) + data.shape[self.rank :])
        it = np.arange(count)
        slots = []
        for s in range(n):
            if ax is None:  # a one-trip loop: only slot 0 is ever filled
                slots.append(data if s == 0 else np.full_like(data, np.nan))
                continue
            fill = it - (it - s) % n  # the latest iteration <= it that filled slot s
            taken = np.take(data, np.clip(fill, 0, None), axis=ax)
            shape = [1] * data.ndim
            shape[ax] = count
            slots.append(np.where((fill >= 0).reshape(shape), taken, np.nan))
        return np.stack(slots, axis=self.rank)

    def _load_stage(self, stage: SSAValue, idx: list) -> np.ndarray:
        data, slots = self.stages[stage]
        if slots:
            slot = np.asarray(idx[0])
            assert isinstance(stage.type, MemRefType)
            if ((slot < 0) | (slot >= stage.type.get_shape()[0])).any():
                raise ValueError("a load reads a stage slot out of range")
        n = len(idx)
        nest_shape = data.shape[: self.rank]
        slab_shape = data.shape[self.rank :]
        grids = []
        for d, size in enumerate(nest_shape):
            shape = [1] * self.rank
            shape[d] = size
            grids.append(np.arange(size).reshape(shape) if size > 1 else np.zeros(shape, int))
        idx = [self.full(i) for i in idx]
        parts = np.broadcast_arrays(*grids, *idx)
        inside = np.ones(parts[0].shape, bool)
        for a, size in zip(parts[self.rank :], slab_shape):
            inside &= (a >= 0) & (a < size)
        assert n == len(slab_shape)
        clipped = [np.where(inside, a, 0) for a in parts]
        return np.where(inside, data[tuple(clipped)], np.nan).astype(data.dtype)


def _inside(idx: list, shape: Sequence[int], dims: Sequence[int], active) -> tuple[np.ndarray, list]:
    """Where the indices `idx` fall inside a buffer of `shape` along `dims` (the masked ones),
    and the indices clipped into it; an index outside along another dim (where `active`) is an
    error."""
    arrays = np.broadcast_arrays(*[np.asarray(i) for i in idx])
    inside = np.ones(arrays[0].shape, bool)
    for d in dims:
        inside &= (arrays[d] >= 0) & (arrays[d] < shape[d])
    live = inside if active is None else (inside & active)
    for d, (a, size) in enumerate(zip(arrays, shape)):
        bad, where = np.broadcast_arrays((a < 0) | (a >= size), live)
        if d not in dims and bad[where].any():
            raise ValueError(f"a masked access leaves its buffer along dim {d}, not in tile.masked")
    return inside, [np.where(inside, a, 0) for a in arrays]
