"""The dpl dialects, one module each: torch, tensor, loop, tile, kernel, mma (tensor cores),
attn (attention as one op at the loop and tile levels).

`DIALECTS` maps each dialect name dpl's tools accept to a factory; upstream `builtin`, `func`,
`arith`, `math`, `memref`, `scf` and `affine` are included so scalar bodies and programs parse. Our `tensor`
dialect takes the place of xDSL's upstream one of the same name; `arith` gains the ops of
`dialects/scalar.py` (arith.remf) and `math` its math.lgamma, ops xDSL lacks.
"""

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def _torch() -> Dialect:
    from dpl.dialects.torch import Torch

    return Torch


def _tensor() -> Dialect:
    from dpl.dialects.tensor import Tensor

    return Tensor


def _loop() -> Dialect:
    from dpl.dialects.loop import Loop

    return Loop


def _tile() -> Dialect:
    from dpl.dialects.tile import Tile

    return Tile


def _kernel() -> Dialect:
    from dpl.dialects.kernel import Kernel

    return Kernel


def _mma() -> Dialect:
    from dpl.dialects.mma import Mma

    return Mma


def _attn() -> Dialect:
    from dpl.dialects.attn import Attn

    return Attn


def _arith() -> Dialect:
    from dpl.dialects.scalar import arith_dialect

    return arith_dialect()


def _math() -> Dialect:
    from dpl.dialects.scalar import math_dialect

    return math_dialect()


def _upstream(name: str) -> Callable[[], Dialect]:
    def factory() -> Dialect:
        from xdsl.universe import Universe

        return Universe.get_multiverse().all_dialects[name]()

    return factory


DIALECTS: dict[str, Callable[[], Dialect]] = {
    **{name: _upstream(name) for name in ("builtin", "func", "memref", "scf", "affine")},
    "arith": _arith,
    "math": _math,
    "torch": _torch,
    "tensor": _tensor,
    "loop": _loop,
    "tile": _tile,
    "kernel": _kernel,
    "mma": _mma,
    "attn": _attn,
}


def make_context() -> Context:
    """A context with every dialect dpl uses registered (loaded lazily)."""
    ctx = Context()
    for name, factory in DIALECTS.items():
        ctx.register_dialect(name, factory)
    return ctx
