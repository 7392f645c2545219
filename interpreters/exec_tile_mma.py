"""The tile executor's tensor-core ops (mma dialect, tile level): a mixin of exec_tile's
`_TileNest`.

- `mma.stage rows R k K {region}` evaluates the region over every (row, k) of the slab at once:
  two NumPy axes are appended after the nest's, the outer values it uses are broadcast along
  them, and the yielded value becomes the slab (nest dims..., R, K), per block and K step.
- `mma.dot %a[row], %b[col]` gathers row `row` of slab a and `col` of slab b at every point and
  contracts them over K with `tf32.contract` in the op's precision and chains of its `promote`
  steps (3xtf32: per chain lo*hi and hi*lo of each K step of 8, then hi*hi, each MMA rounding
  toward zero; the chains added in f32), so the tile level computes what the tensor cores
  will, to the last bit or so. A row outside the slab reads NaN.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from dpl.dialects import mma
from dpl.interpreters.affine_np import eval_map
from dpl.interpreters.tf32 import contract


class TileMmaMixin:
    """Handlers for `mma.stage` / `mma.dot`; `mma_op` returns False for other ops."""

    def mma_op(self, op: Operation) -> bool:
        if isinstance(op, mma.StageOp):
            self.mma_stage(op)
        elif isinstance(op, mma.DotOp):
            self.mma_dot(op)
        else:
            return False
        return True

    def mma_stage(self, op: mma.StageOp) -> None:
        rank = self.rank
        block = op.body.block
        sub = self.nested(block, op.rows, op.k)
        r, c = block.args
        sub.env[r] = np.arange(op.rows).reshape((1,) * rank + (op.rows, 1))
        sub.env[c] = np.arange(op.k).reshape((1,) * rank + (1, op.k))
        for inner in block.ops:
            if isinstance(inner, mma.StageYieldOp):
                continue
            if inner.regions:
                raise ValueError(f"the tile executor does not run '{inner.name}' in an 'mma.stage'")
            sub.op(inner, rank + 2)
        value = np.asarray(sub.env[op.value], np.float32)
        if value.ndim < rank + 2:
            value = value.reshape((1,) * (rank + 2 - value.ndim) + value.shape)
        shape = tuple(value.shape[:rank]) + (op.rows, op.k)
        self.mma_stages[op.result] = np.broadcast_to(value, shape)

    def _rows(self, stage, amap, operands) -> np.ndarray:
        data = self.mma_stages[stage]
        row = np.asarray(eval_map(amap, [self.env[v] for v in operands])[0])
        row = row.reshape(row.shape + (1,) * (self.rank - row.ndim)) if row.ndim else row.reshape((1,) * self.rank)
        nest = data.shape[: self.rank]
        grids = []
        for d, size in enumerate(nest):
            shape = [1] * self.rank
            shape[d] = size
            grids.append(np.arange(size).reshape(shape) if size > 1 else np.zeros(shape, int))
        parts = list(np.broadcast_arrays(*grids, row))
        inside = (parts[-1] >= 0) & (parts[-1] < data.shape[self.rank])
        parts[-1] = np.where(inside, parts[-1], 0)
        got = data[tuple(parts)]
        return np.where(inside[..., None], got, np.nan).astype(np.float32)

    def mma_dot(self, op: mma.DotOp) -> None:
        a = self._rows(op.a, op.a_map.data, op.a_indices)
        b = self._rows(op.b, op.b_map.data, op.b_indices)
        self.env[op.result] = contract(a, b, op.precision.data.value, promote=op.chain)
