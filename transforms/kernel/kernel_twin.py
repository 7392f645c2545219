"""Tile-level ops as kernel IR, one by one: what materialize-mma (mma_builder.py) and
materialize-attention (flash_step.py) share when they lower a tile's epilogue, stages or regions.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile


def kernel_twin(op: Operation, get: Callable[[SSAValue], SSAValue]) -> Operation | None:
    """Tile-level `op` as a new kernel-level op, its operands through `get`: loop.load,
    loop.store and tile.atomic become kernel.load, kernel.store and kernel.atomic; a region-free
    arith or math op is copied. None for any other op (an affine.apply becomes index arithmetic,
    which the caller's emitter builds)."""
    if isinstance(op, loop.LoadOp):
        return K.LoadOp(get(op.memref), [get(i) for i in op.indices], op.map.data)
    if isinstance(op, loop.StoreOp):
        return K.StoreOp(get(op.value), get(op.memref), [get(i) for i in op.indices], op.map.data)
    if isinstance(op, tile.AtomicOp):
        return K.AtomicOp(op.kind.data, get(op.value), get(op.memref), [get(i) for i in op.indices], op.map.data)
    if op.dialect_name() in ("arith", "math") and not op.regions:
        new = op.clone_without_regions()
        for i, o in enumerate(op.operands):
            new.operands[i] = get(o)
        return new
    return None
