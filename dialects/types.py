"""Sizes of builtin types, the one place they are computed (transforms, the driver, the host).

    element_bytes(f32) == 4; element_bytes(i1) == 1; element_bytes(index) == 8
    memref_bytes(memref<4x8xf16>) == 64
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Attribute


def element_bytes(t: Attribute) -> int:
    """Bytes one element of scalar type `t` takes in memory: its bit width rounded up to whole
    bytes (i1 is one byte, as CUDA's bool), 8 for index."""
    if isinstance(t, IndexType):
        return 8
    bits = getattr(t, "bitwidth", None)
    if not isinstance(bits, int):
        raise ValueError(f"no size for type {t}")
    return -(-bits // 8)


def memref_bytes(t: MemRefType) -> int:
    """Bytes of a statically shaped memref."""
    return math.prod(t.get_shape()) * element_bytes(t.element_type)
