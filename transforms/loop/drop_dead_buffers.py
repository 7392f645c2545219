"""drop-dead-buffers: erase kernels whose outputs nobody reads, and allocations nobody uses.

A kernel is dead when every buffer it writes is an intermediate of @main (allocated there, not
returned) that no later kernel reads. Returned buffers and @main's arguments are never dead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import loop


def drop_dead_buffers(main: func.FuncOp) -> None:
    changed = True
    while changed:
        changed = False
        ops = list(main.body.block.ops)
        returned = {v for op in ops if isinstance(op, func.ReturnOp) for v in op.arguments}
        read = {v for op in ops if isinstance(op, loop.KernelOp) for v in op.ins}
        for op in reversed(ops):
            if isinstance(op, loop.KernelOp) and all(
                isinstance(out.owner, memref.AllocOp) and out not in returned and out not in read
                for out in op.outs
            ):
                op.detach()
                op.erase()
                changed = True
            elif isinstance(op, memref.AllocOp) and not op.memref.uses:
                op.detach()
                op.erase()
                changed = True


@dataclass(frozen=True)
class DropDeadBuffers(ModulePass):
    """Erase kernels whose outputs are never read and allocations that are never used."""

    name = "drop-dead-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for main in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            drop_dead_buffers(main)
