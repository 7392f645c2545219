"""The kernel executor's tensor-core ops (the mma dialect): a mixin of exec_kernel's `_Grid`.

Values are arrays over every thread of the grid, as in exec_kernel. The ops:

- `mma.tf32`: round_tf32 (cvt.rna) per thread.
- `mma.sync m16n8k8`: every warp gathers its lanes' fragments into A (16x8), B (8x8, [n][k]) and
  C (16x8), computes C + A B^T with `tf32.mma_tf32` and hands D back in the fragment layout.
  A warp only part of whose lanes execute it is an error (the instruction is warp-wide).
- `mma.wgmma m64nNk8`: every warpgroup (128 consecutive threads) reads A (64x8) and B (Nx8) from
  its block's shared buffers at the origin its threads name (the same for all of them, rows and
  columns multiples of 8, in bounds) and adds A B^T into the accumulator fragments of its
  threads' register arrays at once (`overwrite`: stores it there).
- `mma.wgmma_rs m64nNk8`: the same with A gathered from the warpgroup's fragment values (warp w's
  rows 16 w .. 16 w + 15 in the mma.sync A layout).

Both MMAs round the sum into the accumulators toward zero (`tf32.mma_tf32`), as the tensor cores
do: a lowering whose accumulator chains run long fails its meaning checks here.

The asynchrony the hardware has is checked rather than simulated (with race checks on):
- `mma.wgmma` needs an `mma.wgmma_fence` of its warpgroup since the accumulators were last
  read or written by anything else (and before the first);
- a group is pending from its `mma.wgmma` until an `mma.wgmma_wait` leaves fewer groups
  pending; while pending, reading or writing its accumulators, or writing the shared elements it
  reads, is an error;
- shared elements an `mma.wgmma` reads must have been published to the async proxy: a thread's
  generic store to a swizzled (#mma.swizzle) buffer needs an `mma.fence_proxy_async` by that
  thread before the wgmma, and a `kernel.barrier` between them orders it for other threads (the
  wgmma's reads count as reads by the warpgroup's first thread in the race checks).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from dpl.dialects import mma
from dpl.interpreters.tf32 import mma_tf32, round_tf32

WARPGROUP = 128


class _Group:
    """One wgmma group of a warpgroup: its accumulators and the shared elements it reads."""

    __slots__ = ("accs", "reads")

    def __init__(self) -> None:
        self.accs: set[int] = set()  # id() of the accumulator _Buffers
        self.reads: list[tuple[object, np.ndarray]] = []  # (buffer, flat element indices)


class MmaExecMixin:
    """Handlers for the mma dialect's kernel-level ops; `mma_op` returns False for other ops."""

    def mma_init(self) -> None:
        per_block = max(1, -(-self.B // WARPGROUP))
        self.wg_of = self.block_of * per_block + self.local // WARPGROUP
        n = self.G * per_block
        self.step = 0
        self.wg_fence_step = np.full(n, -1, np.int64)  # when each warpgroup last fenced
        self.reg_access_step: dict[int, np.ndarray] = {}  # id(register buffer) -> per warpgroup
        self.wg_open: dict[int, _Group] = {}  # warpgroup -> wgmmas not yet committed
        self.wg_pending: dict[int, list[_Group]] = {}  # warpgroup -> committed, oldest first
        self.unfenced: dict[int, np.ndarray] = {}  # id(shared buffer) -> element's generic writer

    def _active_wgs(self) -> list[int]:
        return np.unique(self.wg_of[self.active]).tolist()

    # -- dispatch -----------------------------------------------------------------------------

    def mma_op(self, op: Operation) -> bool:
        self.step += 1
        if isinstance(op, mma.Tf32Op):
            self.env[op.result] = round_tf32(self.value(op.input))
        elif isinstance(op, mma.MmaSyncOp):
            self.mma_sync(op)
        elif isinstance(op, mma.WgmmaOp | mma.WgmmaRsOp):
            self.wgmma(op)
        elif isinstance(op, mma.WgmmaFenceOp):
            self.wg_fence_step[self._active_wgs()] = self.step
        elif isinstance(op, mma.WgmmaCommitOp):
            for wg in self._active_wgs():  # an empty commit makes an empty group (PTX)
                self.wg_pending.setdefault(wg, []).append(self.wg_open.pop(wg, None) or _Group())
        elif isinstance(op, mma.WgmmaWaitOp):
            keep = op.pending.data
            for wg in self._active_wgs():
                groups = self.wg_pending.get(wg, [])
                self.wg_pending[wg] = groups[len(groups) - keep :] if keep else []
        elif isinstance(op, mma.FenceProxyAsyncOp):
            threads = np.flatnonzero(self.active)
            for mark in self.unfenced.values():
                mark[np.isin(mark, threads)] = -1
        else:
            return False
        return True

    def _whole(self, op: Operation, size: int, what: str) -> np.ndarray:
        """Units of `size` threads that execute `op` must do so wholly; returns which do."""
        if self.B % size:
            raise ValueError(f"{self.where(op)}: the block of {self.B} threads is not whole {what}s")
        act = self.active.reshape(-1, size)
        live = act.any(1)
        partial = live & ~act.all(1)
        if partial.any():
            u = int(np.argmax(partial))
            raise ValueError(
                f"{self.where(op)}: executed by {int(act[u].sum())} of the {size} threads of a "
                f"{what} (it is {what}-wide)"
            )
        return live

    # -- mma.sync -------------------------------------------------------------------------------

    def _per_warp(self, vals) -> list[np.ndarray]:
        """Each value over the grid's threads as [warps, 32 lanes]."""
        return [np.broadcast_to(np.asarray(self.value(v), np.float32), (self.T,)).reshape(self.T // 32, 32)
                for v in vals]  # fmt: skip

    def _a_fragment(self, vals) -> np.ndarray:
        """Each warp's A (16x8) from its lanes' mma.sync A fragment values a0..a3."""
        lane = np.arange(32)
        g, t = lane // 4, lane % 4
        a0, a1, a2, a3 = self._per_warp(vals)
        A = np.zeros((self.T // 32, 16, 8), np.float32)
        A[:, g, t], A[:, g + 8, t], A[:, g, t + 4], A[:, g + 8, t + 4] = a0, a1, a2, a3
        return A

    def mma_sync(self, op: mma.MmaSyncOp) -> None:
        self._whole(op, 32, "warp")
        n_w = self.T // 32
        lane = np.arange(32)
        g, t = lane // 4, lane % 4
        A = self._a_fragment(op.a)
        b0, b1 = self._per_warp(op.b)
        c0, c1, c2, c3 = self._per_warp(op.c)
        B = np.zeros((n_w, 8, 8), np.float32)  # [n][k]
        B[:, g, t], B[:, g, t + 4] = b0, b1
        C = np.zeros((n_w, 16, 8), np.float32)
        C[:, g, 2 * t], C[:, g, 2 * t + 1], C[:, g + 8, 2 * t], C[:, g + 8, 2 * t + 1] = c0, c1, c2, c3
        D = mma_tf32(A, B, C)
        outs = (D[:, g, 2 * t], D[:, g, 2 * t + 1], D[:, g + 8, 2 * t], D[:, g + 8, 2 * t + 1])
        for r, d in zip(op.res, outs):
            self.env[r] = np.ascontiguousarray(d).reshape(self.T)

    # -- wgmma ----------------------------------------------------------------------------------

    def _tile(self, op, buf, amap, operands, rows: int, what: str, live: np.ndarray):
        """Each warpgroup's operand tile ([warpgroups, rows, 8]) and its element indices."""
        idx = self.index(op, buf, amap, operands, self.active)
        for i in idx:
            per = i.reshape(-1, WARPGROUP)
            if ((per != per[:, :1]).any(1) & live).any():
                raise ValueError(
                    f"{self.where(op)}: the threads of a warpgroup name different {what} tiles"
                )
        origin = [i.reshape(-1, WARPGROUP)[:, 0] for i in idx]
        *lead, r0, k0 = origin
        shape = buf.data.shape
        bad = live & ((r0 % 8 != 0) | (k0 % 8 != 0) | (r0 + rows > shape[-2]) | (k0 + 8 > shape[-1]))
        if bad.any():
            w = int(np.argmax(bad))
            raise ValueError(
                f"{self.where(op)}: operand {what} at row {int(r0[w])}, column {int(k0[w])} is not "
                f"a {rows}x8 tile in bounds starting at a row and a column that are multiples of 8"
            )
        r = r0[:, None, None] + np.arange(rows)[None, :, None]
        k = k0[:, None, None] + np.arange(8)[None, None, :]
        full = r.shape[:2] + (8,)
        sel = tuple(np.broadcast_to(x[:, None, None], full) for x in lead)
        sel += (np.broadcast_to(r, full), np.broadcast_to(k, full))
        return buf.data[sel], sel

    def wgmma(self, op: mma.WgmmaOp | mma.WgmmaRsOp) -> None:
        live = self._whole(op, WARPGROUP, "warpgroup")
        n = op.n.data
        acc = self.buffer(op.acc, op)
        regs_a = isinstance(op, mma.WgmmaRsOp)
        a = None if regs_a else self.buffer(op.a, op)
        b = self.buffer(op.b, op)
        wgs = self.wg_of.reshape(-1, WARPGROUP)[:, 0]
        if self.check:
            touched = self.reg_access_step.get(id(acc), np.full(len(self.wg_fence_step), -1))
            fenced = self.wg_fence_step[wgs]
            if (live & ((fenced < 0) | (fenced < touched[wgs]))).any():
                raise ValueError(
                    f"{self.where(op)}: no mma.wgmma_fence since its accumulators were last "
                    f"accessed (or before the first mma.wgmma)"
                )
        if regs_a:  # the warpgroup's 4 consecutive warps stack their 16-row fragments
            A = self._a_fragment(op.a).reshape(-1, 64, 8)
        else:
            A, asel = self._tile(op, a, op.a_map.data, op.a_indices, 64, "a", live)
        B, bsel = self._tile(op, b, op.b_map.data, op.b_indices, n, "b", live)
        flats = []
        if self.check:
            first = np.flatnonzero(self.local % WARPGROUP == 0)
            for buf, sel in ([] if regs_a else [(a, asel)]) + [(b, bsel)]:
                cells = tuple(s[live].reshape(-1) for s in sel)
                mark = self.unfenced.get(id(buf))
                if mark is not None and (mark[cells] >= 0).any():
                    t = int(mark[cells][mark[cells] >= 0][0])
                    raise ValueError(
                        f"{self.where(op)}: reads shared memory that thread {self._who(t)} stored "
                        f"with no mma.fence_proxy_async after it (the tensor cores may not see it)"
                    )
                if buf.tracked:  # read by the warpgroup's first thread, for the race checks
                    who = np.repeat(first[live], sel[-1][0].size)
                    self._track_read(op, buf, cells, who)
                flats.append((buf, [np.ravel_multi_index(tuple(s[k] for s in sel), buf.data.shape).reshape(-1)
                                    for k in range(len(live))]))  # fmt: skip
        # the accumulator fragment: acc[4j + 2h + e] is D[16w + 8h + g, 8j + 2t + e]
        tw = np.arange(WARPGROUP)
        w, lane = tw // 32, tw % 32
        g, t = lane // 4, lane % 4
        i = np.arange(n // 2)
        j, h, e = i // 4, (i // 2) % 2, i % 2
        row = 16 * w[:, None] + 8 * h[None, :] + g[:, None]
        col = 8 * j[None, :] + 2 * t[:, None] + e[None, :]
        frags = acc.data.reshape(-1, WARPGROUP, n // 2)
        D = np.zeros((frags.shape[0], 64, n), np.float32)
        D[:, row, col] = frags
        D = mma_tf32(A, B, None if op.overwrite else D)
        frags[live] = D[:, row, col][live]
        for k in np.flatnonzero(live).tolist():
            grp = self.wg_open.setdefault(int(wgs[k]), _Group())
            grp.accs.add(id(acc))
            for buf, per in flats:
                grp.reads.append((buf, per[k]))

    # -- hooks for exec_kernel's loads and stores -----------------------------------------------

    def mma_note_access(self, op, buf, idx, write: bool) -> None:
        """Check an access against pending wgmma groups (accumulators: any access; shared
        elements they read: writes) and note what later wgmmas must check."""
        if not self.check:
            return
        self.step += 1
        if buf.prefix == "thread":  # registers: a read too needs a wgmma_fence before an MMA on them
            steps = self.reg_access_step.setdefault(id(buf), np.full(len(self.wg_fence_step), -1))
            steps[self._active_wgs()] = self.step
        if write and buf.prefix == "block":
            mark = self.unfenced.setdefault(id(buf), np.full(buf.data.shape, -1, np.int64))
            mark[tuple(i[self.active] for i in idx)] = self.tid[self.active]
        if not (self.wg_open or any(self.wg_pending.values())):
            return
        for wg in self._active_wgs():
            for grp in [*self.wg_pending.get(wg, []), *([self.wg_open[wg]] if wg in self.wg_open else [])]:
                if id(buf) in grp.accs:
                    raise ValueError(
                        f"{self.where(op)}: accesses the accumulators of an mma.wgmma that its "
                        f"warpgroup has not waited for (mma.wgmma_wait)"
                    )
        if not write or buf.prefix != "block" or not idx:
            return
        hit = np.ravel_multi_index(tuple(i[self.active] for i in idx), buf.data.shape)
        groups = [g for gs in self.wg_pending.values() for g in gs] + list(self.wg_open.values())
        for grp in groups:
            for rbuf, flat in grp.reads:
                if rbuf is buf and np.isin(hit, flat).any():
                    raise ValueError(
                        f"{self.where(op)}: overwrites shared memory that a pending mma.wgmma "
                        f"still reads (mma.wgmma_wait first)"
                    )
