"""dynamic-smem: a kernel whose static shared memory passes 48 KiB gets it dynamically.

CUDA caps a block's static `__shared__` memory at 48 KiB; more must be dynamic (`extern
__shared__`, the launch reserving the bytes). When the `kernel.smem` buffers of a kernel.func
add up to more than 48 KiB, each becomes `kernel.smem dynamic offset N` (16-byte aligned, in
order) and the func's `smem` is set to the total.

    kernel.func @k(...) ... smem 0 {
      %a_smem = kernel.smem : memref<8192xf32, #kernel.smem>       // 32 KiB
      %b_smem = kernel.smem : memref<8192xf32, #kernel.smem>       // 32 KiB
 -> kernel.func @k(...) ... smem 65536 {
      %a_smem = kernel.smem dynamic offset 0 : memref<8192xf32, #kernel.smem>
      %b_smem = kernel.smem dynamic offset 32768 : memref<8192xf32, #kernel.smem>

Declines a kernel within 48 KiB, or one that already has dynamic buffers. More than a block
can have on the module's #kernel.target (227 KiB on sm_90, the default) is a one-line error
naming the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntAttr, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import kernel as K
from dpl.transforms.kernel.lowering import MaterializeError
from dpl.transforms.tile.target import target_smem

STATIC_SMEM_LIMIT = 48 * 1024


def dynamic_smem(kfunc: K.KernelFuncOp, limit: int) -> None:
    smem = [op for op in kfunc.walk() if isinstance(op, K.SmemOp)]
    total = sum(op.size_bytes() for op in smem)
    if total <= STATIC_SMEM_LIMIT or kfunc.smem.data or any(op.is_dynamic for op in smem):
        return
    offset = 0
    for op in smem:
        offset = -(-offset // 16) * 16
        new = K.SmemOp(op.result.type, offset)  # type: ignore[arg-type]
        Rewriter.replace_op(op, new)
        offset += new.size_bytes()
    if offset > limit:
        raise MaterializeError(
            f"materialize: @{kfunc.sym_name.data}: 'kernel.smem' needs {offset} bytes of shared "
            f"memory, more than the {limit} a block can have"
        )
    kfunc.smem = IntAttr(offset)


@dataclass(frozen=True)
class DynamicSmem(ModulePass):
    """Make the shared memory of each kernel.func past 48 KiB dynamic."""

    name = "dynamic-smem"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc in [f for f in op.body.block.ops if isinstance(f, K.KernelFuncOp)]:
            dynamic_smem(kfunc, target_smem(op))
