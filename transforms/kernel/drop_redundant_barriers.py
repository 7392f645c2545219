"""drop-redundant-barriers: remove `kernel.barrier`s that order no memory accesses.

A `__syncthreads()` is needed only between two accesses of the same memory by different threads
where at least one writes. For each barrier, the pass collects the accesses of the straight-line
stretch before it (back to the previous barrier of the same block) and after it (up to the next
one), nested loops and ifs included, and drops the barrier when no write on one side meets an
access of the same buffer on the other. At the kernel's start and end the stretch stops at the
kernel's edge (nothing happens there); in a loop or if body a stretch that reaches the edge of its
block counts as touching everything (the loop's other iterations and the code around it are not
reasoned about), so there only barriers with a neighbouring barrier in the same block can go.

Buffers: each static `kernel.smem` is its own; all dynamic shared buffers are one (their byte
ranges may overlap); all global arguments are one (a launch may pass a buffer twice); register
arrays (`kernel.alloca`) are private. `kernel.cp_async_wait` and `kernel.mbarrier_wait` complete
asynchronous writes and count as writing everything; an op the pass does not know counts the same.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from dpl.dialects import kernel as K

LOG = logging.getLogger("dpl.passes")

ANY = "*"  # a buffer key that overlaps every buffer
GLOBAL = "global"
DYNAMIC_SMEM = "dynamic smem"

# Ops with no memory effect of their own (regions are walked separately).
PURE = {
    "kernel.thread_id", "kernel.block_id", "kernel.block_dim", "kernel.grid_dim",
    "kernel.lane_id", "kernel.warp_id", "kernel.for", "kernel.if", "kernel.yield",
    "kernel.accumulate", "kernel.smem", "kernel.alloca", "kernel.shuffle_xor",
    "kernel.shuffle_down", "kernel.extract", "kernel.pack", "kernel.cp_async_commit",
    "kernel.barrier",
}  # fmt: skip

Key = object


class Effects:
    """The buffers a stretch of code reads and writes."""

    def __init__(self) -> None:
        self.reads: set[Key] = set()
        self.writes: set[Key] = set()

    def touch_everything(self) -> None:
        self.writes.add(ANY)

    def touched(self) -> set[Key]:
        return self.reads | self.writes


def _overlap(a: set[Key], b: set[Key]) -> bool:
    if not a or not b:
        return False
    return ANY in a or ANY in b or bool(a & b)


def _hazard(before: Effects, after: Effects) -> bool:
    return _overlap(before.writes, after.touched()) or _overlap(before.touched(), after.writes)


def _key(memref: SSAValue) -> Key | None:
    owner = memref.owner
    if isinstance(owner, K.AllocaOp):
        return None
    if isinstance(owner, K.SmemOp):
        return DYNAMIC_SMEM if owner.is_dynamic else memref
    if isinstance(memref, BlockArgument) and isinstance(owner.parent_op(), K.KernelFuncOp):
        return GLOBAL
    return ANY


def _add_op(op: Operation, fx: Effects) -> None:
    """The memory effects of `op` and everything nested in it."""
    for inner in op.walk():
        name = inner.name
        if name in PURE or name.startswith(("arith.", "math.")):
            continue

        def read(v: SSAValue) -> None:
            if (k := _key(v)) is not None:
                fx.reads.add(k)

        def write(v: SSAValue) -> None:
            if (k := _key(v)) is not None:
                fx.writes.add(k)

        if name in ("kernel.load", "loop.load"):
            read(inner.memref)  # type: ignore[attr-defined]
        elif name in ("kernel.store", "loop.store"):
            write(inner.memref)  # type: ignore[attr-defined]
        elif isinstance(inner, K.CpAsyncOp):
            write(inner.dst)
            read(inner.src)
        elif isinstance(inner, K.TmaLoadOp):
            write(inner.dst)
            read(inner.src)
            write(inner.barrier)
        elif isinstance(inner, K.MbarrierInitOp | K.MbarrierArriveExpectTxOp):
            write(inner.barrier)
        else:  # cp_async_wait, mbarrier_wait (asynchronous writes land) and unknown ops
            fx.touch_everything()


def _stretch(ops: list[Operation], at_edge: bool) -> Effects:
    fx = Effects()
    for op in ops:
        _add_op(op, fx)
    if at_edge:
        fx.touch_everything()
    return fx


def _drop_in_block(block: Block, top: bool, kernel: str) -> int:
    """Drop the redundant barriers directly in `block`; `top`: the kernel's body block."""
    dropped = 0
    changed = True
    while changed:
        changed = False
        ops = list(block.ops)
        barriers = [i for i, op in enumerate(ops) if isinstance(op, K.BarrierOp)]
        for n, i in enumerate(barriers):
            prev = barriers[n - 1] if n > 0 else None
            nxt = barriers[n + 1] if n + 1 < len(barriers) else None
            before = _stretch(ops[(prev + 1 if prev is not None else 0) : i], prev is None and not top)
            after = _stretch(ops[i + 1 : nxt if nxt is not None else len(ops)], nxt is None and not top)
            if _hazard(before, after):
                continue
            where = "in a nested block" if not top else "in the kernel body"
            LOG.info(
                "drop-redundant-barriers: @%s: dropped a barrier %s (no conflicting access "
                "across it)", kernel, where,
            )  # fmt: skip
            ops[i].detach()
            ops[i].erase()
            dropped += 1
            changed = True
            break
    return dropped


@dataclass(frozen=True)
class DropRedundantBarriers(ModulePass):
    """Remove kernel.barriers that separate no conflicting shared/global memory accesses.

    A barrier goes when no write before it (back to the previous barrier of its block) meets an
    access of the same buffer after it (up to the next barrier), or the other way round; loop and
    if bodies are treated conservatively (their edges touch everything).
    """

    name = "drop-redundant-barriers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            top = func.body.block
            blocks = [top] + [
                b for inner in top.walk() for r in inner.regions for b in r.blocks
            ]
            for block in blocks:
                _drop_in_block(block, block is top, func.sym_name.data)
            kept = sum(isinstance(o, K.BarrierOp) for o in func.body.walk())
            if kept:
                LOG.info(
                    "drop-redundant-barriers: @%s: kept %d barrier(s) that order conflicting "
                    "accesses", func.sym_name.data, kept,
                )  # fmt: skip
