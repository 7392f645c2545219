"""The tile executor's attention op (`attn.flash`): a mixin of exec_tile's `_TileNest`.

Every block at once: each region is evaluated over all its points with two NumPy axes appended
after the nest's (query: rows x depth, key: keys x depth, value: keys x value depth, score:
rows x keys, output: rows x value depth), outer values broadcast along them. The scores are the
query and key rows contracted in the op's precision (`tf32.contract`: 3xtf32 as the tensor cores
run it, ieee in float64 rounded once), the softmax over the keys and its product with the
values are taken in float64. Query rows at or past `queries` (the last block's padding) are
read clamped to the last row and never stored. A split (split-KV) masks the keys outside its range
to -inf; a row left without a finite score gets 0 as its output and -inf as its log-sum-exp (the
`lse` region's value).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, Region

from dpl.dialects import attn
from dpl.interpreters.tf32 import contract


class TileAttnMixin:
    """The handler of `attn.flash`; `attn_op` returns False for other ops."""

    def attn_op(self, op: Operation) -> bool:
        if isinstance(op, attn.FlashOp):
            self.attn_flash(op)
        elif isinstance(op, attn.YieldOp):
            pass
        else:
            return False
        return True

    def _attn_region(self, region: Region, args: list, mask=None) -> "object":
        """Run `region` with its arguments bound to `args` (arrays of rank + 2); the sub-nest."""
        rank = self.rank
        block = region.block
        sub = self.nested(block, 1, 1)
        for a, value in zip(block.args, args):
            sub.env[a] = value
        sub.active = mask
        for inner in block.ops:
            if not isinstance(inner, attn.YieldOp):
                sub.op(inner, rank + 2)
        return sub

    def attn_flash(self, op: attn.FlashOp) -> None:
        rank = self.rank
        R, L, S = op.size("rows"), op.size("queries"), op.size("keys")
        D, DV = op.size("depth"), op.size("value_depth")

        def axes(n0: int, n1: int) -> tuple[np.ndarray, np.ndarray]:
            a = np.arange(n0).reshape((1,) * rank + (n0, 1))
            b = np.arange(n1).reshape((1,) * rank + (1, n1))
            return a, b

        l0 = np.asarray(self.env[op.first_row])
        l0 = l0.reshape(l0.shape + (1, 1)) if l0.ndim == rank else l0.reshape((1,) * (rank + 2))
        r, c = axes(R, D)
        rows = l0 + r
        clamped = np.minimum(rows, L - 1)

        def value(region_name: str, args: list) -> np.ndarray:
            region = op.region(region_name)
            sub = self._attn_region(region, args)
            return np.asarray(sub.env[op.yielded(region_name)], np.float64)

        q = value("query", [clamped, c])
        s, ck = axes(S, D)
        k = value("key", [s, ck])
        s2, cv = axes(S, DV)
        v = value("value", [s2, cv])
        shape = np.broadcast_shapes(q.shape[:rank], k.shape[:rank], v.shape[:rank])
        q = np.broadcast_to(q, shape + (R, D))
        k = np.broadcast_to(k, shape + (S, D))
        v = np.broadcast_to(v, shape + (S, DV))
        x = contract(q[..., :, None, :].astype(np.float32), k[..., None, :, :].astype(np.float32),
                     op.precision.data.value)  # fmt: skip
        _, ks = axes(R, S)
        y = value("score", [np.asarray(x, np.float32), clamped[..., :1], ks])
        y = np.broadcast_to(y, np.broadcast_shapes(y.shape, shape + (R, S)))
        if op.split is not None and op.split_keys is not None:  # keys outside the split: -inf
            sp = np.asarray(self.env[op.split])
            sp = sp.reshape(sp.shape + (1, 1)) if sp.ndim == rank else sp.reshape((1,) * (rank + 2))
            first = sp * op.split_keys.data
            y = np.where((ks >= first) & (ks < first + op.split_keys.data), y, -np.inf)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            m = y.max(axis=-1, keepdims=True)
            if op.split is not None:
                m = np.where(np.isfinite(m), m, 0.0)
            e = np.exp(y - m)
            total = e.sum(axis=-1, keepdims=True)
            o = (e @ np.broadcast_to(v, y.shape[:-2] + (S, DV))) / total
            if op.split is not None:
                o = np.where(total > 0, o, 0.0)
                lse = np.where(total > 0, m + np.log(total), -np.inf)
        _, co = axes(R, DV)
        out_rows = (l0 + axes(R, 1)[0])
        self._attn_region(op.output, [o.astype(np.float32), out_rows, co], mask=out_rows < L)
        if op.lse is not None:
            self._attn_region(op.lse, [lse.astype(np.float32), out_rows], mask=out_rows < L)
