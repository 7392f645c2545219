"""NumPy executor for kernel-level programs: SIMT in lockstep, every thread of the grid at once.

A kernel-level program is `func.func @main` (memref arguments, `memref.alloc`, one
`kernel.launch @k(...)` per launch in program order, `func.return`) next to the `kernel.func`s
it launches; `tile.kernel`s and `loop.kernel`s left in @main run on their own executors. Buffers
are allocated poisoned with NaN, so an element no kernel writes shows up in any comparison.

A `kernel.func` runs vectorised over ALL threads of ALL blocks: one NumPy axis of length
num_blocks * threads_per_block, linear thread index t = block * B + local (x fastest, CUDA
order). Every SSA value is an array over that axis (or a 0-d array broadcast over it). Control
flow is masks:

- `kernel.if` runs both regions, each under the active mask and-ed with (not) its condition;
- `kernel.for` with per-thread bounds runs the largest trip count of the active threads; a
  thread takes part in iteration k while k < its own trip count; `kernel.accumulate` folds into
  accumulators that start at the combiner's identity;
- loads gather per thread (inactive threads read index 0, active ones out of bounds raise);
  stores scatter for active threads only.

Memory: kernel arguments are the host arrays (written in place); `kernel.smem` is one array per
block ([num_blocks, ...]; dynamic ones are typed views of one poisoned byte pool per block, so
they alias like the real thing); `kernel.alloca` is one array per thread ([num_threads, ...]).
`kernel.cp_async` and `kernel.tma_load` copy at once (commit/wait and mbarrier ops are no-ops);
a copy moves `bytes / itemsize` contiguous elements (row-major) from the source index.
`kernel.atomic` folds every active thread's value into its element (np.add.at and co.; max/min
propagate NaN, so a poisoned element stays poisoned). `vector 4` loads/stores move 4 consecutive
innermost elements (misaligned or past the row: an error); `kernel.extract` / `kernel.pack`
index the last axis of a [threads, 4] value. Shuffles permute within each warp (lane = linear
thread index in the block & 31) in segments of `width` lanes; `shuffle_down` past the segment
returns the thread's own value; a source lane that does not exist (partial warp) gives NaN.

Mixed tile/kernel IR (what `materialize`'s passes leave between outline-kernels and lower-axes)
runs too: a bound `tile.tile` binds each axis to its index and runs its body per thread;
`loop.for` / `tile.strided_for` are loops like `kernel.for` (`loop.load` / `loop.store` /
`tile.atomic` like their kernel forms, an atomic folded once per point of the thread axes it
depends on, `tile.write_axes`; with `{tile.masked = [dims]}` an index outside the buffer
along those dims reads 0 or is not written); a `tile.stage` copies each block's slab into a
per-block buffer (slot `k mod N` when buffered; NaN outside the source, 0 outside it along a
masked dim) that its loads read untracked;
a `tile.combine` folds each partial over the threads that differ only on the combined axes.

Always checked, each a one-line ValueError: an access out of a buffer's bounds by an active
thread; a `kernel.barrier` reached by only part of a block; a shuffle executed by part of a warp
(full-mask shuffles in divergent code); an unsupported op. Races, which lockstep execution would
hide (`check_races`):

- "thread" (True, the default): an element read, or overwritten with a different value, by a
  thread other than the one that wrote (or read) it, with no `kernel.barrier` of the block
  between (a full-warp shuffle also orders the accesses of its warp's lanes); for global
  memory, any such pair of accesses from two different blocks; two threads storing different
  values to one element in one op.
- "warp": the same, but the lanes of one warp are taken to run converged (warp-synchronous
  code like roundtrip.mlir's hand-written RMSNorm), so accesses within a warp never race.
- False: no race checks.

Atomics are not race-checked; TMA copies are published by the mbarrier wait, not tracked.
The tensor-core ops (mma dialect) and their asynchrony checks are in exec_mma.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import affine
from xdsl.dialects.builtin import MemRefType, ModuleOp, VectorType
from xdsl.ir import Block, Operation, SSAValue

from dpl.interpreters import exec_loop, exec_tile
from dpl.interpreters.exec_mma import MmaExecMixin
from dpl.interpreters.affine_np import eval_map
from dpl.interpreters.scalar_eval import eval_op, is_scalar_op, numpy_dtype
from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind

_UFUNCS = {
    CombineKind.ADD: np.add,
    CombineKind.MUL: np.multiply,
    CombineKind.MAX: np.maximum,  # propagates NaN, so poison stays visible
    CombineKind.MIN: np.minimum,
}

WARP = 32


def run(
    module: ModuleOp, inputs: Sequence[np.ndarray], check_races: bool | str = True
) -> list[np.ndarray]:
    """Run `@main` on `inputs` (one array per argument); return its results."""

    def launch(op: K.LaunchOp, env: dict[SSAValue, np.ndarray]) -> None:
        kfunc = op.kernel_func()
        if kfunc is None:
            raise ValueError(
                f"'kernel.launch' @{op.callee.string_value()} names no kernel.func of the module"
            )
        run_kernel(kfunc, [_as_param(env[a], p.type) for a, p in zip(op.args, kfunc.args)], check_races=check_races)

    return exec_loop.run(
        module, inputs, {K.LaunchOp: launch, tile.KernelOp: exec_tile.run_kernel}
    )


def _as_param(buffer, param_type):
    """`buffer` as the kernel parameter of `param_type` sees it: itself, or a flat view
    (`kernel.launch` accepts a 1-D parameter over a buffer's elements), which shares its memory
    so that the kernel's writes land in it."""
    if not isinstance(param_type, MemRefType) or not isinstance(buffer, np.ndarray):
        return buffer
    shape = tuple(param_type.get_shape())
    if buffer.shape == shape:
        return buffer
    view = buffer.view()
    view.shape = shape  # raises where a view cannot share the memory (never for a row-major buffer)
    return view


def run_kernel(
    kfunc: K.KernelFuncOp, buffers: list[np.ndarray], check_races: bool | str = True
) -> None:
    """Execute `kfunc` once over its whole grid; memref arguments are written in place."""
    name = f"kernel.func @{kfunc.sym_name.data}"
    modes = {True: "thread", "thread": "thread", "warp": "warp", False: None, None: None}
    if not isinstance(check_races, bool | str | None) or check_races not in modes:
        raise ValueError(f"check_races must be True, False, 'thread' or 'warp', not {check_races!r}")
    mode = modes[check_races]
    if len(buffers) != len(kfunc.args):
        raise ValueError(f"{name} takes {len(kfunc.args)} arguments, {len(buffers)} given")
    env: dict[SSAValue, object] = {}
    seen: dict[int, _Buffer] = {}
    for i, (arg, buf) in enumerate(zip(kfunc.args, buffers)):
        t = arg.type
        if isinstance(t, MemRefType):
            shape = tuple(t.get_shape())
            if not isinstance(buf, np.ndarray) or buf.shape != shape:
                got = getattr(buf, "shape", type(buf).__name__)
                raise ValueError(f"{name} argument #{i} must have shape {shape}, got {got}")
            if buf.dtype != numpy_dtype(t.element_type):
                raise ValueError(
                    f"{name} argument #{i} must have dtype {numpy_dtype(t.element_type)}, "
                    f"got {buf.dtype}"
                )
            # one _Buffer per array, so an array passed twice shares its race tracking
            if id(buf) not in seen:
                seen[id(buf)] = _Buffer(buf, None, mode is not None)
            env[arg] = seen[id(buf)]
        else:
            env[arg] = np.asarray(buf, dtype=numpy_dtype(t))
    _Grid(kfunc, env, mode).block(kfunc.body.block)


class _Buffer:
    """One memref: `data` is the array; `prefix` says what leads its index.

    None: a global buffer (no prefix); "block": shared memory, data[block, ...];
    "thread": registers, data[thread, ...].

    Race tracking, per element, of global and shared buffers (-1: nobody, -2: several):
    `writer` / `reader` are the units (threads, or warps in "warp" mode) that wrote / read it
    since the last barrier of their block, `wwarp` / `rwarp` their warps (numbered across the
    grid) and `wepoch` / `repoch` their warps' shuffle counts then (a full-warp shuffle orders
    the accesses of the warp's lanes before it); for global buffers `wblock` / `rblock` are the
    blocks that wrote / read it during the launch (blocks never synchronise within a launch).
    """

    def __init__(self, data: np.ndarray, prefix: str | None, track: bool):
        self.data = data
        self.prefix = prefix
        self.tracked = track and prefix != "thread"
        self.is_global = prefix is None
        if self.tracked:
            shape = data.shape
            self.writer, self.wwarp, self.reader, self.rwarp = (
                np.full(shape, -1, np.int64) for _ in range(4)
            )
            self.wepoch = np.zeros(shape, np.int64)
            self.repoch = np.zeros(shape, np.int64)
        if self.tracked and self.is_global:
            self.wblock = np.full(data.shape, -1, np.int64)
            self.rblock = np.full(data.shape, -1, np.int64)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape[1:] if self.prefix else self.data.shape

    def reset(self, live: np.ndarray, warps_per_block: int) -> None:
        """A barrier in the blocks `live` (a mask over blocks) orders their threads' accesses."""
        if self.prefix == "block":
            for a in (self.writer, self.wwarp, self.reader, self.rwarp):
                a[live] = -1
            return
        if not self.data.ndim:
            return
        w = self.wwarp
        done = (w >= 0) & live[np.maximum(w, 0) // warps_per_block]
        self.writer[done] = -1
        w[done] = -1
        r = self.rwarp
        blk = np.where(r >= 0, r // warps_per_block, self.rblock)
        done = (blk >= 0) & live[np.maximum(blk, 0)]
        self.reader[done] = -1
        r[done] = -1


def _group(flat: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct elements of `flat` and, for each, the one id among its `ids` (-2: several)."""
    order = np.lexsort((ids, flat))
    flat, ids = flat[order], ids[order]
    elems, first = np.unique(flat, return_index=True)
    lo = np.minimum.reduceat(ids, first)
    hi = np.maximum.reduceat(ids, first)
    return elems, np.where(lo == hi, lo, -2)


def _merge(track: np.ndarray, elems: np.ndarray, who: np.ndarray) -> None:
    t = track.reshape(-1)
    old = t[elems]
    t[elems] = np.where((old == -1) | (old == who), who, -2)


def _poisoned(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.floating):
        return np.full(shape, np.nan, dtype=dtype)
    if dtype == np.bool_:
        return np.zeros(shape, dtype=dtype)
    return np.full(shape, np.iinfo(dtype).min, dtype=dtype)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise equality with NaN equal to NaN."""
    eq = a == b
    if np.issubdtype(np.asarray(a).dtype, np.floating):
        eq |= np.isnan(a) & np.isnan(b)
    return eq


def _unravel(flat: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """np.unravel_index of `flat` (any shape), through a 1-D array: NumPy 2.4 returns wrong
    coordinates for an (N, 1) array of more than 8192 indices (numpy/numpy#31980; a 4-byte
    cp.async copy by 8200 threads wrote columns past 1024 to row 0)."""
    return tuple(i.reshape(flat.shape) for i in np.unravel_index(flat.reshape(-1), shape))


class _Grid(MmaExecMixin):
    def __init__(self, kfunc: K.KernelFuncOp, env: dict, mode: str | None):
        self.name = f"kernel.func @{kfunc.sym_name.data}"
        self.env = env
        self.check = mode  # "thread", "warp" or None
        self.grid = kfunc.grid_extents
        self.blk = kfunc.block_extents
        self.B = int(np.prod(self.blk))
        self.G = int(np.prod(self.grid))
        self.T = self.B * self.G
        t = np.arange(self.T, dtype=np.int64)
        self.tid = t
        self.block_of = t // self.B
        self.local = t % self.B
        self.lane = self.local % WARP
        self.warp = self.local // WARP
        self.gwarp = self.block_of * (-(-self.B // WARP)) + self.warp  # warp in the grid
        self.warpsync = np.zeros(int(self.gwarp[-1]) + 1, np.int64)  # full-warp shuffles so far
        self.unit = self.gwarp if self.check == "warp" else self.tid  # who races with whom
        bx, by, _ = self.blk
        gx, gy, _ = self.grid
        self.thread_xyz = (self.local % bx, (self.local // bx) % by, self.local // (bx * by))
        self.block_xyz = (self.block_of % gx, (self.block_of // gx) % gy, self.block_of // (gx * gy))
        self.active = np.ones(self.T, bool)
        self.smem_bytes = kfunc.smem.data
        self.dyn_pool: np.ndarray | None = None
        self.tile_deps: dict[tile.TileOp, dict[SSAValue, frozenset[int]]] = {}
        self.mma_init()

    # -- helpers ---------------------------------------------------------------------------

    def where(self, op: Operation) -> str:
        return f"'{op.name}' in {self.name}"

    def full(self, value) -> np.ndarray:
        """A value as an array over all threads."""
        a = np.asarray(value)
        if a.shape == (self.T,):
            return a
        return np.broadcast_to(a, (self.T,))

    def value(self, v: SSAValue):
        try:
            return self.env[v]
        except KeyError:
            raise ValueError(f"{self.name}: value {v.name_hint or v} is used before it is defined")

    def buffer(self, v: SSAValue, op: Operation) -> _Buffer:
        b = self.env.get(v)
        if not isinstance(b, _Buffer):
            raise ValueError(f"{self.where(op)} accesses a value that is not a buffer")
        return b

    def index(self, op: Operation, buf: _Buffer, amap, operands, mask: np.ndarray) -> list[np.ndarray]:
        """Per-thread indices [prefix, i0, i1, ...] (each of length T) for threads in `mask`;
        inactive threads get index 0; an active thread out of bounds raises."""
        idx = [self.full(np.asarray(i, dtype=np.int64)) for i in
               eval_map(amap, [self.value(o) for o in operands])]
        shape = buf.shape
        bad = np.zeros(self.T, bool)
        for i, n in zip(idx, shape):
            bad |= (i < 0) | (i >= n)
        bad &= mask
        if bad.any():
            t = int(np.argmax(bad))
            at = [int(i[t]) for i in idx]
            raise ValueError(
                f"{self.where(op)}: thread {self._who(t)} indexes {at} outside shape {list(shape)}"
            )
        idx = [np.where(mask, i, 0) for i in idx]
        if buf.prefix == "block":
            idx.insert(0, self.block_of)
        elif buf.prefix == "thread":
            idx.insert(0, self.tid)
        return idx

    def inside(self, op: Operation, buf: _Buffer, amap, operands) -> np.ndarray:
        """The threads whose index of `op` is inside `buf` along its `tile.masked` dims (all of
        them when it has none: the others are checked by `index`)."""
        inside = np.ones(self.T, bool)
        dims = tile.masked_dims(op)
        if dims:
            idx = eval_map(amap, [self.value(o) for o in operands])
            for d in dims:
                i = self.full(np.asarray(idx[d], dtype=np.int64))
                inside &= (i >= 0) & (i < buf.shape[d])
        return inside

    def _who(self, t: int) -> str:
        return f"{int(self.local[t])} of block {int(self.block_of[t])}"

    # -- memory ----------------------------------------------------------------------------

    def load(self, op: Operation, buf: _Buffer, idx: list[np.ndarray]) -> np.ndarray:
        self.mma_note_access(op, buf, idx, write=False)
        if self.check and buf.tracked:
            self._check_read(op, buf, idx)
        return buf.data[tuple(idx)] if idx else np.broadcast_to(buf.data[()], (self.T,)).copy()

    def store(self, op: Operation, buf: _Buffer, idx: list[np.ndarray], value, mask=None,
              track: bool = True) -> None:  # fmt: skip
        mask = self.active if mask is None else mask
        if not mask.any():
            return
        self.mma_note_access(op, buf, idx, write=True)
        value = self.full(np.asarray(value, dtype=buf.data.dtype))
        if not idx:  # rank-0 global buffer
            vals = value[mask]
            if self.check and not _same(vals, vals[0]).all():
                raise ValueError(f"{self.where(op)}: threads store different values to one element")
            buf.data[()] = vals[-1]
            return
        sel = tuple(i[mask] for i in idx)
        vals = value[mask]
        if self.check:
            self._check_conflicts(op, buf, sel, vals)
            if buf.tracked:
                threads = self.tid[mask]
                if track:
                    self._check_write(op, buf, sel, vals, threads)
                else:
                    buf.writer[sel] = -1
        buf.data[sel] = vals

    def _check_conflicts(self, op, buf: _Buffer, sel, vals) -> None:
        if len(vals) < 2:
            return
        flat = np.ravel_multi_index(sel, buf.data.shape)
        order = np.argsort(flat, kind="stable")
        f, v = flat[order], vals[order]
        dup = f[1:] == f[:-1]
        if dup.any() and not _same(v[1:][dup], v[:-1][dup]).all():
            raise ValueError(
                f"{self.where(op)}: several threads store different values to one element "
                f"in the same step (a race)"
            )

    def _check_read(self, op, buf: _Buffer, idx) -> None:
        mask = self.active
        if mask.any() and idx:
            self._track_read(op, buf, tuple(i[mask] for i in idx), self.tid[mask])

    def _unit_name(self, u: int) -> str:
        if u == -2:
            return f"several {self.check}s"
        if self.check == "thread":
            return f"thread {self._who(u)}"
        per = -(-self.B // WARP)
        return f"warp {u % per} of block {u // per}"

    def _race(self, op, thread: int, verb: str, other: str, what: str, memory: str) -> None:
        raise ValueError(
            f"{self.where(op)}: thread {self._who(thread)} {verb} {memory} memory that {other} "
            f"{what} with no kernel.barrier between (a race)"
        )

    def _ordered(self, other, other_warp, epoch, units, warps) -> np.ndarray:
        """Whether earlier accesses by `other` (units of warps `other_warp` at shuffle counts
        `epoch`) are ordered before accesses by `units` of `warps`."""
        synced = (other_warp == warps) & (self.warpsync[warps] > epoch)
        return (other == -1) | (other == units) | synced

    def _track_read(self, op, buf: _Buffer, sel, threads) -> None:
        """Threads `threads` read elements `sel`: fail if another thread wrote one since the last
        barrier (another block: at all); record the readers."""
        units, warps = self.unit[threads], self.gwarp[threads]
        memory = "global" if buf.is_global else "shared"
        if buf.is_global:
            blocks = self.block_of[threads]
            wb = buf.wblock[sel]
            race = (wb != -1) & (wb != blocks)
            if race.any():
                k = int(np.argmax(race))
                other = "several blocks" if wb[k] == -2 else f"block {int(wb[k])}"
                self._race(op, int(threads[k]), "reads", other, "wrote", memory)
        w = buf.writer[sel]
        race = ~self._ordered(w, buf.wwarp[sel], buf.wepoch[sel], units, warps)
        if race.any():
            k = int(np.argmax(race))
            self._race(op, int(threads[k]), "reads", self._unit_name(int(w[k])), "wrote", memory)
        flat = np.ravel_multi_index(sel, buf.data.shape)
        _merge(buf.reader, *_group(flat, units))
        _merge(buf.rwarp, *_group(flat, warps))
        np.maximum.at(buf.repoch.reshape(-1), flat, self.warpsync[warps])
        if buf.is_global:
            _merge(buf.rblock, *_group(flat, blocks))

    def _check_write(self, op, buf: _Buffer, sel, vals, threads) -> None:
        """Threads `threads` write `vals` to elements `sel`: fail if another thread read one, or
        wrote a different value to one, since the last barrier (another block: at all); record
        the writers."""
        units, warps = self.unit[threads], self.gwarp[threads]
        memory = "global" if buf.is_global else "shared"
        differs = ~_same(buf.data[sel], vals)
        if buf.is_global:
            blocks = self.block_of[threads]
            for seen, what in ((buf.rblock[sel], "read"), (buf.wblock[sel], "wrote")):
                bad = (seen != -1) & (seen != blocks)
                if what == "wrote":
                    bad &= differs
                if bad.any():
                    k = int(np.argmax(bad))
                    other = "several blocks" if seen[k] == -2 else f"block {int(seen[k])}"
                    self._race(op, int(threads[k]), "overwrites", other, what, memory)
        r, w = buf.reader[sel], buf.writer[sel]
        war = ~self._ordered(r, buf.rwarp[sel], buf.repoch[sel], units, warps)
        waw = ~self._ordered(w, buf.wwarp[sel], buf.wepoch[sel], units, warps) & differs
        bad = war | waw
        if bad.any():
            k = int(np.argmax(bad))
            other, what = (r[k], "read") if war[k] else (w[k], "wrote")
            self._race(op, int(threads[k]), "overwrites", self._unit_name(int(other)), what, memory)
        buf.writer[sel] = units
        buf.wwarp[sel] = warps
        buf.wepoch[sel] = self.warpsync[warps]
        if buf.is_global:
            _merge(buf.wblock, *_group(np.ravel_multi_index(sel, buf.data.shape), blocks))

    def copy(self, op, dst: _Buffer, didx, src: _Buffer, sidx, nbytes: int, track: bool) -> None:
        """Copy `nbytes` contiguous bytes from src at sidx to dst at didx, per active thread."""
        itemsize = dst.data.dtype.itemsize
        if nbytes % itemsize or src.data.dtype != dst.data.dtype:
            raise ValueError(
                f"{self.where(op)}: copies {nbytes} bytes between {src.data.dtype} and "
                f"{dst.data.dtype} buffers"
            )
        n = nbytes // itemsize
        mask = self.active
        if not mask.any():
            return
        starts = []
        for buf, idx in ((dst, didx), (src, sidx)):
            lead = idx[:1] if buf.prefix else []
            inner = idx[1:] if buf.prefix else idx
            size = int(np.prod(buf.shape))
            flat = np.ravel_multi_index(inner, buf.shape) if inner else np.zeros(self.T, np.int64)
            end = flat + n
            over = mask & (end > size)
            if over.any():
                t = int(np.argmax(over))
                raise ValueError(
                    f"{self.where(op)}: thread {self._who(t)} copies {n} elements from flat "
                    f"index {int(flat[t])}, past the end of a buffer of {size}"
                )
            starts.append((lead, flat))
        offs = np.arange(n)
        (dlead, dflat), (slead, sflat) = starts
        m = np.flatnonzero(mask)
        sf = sflat[m][:, None] + offs
        s_inner = _unravel(sf, src.shape)
        s_full = tuple(l[m][:, None] for l in slead) + tuple(s_inner)
        if src.tracked and self.check and track:  # reads by the issuing threads
            shape = (len(m), n)
            self._track_read(
                op, src, tuple(np.broadcast_to(a, shape).reshape(-1) for a in s_full),
                np.broadcast_to(self.tid[m][:, None], shape).reshape(-1),
            )
        vals = src.data[s_full]
        df = dflat[m][:, None] + offs
        d_inner = _unravel(df, dst.shape)
        d_full = tuple(np.broadcast_to(l[m][:, None], df.shape) for l in dlead) + tuple(d_inner)
        d_full = tuple(np.asarray(a).reshape(-1) for a in d_full)
        vals = vals.reshape(-1)
        threads = np.broadcast_to(self.tid[m][:, None], df.shape).reshape(-1)
        if self.check:
            self._check_conflicts(op, dst, d_full, vals)
            if dst.tracked:
                if track:
                    self._check_write(op, dst, d_full, vals, threads)
                else:
                    dst.writer[d_full] = -1
        dst.data[d_full] = vals

    # -- execution -------------------------------------------------------------------------

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:  # noqa: C901 - one dispatch
        env = self.env
        if isinstance(op, K.ThreadIdOp):
            env[op.result] = self.thread_xyz["xyz".index(op.dim.data.value)]
        elif isinstance(op, K.BlockIdOp):
            env[op.result] = self.block_xyz["xyz".index(op.dim.data.value)]
        elif isinstance(op, K.BlockDimOp):
            env[op.result] = np.asarray(self.blk["xyz".index(op.dim.data.value)], np.int64)
        elif isinstance(op, K.GridDimOp):
            env[op.result] = np.asarray(self.grid["xyz".index(op.dim.data.value)], np.int64)
        elif isinstance(op, K.LaneIdOp):
            env[op.result] = self.lane
        elif isinstance(op, K.WarpIdOp):
            env[op.result] = self.warp
        elif isinstance(op, K.ForOp):
            self.for_op(op, *(op.bound(k) for k in ("lb", "ub", "step")))
        elif isinstance(op, loop.ForOp):
            self.for_op(op, 0, op.extent.data, 1)
        elif isinstance(op, tile.StridedForOp):
            self.for_op(op, op.start, op.bound.data, op.step.data)
        elif isinstance(op, tile.TileOp):
            self.tile(op)
        elif isinstance(op, tile.StageOp):
            self.stage(op)
        elif isinstance(op, tile.HoldOp):
            self.hold(op)
        elif isinstance(op, tile.CombineOp):
            self.combine(op)
        elif isinstance(op, K.IfOp):
            cond = self.full(np.asarray(self.value(op.cond), dtype=bool))
            outer = self.active
            self.active = outer & cond
            self.block(op.then_region.block)
            if op.else_region.blocks:
                self.active = outer & ~cond
                self.block(op.else_region.block)
            self.active = outer
        elif isinstance(op, (K.YieldOp, loop.YieldOp, K.CpAsyncCommitOp, K.CpAsyncWaitOp)):
            pass
        elif isinstance(op, K.SmemOp):
            self.smem(op)
        elif isinstance(op, K.AllocaOp):
            t = op.result.type
            assert isinstance(t, MemRefType)
            shape = (self.T, *t.get_shape())
            env[op.result] = _Buffer(_poisoned(shape, numpy_dtype(t.element_type)), "thread", False)
        elif isinstance(op, loop.LoadOp) and tile.is_masked(op):  # 0 outside the buffer
            buf = self.buffer(op.memref, op)
            inside = self.inside(op, buf, op.map.data, op.indices)
            idx = self.index(op, buf, op.map.data, op.indices, self.active & inside)
            v = self.load(op, buf, idx)
            env[op.result] = np.where(inside, v, np.zeros((), v.dtype))
        elif isinstance(op, (K.LoadOp, loop.LoadOp)):
            buf = self.buffer(op.memref, op)
            mask = op.mask if isinstance(op, K.LoadOp) else None
            on = None if mask is None else self.full(np.asarray(self.value(mask))).astype(bool)
            idx = self.index(op, buf, op.map.data, op.indices, self.active if on is None else self.active & on)
            if isinstance(op.result.type, VectorType):
                lanes = self.vector_lanes(op, buf, idx, op.result.type)
                v = np.stack([self.load(op, buf, i) for i in lanes], axis=-1)
            else:
                v = self.load(op, buf, idx)
            if on is not None:  # a masked load: 0 (every lane) where the mask is off
                v = np.where(on.reshape(on.shape + (1,) * (v.ndim - 1)), v, np.zeros((), v.dtype))
            env[op.result] = v
        elif isinstance(op, loop.StoreOp) and tile.is_masked(op):  # not written outside
            buf = self.buffer(op.memref, op)
            mask = self.active & self.inside(op, buf, op.map.data, op.indices)
            idx = self.index(op, buf, op.map.data, op.indices, mask)
            self.store(op, buf, idx, self.value(op.value), mask)
        elif isinstance(op, (K.StoreOp, loop.StoreOp)):
            buf = self.buffer(op.memref, op)
            idx = self.index(op, buf, op.map.data, op.indices, self.active)
            value = self.value(op.value)
            if isinstance(op.value.type, VectorType):
                lanes = self.vector_lanes(op, buf, idx, op.value.type)
                value = np.broadcast_to(value, (self.T, len(lanes)))
                for k, i in enumerate(lanes):
                    self.store(op, buf, i, value[:, k])
            else:
                self.store(op, buf, idx, value)
        elif isinstance(op, (K.AtomicOp, tile.AtomicOp)):
            buf = self.buffer(op.memref, op)
            mask = self.active & self.inside(op, buf, op.map.data, op.indices)
            if isinstance(op, tile.AtomicOp):
                mask &= self.once(op)
            idx = self.index(op, buf, op.map.data, op.indices, mask)
            value = self.full(np.asarray(self.value(op.value), dtype=buf.data.dtype))
            if idx:
                _UFUNCS[op.kind.data].at(buf.data, tuple(i[mask] for i in idx), value[mask])
            elif mask.any():
                buf.data[()] = _UFUNCS[op.kind.data].reduce(value[mask], initial=buf.data[()])
        elif isinstance(op, K.ExtractOp):
            env[op.result] = np.asarray(self.value(op.vector))[..., op.lane.data]
        elif isinstance(op, K.PackOp):
            env[op.result] = np.stack([self.full(self.value(v)) for v in op.lanes], axis=-1)
        elif isinstance(op, K.CpAsyncOp):
            dst, src = self.buffer(op.dst, op), self.buffer(op.src, op)
            didx = self.index(op, dst, op.dst_map.data, op.dst_indices, self.active)
            sidx = self.index(op, src, op.src_map.data, op.src_indices, self.active)
            self.copy(op, dst, didx, src, sidx, op.bytes.data, track=True)
        elif isinstance(op, K.TmaLoadOp):
            dst, src = self.buffer(op.dst, op), self.buffer(op.src, op)
            didx = self.index(op, dst, op.dst_map.data, op.dst_indices, self.active)
            sidx = self.index(op, src, op.src_map.data, op.src_indices, self.active)
            self.buffer(op.barrier, op)
            # completion is published by the mbarrier wait: not tracked as a thread's write
            self.copy(op, dst, didx, src, sidx, op.bytes.data, track=False)
        elif isinstance(op, (K.MbarrierInitOp, K.MbarrierArriveExpectTxOp, K.MbarrierWaitOp)):
            buf = self.buffer(op.barrier, op)
            self.index(op, buf, op.barrier_map.data, op.barrier_indices, self.active)
        elif isinstance(op, K.BarrierOp):
            self.barrier(op)
        elif isinstance(op, (K.ShuffleXorOp, K.ShuffleDownOp)):
            env[op.result] = self.shuffle(op)
        elif isinstance(op, affine.ApplyOp):
            env[op.result] = eval_map(op.map.data, [self.value(v) for v in op.mapOperands])[0]
        elif self.mma_op(op):
            pass
        elif is_scalar_op(op):
            try:
                results = eval_op(op, [self.value(o) for o in op.operands])
            except ValueError as e:
                raise ValueError(f"{self.name}: {e}") from None
            for result, value in zip(op.results, results):
                env[result] = value
        else:
            raise ValueError(f"the kernel executor does not support '{op.name}' (in {self.name})")

    def vector_lanes(self, op, buf: _Buffer, idx: list[np.ndarray], t: VectorType):
        """The indices of the consecutive innermost elements a vector access moves; an active
        thread whose vector would leave the row, or start misaligned, raises."""
        n = t.get_shape()[0]
        last = idx[-1]
        flat_start = np.ravel_multi_index(idx, buf.data.shape)
        bad = self.active & ((last + n > buf.shape[-1]) | (flat_start % n != 0))
        if bad.any():
            k = int(np.argmax(bad))
            at = [int(i[k]) for i in (idx[1:] if buf.prefix else idx)]
            raise ValueError(
                f"{self.where(op)}: thread {self._who(k)} moves a {n}-vector at {at}, which is "
                f"misaligned or past the row of shape {list(buf.shape)}"
            )
        return [idx[:-1] + [last + k] for k in range(n)]

    def smem(self, op: K.SmemOp) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        dtype = numpy_dtype(t.element_type)
        shape = tuple(t.get_shape())
        if op.is_dynamic:
            if self.dyn_pool is None:
                # 0xFF bytes: NaN for every float width, -1 for integers
                self.dyn_pool = np.full((self.G, max(self.smem_bytes, 1)), 0xFF, np.uint8)
            off = op.offset.data
            n = int(np.prod(shape)) * dtype.itemsize
            if off + n > self.smem_bytes:
                raise ValueError(
                    f"{self.where(op)}: dynamic buffer ends at byte {off + n}, past the "
                    f"kernel's {self.smem_bytes} bytes"
                )
            data = self.dyn_pool[:, off : off + n].view(dtype).reshape((self.G, *shape))
        else:
            data = _poisoned((self.G, *shape), dtype)
        self.env[op.result] = _Buffer(data, "block", self.check is not None)

    def for_op(self, op: Operation, *bounds: SSAValue | int) -> None:
        """A `kernel.for` (or, in mixed IR, a `loop.for` / `tile.strided_for`) with these
        lower bound, upper bound and step."""
        lb, ub, step = (
            self.full(np.asarray(self.value(b) if isinstance(b, SSAValue) else b, np.int64))
            for b in bounds
        )
        outer = self.active
        if (outer & (step < 1)).any():
            raise ValueError(f"{self.where(op)}: a thread runs it with a non-positive step")
        trips = np.where(outer, np.maximum(0, -(-(ub - lb) // step)), 0)
        count = int(trips.max()) if trips.size else 0
        acc = None
        results = op.results
        if results:
            term = op.body.block.last_op
            assert isinstance(term, K.AccumulateOp | loop.AccumulateOp)
            acc = []
            for r, kind in zip(results, term.kinds):
                dtype = numpy_dtype(r.type)
                acc.append(np.full(self.T, _identity(kind.data, dtype), dtype))
        body = list(op.regions[0].block.ops)
        iv = op.regions[0].block.args[0]
        for k in range(count):
            mask = outer & (k < trips)
            self.active = mask
            self.env[iv] = lb + k * step
            for inner in body:
                if isinstance(inner, K.AccumulateOp | loop.AccumulateOp):
                    for i, (kind, v) in enumerate(zip(inner.kinds, inner.values)):
                        folded = _UFUNCS[kind.data](acc[i], self.value(v))
                        acc[i] = np.where(mask, folded, acc[i]).astype(acc[i].dtype, copy=False)
                else:
                    self.op(inner)
        self.active = outer
        if acc is not None:
            for r, a in zip(results, acc):
                self.env[r] = a

    # -- tile ops of mixed IR (between outline-kernels and lower-axes) ---------------------

    def tile(self, op: tile.TileOp) -> None:
        """A bound tile: each axis is the index it is bound to; the body runs once per thread."""
        if not op.is_bound:
            raise ValueError(f"{self.where(op)}: a tile inside a kernel.func must be bound")
        for arg, index in zip(op.body.block.args, op.bindings):
            self.env[arg] = self.value(index)
        self.block(op.body.block)

    def once(self, op: tile.AtomicOp) -> np.ndarray:
        """The threads that fold a `tile.atomic` of mixed IR: those at 0 on each thread axis its
        value, indices and the loops and conditions around it do not depend on (the same value
        into the same element: folded once, as lower-accesses guards it)."""
        t = op.parent_op()
        while not isinstance(t, tile.TileOp):
            assert t is not None
            t = t.parent_op()
        if t not in self.tile_deps:
            self.tile_deps[t] = tile.axis_deps(t)
        used = tile.write_axes(t, self.tile_deps[t], op)
        mask = np.ones(self.T, bool)
        for i, (arg, extent, kind) in enumerate(t.axes):
            if kind == tile.AxisKind.THREAD and extent > 1 and i not in used:
                mask &= self.full(np.asarray(self.value(arg))) == 0
        return mask

    def _first_threads(self) -> np.ndarray:
        """One thread of each block (its first), for values that are uniform in a block."""
        return np.arange(self.G, dtype=np.int64) * self.B

    def stage(self, op: tile.StageOp) -> None:
        """Each block (with an active thread) copies its slab of the source into the stage's
        per-block buffer, into slot `k mod N` of a buffered one; the buffer persists across
        loop iterations. An element outside the source reads NaN."""
        src = self.buffer(op.source, op)
        rep = self._first_threads()
        origin = [self.full(np.asarray(o, np.int64))[rep]
                  for o in eval_map(op.origin.data, [self.value(v) for v in op.origin_operands])]  # fmt: skip
        slab = [(d.extent.data, d.dim.data) for d in op.slab]
        n = len(slab)
        idx = [o.reshape((self.G,) + (1,) * n) for o in origin]
        for k, (extent, dim) in enumerate(slab):
            stride = int(np.prod([e for e, d in slab[k + 1 :] if d == dim]))
            shape = [1] * (n + 1)
            shape[k + 1] = extent
            idx[dim] = idx[dim] + stride * np.arange(extent).reshape(shape)
        full_shape = (self.G, *(e for e, _ in slab))
        arrays = np.broadcast_arrays(*idx, np.zeros(full_shape, bool))[:-1]
        data = exec_tile.read_within(src.data, arrays, tile.masked_dims(op))
        t = op.result.type
        assert isinstance(t, MemRefType)
        buf = self.env.get(op.result)
        if not isinstance(buf, _Buffer):
            shape = (self.G, *t.get_shape())
            buf = self.env[op.result] = _Buffer(_poisoned(shape, src.data.dtype), "block", False)
        live = np.bincount(self.block_of, weights=self.active, minlength=self.G) > 0
        if op.buffers is not None:
            assert op.buffer_loop is not None
            slot = self.full(np.asarray(self.value(op.buffer_loop), np.int64))[rep] % op.buffers.data
            buf.data[live, slot[live]] = data[live]
        else:
            buf.data[live] = data[live]

    def hold(self, op: tile.HoldOp) -> None:
        """Each thread's elements (index + j * step on the held dim) into an array of its own;
        outside the source along a masked dim 0, along another NaN."""
        src = self.buffer(op.source, op)
        idx = [self.full(np.asarray(i, np.int64)).reshape(self.T, 1)
               for i in eval_map(op.map.data, [self.value(v) for v in op.indices])]  # fmt: skip
        idx[op.held_dim] = idx[op.held_dim] + op.step.data * np.arange(op.count).reshape(1, -1)
        data = exec_tile.read_within(src.data, np.broadcast_arrays(*idx), tile.masked_dims(op))
        self.env[op.result] = _Buffer(data, "thread", False)

    def combine(self, op: tile.CombineOp) -> None:
        """Each partial folded over the threads that differ only on the combined axes (in one
        block); every one of them gets the result."""
        t = op.parent_op()
        while t is not None and not isinstance(t, tile.TileOp):
            t = t.parent_op()
        assert isinstance(t, tile.TileOp)
        key = self.block_of.copy()
        for arg, extent, kind in t.axes:
            if kind == tile.AxisKind.THREAD and arg not in op.axes:
                key = key * extent + self.full(np.asarray(self.value(arg), np.int64))
        groups, inverse = np.unique(key, return_inverse=True)
        mask = self.active
        for result, partial in zip(op.res, op.values):
            v = self.full(np.asarray(self.value(partial)))
            acc = np.full(len(groups), _identity(op.kind.data, v.dtype), v.dtype)
            _UFUNCS[op.kind.data].at(acc, inverse[mask], v[mask])
            self.env[result] = acc[inverse]

    def barrier(self, op: Operation) -> None:
        per_block = np.bincount(self.block_of, weights=self.active, minlength=self.G)
        partial = (per_block > 0) & (per_block < self.B)
        if partial.any():
            b = int(np.argmax(partial))
            raise ValueError(
                f"{self.where(op)}: reached by {int(per_block[b])} of the {self.B} threads of "
                f"block {b} (a barrier in divergent code)"
            )
        if self.check:
            live = per_block > 0
            for buf in self.env.values():
                if isinstance(buf, _Buffer) and buf.tracked:
                    buf.reset(live, -(-self.B // WARP))

    def shuffle(self, op: K.ShuffleXorOp | K.ShuffleDownOp) -> np.ndarray:
        v = self.full(self.value(op.value))
        if not self.active.any():
            return v
        warps = self.gwarp
        nw = len(self.warpsync)
        per_warp = np.bincount(warps, weights=self.active, minlength=nw)
        size = np.bincount(warps, minlength=nw)
        partial = (per_warp > 0) & (per_warp < size)
        if partial.any():
            w = int(np.argmax(partial))
            raise ValueError(
                f"{self.where(op)}: executed by {int(per_warp[w])} of the {int(size[w])} lanes "
                f"of a warp (a full-mask shuffle in divergent code)"
            )
        if self.check:
            self.warpsync[per_warp > 0] += 1
        width, offset = op.width.data, op.offset.data
        seg_lane = self.lane % width
        if isinstance(op, K.ShuffleXorOp):
            src_lane = seg_lane ^ offset
            stay = np.zeros(self.T, bool)
        else:
            src_lane = seg_lane + offset
            stay = src_lane >= width
        src = self.tid - seg_lane + src_lane
        missing = ~stay & (self.local - seg_lane + src_lane >= self.B)
        src = np.where(stay | missing, self.tid, src)
        out = v[src].copy()
        if missing.any() and np.issubdtype(out.dtype, np.floating):
            out[missing] = np.nan  # the source lane does not exist: undefined in CUDA
        return out


def _identity(kind: CombineKind, dtype: np.dtype):
    if kind == CombineKind.ADD:
        return 0
    if kind == CombineKind.MUL:
        return 1
    if np.issubdtype(dtype, np.floating):
        return -np.inf if kind == CombineKind.MAX else np.inf
    info = np.iinfo(dtype)
    return info.min if kind == CombineKind.MAX else info.max
