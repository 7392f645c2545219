"""materialize-mma: lower each tensor-core `tile.kernel` (tensorize-matmul's tiles) of @main into a
`kernel.func` on warpgroup MMA (wgmma layout, sm_90a) or warp MMA (mma_sync layout, sm_80+) plus
its `kernel.launch`; `materialize` lowers the rest.

The tile (block axes, the wgmma fragment's threads (wg, w, g, t) and cells (h, j, e), one K-outer
loop holding `mma.stage` A and B and `mma.dot`, and an epilogue per output point) becomes:

    block axes -> kernel.block_id (extent-1 axes: 0; at most three others, the last listed in x)
    threads    -> wg = tid / 128, w = tid / 32 mod 4, g = tid / 4 mod 8, t = tid mod 4
    smem       -> a_hi, b_hi (+ a_lo, b_lo for 3xtf32): [2, rows, 32] f32, #mma.swizzle<128>,
                  dynamic, 1024-byte aligned: two K stages
    registers  -> acc [BN / 2]: the fp32 accumulators (the wgmma accumulator layout); chain
                  [BN / 2]: the fragment the tensor cores accumulate one chain in; ra / rb: the
                  thread's share of the next K step's A and B elements (the stage regions,
                  evaluated early)

    fill(0) ; split-store(0) ; fence.proxy.async ; barrier ; fill(1)
    for ko < KO:                        stage s = ko mod 2
        per chain of P K steps of 8 (mma.dot's promote; 4 / P chains per K step of 32):
            wgmma fence ; lo*hi, hi*lo of each of its steps, then hi*hi of each, on
                          a_*[s, 64 wg, 8 kk], b_*[s, 0, 8 kk] into chain (the first: overwrite)
            wgmma commit
            first chain, if ko + 1 < KO: split-store(1 - s) ; if ko + 2 < KO: fill(ko + 2)
                                          fence.proxy.async
            wgmma wait 0 ; acc += chain
        barrier
    epilogue once per cell (h, j, e) with acc[4 j + 2 h + e] as the loop's result

The tensor cores round every sum into their accumulators toward zero, so one chain over all of K
would lose accuracy linearly in K (see interpreters/tf32.py); the chains of P steps added into
acc by ordinary adds keep 3xTF32 at fp32's accuracy (what mma.dot's promote means). Stage 1 - s
was last read by the chains of ko - 1, which every warpgroup waited for before the barrier that
ends ko - 1, so its stores overlap the first chain of ko; the barrier that ends ko publishes it.

fill(k) evaluates both stage regions for K step k into ra / rb, 4 values per chunk i of each
thread (mma_mainloop.stage_mode): where a load of the region runs along K over rows of a multiple
of 4 floats, chunk q = tid + i * threads is 4 consecutive K elements of one row (row q / 8, K
offset 4 (q mod 8)), read as one float4, values that do not depend on K once; where one runs
along K over other rows ("k-run", K = 541), element e = tid + (4 i + l) * threads of the chunk's
lane l is row e / 32, K offset e mod 32, so a warp reads 32 consecutive floats of one row; else
(along M or N) chunk q is row q mod rows, K offset 4 (q / rows), so a warp reads consecutive
rows. split-store(s) rounds each to hi = tf32(v), lo = tf32(v - hi) and stores them into stage
s, as float4s (k-run: a float per lane, to its own row).

The mma_sync layout (threads (wm, wn, g, t), cells (mi, ni, h, e)) stages raw values the same way
(no split on the way in, no proxy fence); per chain each warp loads its fragments of each step
from the stage, splits them in registers and runs its MI x NI `mma.sync m16n8k8` chains from
zero (small terms, then hi*hi; fragments loaded again for the hi*hi pass of a chain longer than
one step), then adds them into acc (MI NI 4 registers); one barrier per K step of 32.

The epilogue (bias, residual, silu(gate) * acc, split-K's `tile.atomic`, with the kernel's
`{tile.zero_init}` outs filled by an `_init` kernel as materialize does) is emitted per cell, a
value that depends on no cell axis once. Unsupported structure raises a one-line ValueError.

The lowering is built in three modules: mma_builder.py (the tile's structure, emission and op
cloning), mma_mainloop.py (operand staging and the wgmma / mma.sync K loops) and this one (the
kernel's axes, buffers and epilogue, and the pass).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, Float32Type, MemRefType, ModuleOp
from xdsl.ir import Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import loop, mma, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.atomic_init_kernels import init_kernel
from dpl.transforms.kernel.mma_builder import K_STEP
from dpl.transforms.kernel.mma_mainloop import MmaMainLoop
from dpl.transforms.loop.count_cost import carry
from dpl.transforms.tile.common import grid_fits
from dpl.transforms.tile.target import target_smem



def is_mma_kernel(kop: tile.KernelOp) -> bool:
    return any(isinstance(op, mma.DotOp) for op in kop.walk())


class MmaLowering(MmaMainLoop):
    """Builds the `kernel.func` of one wgmma `tile.kernel`."""

    # -- the kernel -----------------------------------------------------------------------------

    def lower(self, max_smem: int) -> K.KernelFuncOp:
        """The kernel.func, using at most `max_smem` bytes of shared memory (the target's)."""
        for op in self.kop.body.block.ops:  # uniform values before the tile (constants)
            if op is not self.tile:
                self.clone(op, self.vm)
        self.emit_axes()
        self.emit_buffers(max_smem)
        memo: dict = {}
        pre = list(itertools.takewhile(lambda o: o is not self.kloop, self.tile.body.block.ops))
        post = list(self.tile.body.block.ops)[len(pre) + 1 :]
        block_axes = {v for v, _ in self.blocks}
        uniform = [op for op in pre if all(self.deps(r, memo) <= block_axes for r in op.results)]
        for op in uniform:
            self.clone(op, self.vm)
        self.emit_mainloop()
        self.emit_epilogue([op for op in pre if op not in uniform] + post, memo)
        kfunc = K.KernelFuncOp(self.name, [a.type for a in self.old_args], self.grid, [self.nt, 1, 1],
                               self.smem_bytes, Region(self.fblock))  # fmt: skip
        _dce(kfunc)
        return kfunc

    def emit_axes(self) -> None:
        self.grid = [1, 1, 1]
        real = [(v, e) for v, e in self.blocks if e > 1]
        for v, e in self.blocks:
            if e == 1:
                self.vm[v] = self.const(0)
        if not grid_fits([e for _, e in real]):
            self.fail("has more than three block axes (or one too large for grid y/z)")
        for dim, (v, e) in zip((K.Dim.X, K.Dim.Y, K.Dim.Z), reversed(real)):
            op = self.emit(K.BlockIdOp(dim))
            op.results[0].name_hint = v.name_hint
            self.grid["xyz".index(dim.value)] = e
            self.vm[v] = op.results[0]
        tid = self.emit(K.ThreadIdOp(K.Dim.X)).results[0]
        tid.name_hint = "tid"
        self.tid = tid
        d0 = AffineExpr.dimension(0)
        if self.sync:  # (wm, wn, g, t): warp = wm * WN + wn
            wn = self.threads[1][1]
            exprs = [d0 // 32 // wn, d0 // 32 % wn, d0 // 4 % 8, d0 % 4]
        else:  # (wg, w, g, t)
            exprs = [d0 // 128, d0 // 32 % 4, d0 // 4 % 8, d0 % 4]
        for (v, _), e in zip(self.threads, exprs):
            self.vm[v] = self.index(e, [tid], v.name_hint or "")

    def emit_buffers(self, max_smem: int) -> None:
        offset = 0
        self.smem: dict[tuple[str, str], SSAValue] = {}
        for half in ("hi", "lo")[: self.halves]:
            for side, rows in (("a", self.bm), ("b", self.bn)):
                t = mma.swizzled_smem_type([2, rows, K_STEP])
                op = self.emit(K.SmemOp(t, offset))
                op.result.name_hint = f"{side}_st" if self.sync else f"{side}_{half}"  # mma.sync: raw
                self.smem[(side, half)] = op.result
                offset += op.size_bytes()
                offset = -(-offset // 1024) * 1024
        offset += 1024  # slack: the printer rounds the pool's start up to 1024 bytes
        if offset > max_smem:
            self.fail(f"needs {offset} bytes of shared memory, more than the {max_smem} a block can have")
        self.smem_bytes = offset
        n_acc = self.cells[0][1] * self.cells[1][1] * 4 if self.sync else self.bn // 2
        acc = self.emit(K.AllocaOp(MemRefType(Float32Type(), [n_acc])))
        acc.result.name_hint = "acc"
        self.acc = acc.result
        if not self.sync:  # the fragment the tensor cores accumulate a chain in
            frag = self.emit(K.AllocaOp(MemRefType(Float32Type(), [n_acc])))
            frag.result.name_hint = "chain"
            self.frag = frag.result
        self.chunks = {}
        for side, stage in (("a", self.a_stage), ("b", self.b_stage)):
            n = -(-stage.rows * (K_STEP // 4) // self.nt)
            self.chunks[side] = n
            regs = self.emit(K.AllocaOp(MemRefType(Float32Type(), [4 * n])))
            regs.result.name_hint = f"r{side}"
            self.smem[(side, "regs")] = regs.result
        zero = self.const(0.0, Float32Type())
        self.for_(n_acc, lambda j: self.emit(K.StoreOp(zero, self.acc, [j], AffineMap.identity(1))),
                  unroll=True, name="j")  # fmt: skip

    # -- the epilogue ---------------------------------------------------------------------------

    def emit_epilogue(self, ops: list[Operation], memo: dict) -> None:
        """Each op once per point of the cell axes it depends on; the K loop's result is the
        accumulator element of the point (wgmma (h, j, e): acc[4 j + 2 h + e]; mma.sync
        (mi, ni, h, e): acc[((mi NI + ni) 2 + h) 2 + e])."""
        cell_vals = [v for v, _ in self.cells]
        extents = [e for _, e in self.cells]
        acc_old = self.kloop.res[0]
        points = list(itertools.product(*(range(e) for e in extents)))
        per_point: dict[tuple, dict] = {p: {v: self.const(x) for v, x in zip(cell_vals, p)} for p in points}
        for p, m in per_point.items():
            if self.sync:  # (mi, ni, h, e): acc[((mi NI + ni) 2 + h) 2 + e]
                mi, ni, h, e = p
                index = ((mi * extents[1] + ni) * 2 + h) * 2 + e
            else:  # (h, j, e): acc[4 j + 2 h + e]
                h, j, e = p
                index = 4 * j + 2 * h + e
            ld = self.emit(K.LoadOp(self.acc, [], AffineMap(0, 0, (AffineConstantExpr(index),))))
            ld.results[0].name_hint = "d"
            m[acc_old] = ld.results[0]
        for op in ops:
            dep = set()
            for r in op.results:
                dep |= self.deps(r, memo)
            for o in op.operands:
                dep |= self.deps(o, memo) | (set(cell_vals) if o is acc_old else set())
            which = [i for i, v in enumerate(cell_vals) if v in dep]
            done: dict[tuple, dict] = {}
            for p, m in per_point.items():
                key = tuple(p[i] for i in which)
                if key not in done:
                    local = dict(m)
                    self.clone(op, local)
                    done[key] = {old: local[old] for old in op.results}
                m.update(done[key])


def _dce(kfunc: K.KernelFuncOp) -> None:
    """Erase scalar ops whose results are unused (lane indices a float4 load made redundant)."""
    changed = True
    while changed:
        changed = False
        for op in list(kfunc.walk()):
            if op.dialect_name() in ("arith", "math") and not op.regions and op.results \
                    and all(not r.uses for r in op.results):  # fmt: skip
                op.detach()
                op.erase()
                changed = True


@dataclass(frozen=True)
class MaterializeMma(ModulePass):
    """Lower tensor-core tile.kernels (mma.dot) of @main to wgmma kernel.funcs and launches."""

    name = "materialize-mma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            for kop in [k for k in fn.body.walk() if isinstance(k, tile.KernelOp) and is_mma_kernel(k)]:
                low = MmaLowering(kop)
                kfunc = low.lower(target_smem(op))
                carry(kop, kfunc)
                op.body.block.insert_op_before(kfunc, fn)
                zero = kop.attributes.get("tile.zero_init")
                launches = []
                if low.atomic_outs or isinstance(zero, ArrayAttr):
                    outs = list(low.atomic_outs) or [kop.outs[a.value.data] for a in zero]  # type: ignore[union-attr]
                    bufs = list(dict.fromkeys(outs))
                    init = init_kernel(low.name, bufs, [low.atomic_outs.get(b, CombineKind.ADD) for b in bufs])
                    op.body.block.insert_op_before(init, kfunc)
                    launches.append(K.LaunchOp(init.sym_name.data, [loop.view_root(b) for b in bufs]))
                # a view (collapse-matmul-axes' merge) is the kernel's parameter type: the launch
                # passes its source, as outline-kernels' launches do (which then erases the view)
                args = [loop.view_root(a) for a in low.old_args]
                Rewriter.replace_op(kop, [*launches, K.LaunchOp(low.name, args)])
