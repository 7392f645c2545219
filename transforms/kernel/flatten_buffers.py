"""flatten-buffers: a kernel takes a buffer it indexes only by flat offsets as a 1-D buffer.

collapse-pointwise runs a pointwise tile as one flat axis `%f`, and each access then indexes its
buffer at the row-major indices of a flat offset (`transforms.tile.common.delinearize`):
`%x[%e floordiv 16411, %e mod 16411]` of a `memref<16384x16411xf32>`. Where every access of a
kernel argument has that form, the kernel takes the argument as the 1-D buffer of the same
elements (the launch passes the same buffer: a flat view, which `kernel.launch` accepts) and each
access reads `%x[%e]`:

    kernel.func @k_mul(%x : memref<16384x16411xf32>, ...) {
      ... kernel.load %x[(%v * 4 + %l) floordiv 16411, (%v * 4 + %l) mod 16411] ...
 -> kernel.func @k_mul(%x : memref<268877824xf32>, ...) {
      ... kernel.load %x[%v * 4 + %l] ...

The same element is read at the same offset, so meaning is kept; the printed offset loses its
division and remainder, and vectorize-access (run after it) sees the 4 consecutive elements of
one float4. Run it after materialize, before vectorize-access.

Declines (logged to `dpl.passes`) a kernel that uses shared memory (a matmul or a reduction:
only elementwise kernels, those collapse-pointwise made and the zero fills of atomic-init-kernels,
are flattened), and per argument one that is already 1-D or not a memref, that a non-access op uses (cp.async, TMA, atomics), or that an access indexes other than
by a flat offset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import kernel as K
from dpl.transforms.tile.common import LOG, flat_offset

ACCESSES = (K.LoadOp, K.StoreOp)


def _declines(arg, ty: MemRefType) -> str | None:
    for use in arg.uses:
        op = use.operation
        if not isinstance(op, ACCESSES) or op.memref is not arg or (isinstance(op, K.StoreOp) and op.value is arg):
            return f"{op.name} uses it"
        if flat_offset(op.map.data.results, ty.get_shape()) is None:
            return f"{op.name} indexes it other than by one flat offset"
    return None


def _flat_access(op: K.LoadOp | K.StoreOp, new_arg) -> Operation:
    amap = op.map.data
    shape = op.memref.type.get_shape()  # type: ignore[union-attr]
    flat = flat_offset(amap.results, shape)
    assert flat is not None
    new_map = AffineMap(amap.num_dims, amap.num_symbols, (flat,))
    if isinstance(op, K.LoadOp):
        new: Operation = K.LoadOp(new_arg, op.indices, new_map, gather=op.gather is not None, mask=op.mask)
        new.results[0].name_hint = op.result.name_hint
    else:
        new = K.StoreOp(op.value, new_arg, op.indices, new_map)
    new.attributes |= op.attributes
    Rewriter.replace_op(op, new)
    return new


def flatten_buffers(func: K.KernelFuncOp) -> list[tuple[str, str | None]]:
    """Flatten each argument of `func` the module docstring allows; (argument, reason it was
    declined or None) per memref argument of rank > 1."""
    done: list[tuple[str, str | None]] = []
    block = func.body.block
    if any(isinstance(op, K.SmemOp) for op in func.walk()):
        return [("", "it stages in shared memory (not an elementwise kernel)")]
    for i, arg in enumerate(list(block.args)):
        ty = arg.type
        if not isinstance(ty, MemRefType) or len(ty.get_shape()) < 2:
            continue
        name = f"%{arg.name_hint or i}"
        why = _declines(arg, ty)
        done.append((name, why))
        if why is not None:
            continue
        flat_type = MemRefType(ty.element_type, [math.prod(ty.get_shape())], ty.layout, ty.memory_space)
        new_arg = block.insert_arg(flat_type, i)
        new_arg.name_hint = arg.name_hint
        for use in list(arg.uses):
            _flat_access(use.operation, new_arg)  # type: ignore[arg-type]
        block.erase_arg(arg)
    return done


@dataclass(frozen=True)
class FlattenBuffers(ModulePass):
    """Take each kernel argument that is indexed only by flat offsets as a 1-D buffer."""

    name = "flatten-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            for name, reason in flatten_buffers(func):
                where = f"@{func.sym_name.data} {name}".rstrip()
                if reason is None:
                    LOG.info("flatten-buffers: %s: 1-D", where)
                else:
                    LOG.info("flatten-buffers: declined %s: %s", where, reason)
