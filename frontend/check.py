"""Check an executor against PyTorch on fresh random inputs (used by the tests of every level).

    err = relative_error(prog, lambda module, arrays: exec_torch.run(module, arrays))
    assert err < 1e-6

Fresh inputs have the captured inputs' shapes and dtypes: floating inputs are redrawn (uniform
on [0, max) where the captured input was non-negative, so `sqrt(rand)`-style programs stay in
their domain; normal otherwise), integer inputs (indices) are redrawn in [0, max].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from dpl.frontend.capture import Program


def fresh_inputs(prog: Program, seed: int = 1) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    out = []
    for x in prog.args[: prog.num_inputs]:
        if x.is_floating_point():
            if x.numel() and float(x.min()) >= 0:
                y = torch.rand(x.shape, generator=gen, dtype=x.dtype) * float(x.max())
            else:
                y = torch.randn(x.shape, generator=gen, dtype=x.dtype)
        elif x.dtype == torch.bool:
            y = torch.rand(x.shape, generator=gen) < 0.5
        else:
            hi = int(x.max()) + 1 if x.numel() else 1
            y = torch.randint(0, max(hi, 1), x.shape, generator=gen, dtype=x.dtype)
        out.append(y)
    return out


def reference(prog: Program, inputs: Sequence[torch.Tensor]) -> list[np.ndarray]:
    assert prog.fn is not None, "program has no PyTorch callable"
    with torch.no_grad():
        res = prog.fn(*inputs)
    res = res if isinstance(res, (tuple, list)) else (res,)
    return [r.detach().numpy() for r in res]


def rel_err(out: Any, ref: Any) -> float:
    """The relative error of `out` against the reference `ref`: ‖out − ref‖₂ / ‖ref‖₂ in float64
    (over the finite elements of `ref`; a zero norm divides by 1). The one definition dpl uses
    (parity, the bench, the executor checks). Elements equal in both (NaN with NaN, an inf with the
    same inf) differ by 0; any other non-finite difference (a NaN or inf where the reference has
    something else: an unwritten or overflowed element) makes the error inf, as does a shape that
    differs. Tensors or NumPy arrays; sequences of them give the worst pair (inf when the counts
    differ)."""
    if isinstance(out, (list, tuple)) or isinstance(ref, (list, tuple)):
        # one tensor beside a list is a list of one (never iterated: a 0-d tensor has no rows)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        refs = list(ref) if isinstance(ref, (list, tuple)) else [ref]
        if len(outs) != len(refs):
            return math.inf
        return max((rel_err(o, r) for o, r in zip(outs, refs)), default=0.0)
    o, r = _float64(out), _float64(ref)
    if o.shape != r.shape:
        return math.inf
    r = r.to(o.device)
    same = (o == r) | (o.isnan() & r.isnan())
    diff = torch.where(same, torch.zeros_like(o), o - r)
    if not bool(diff.isfinite().all()):
        return math.inf
    norm = float(torch.where(r.isfinite(), r, torch.zeros_like(r)).norm())
    return float(diff.norm()) / (norm or 1.0)


def _float64(x: Any) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.detach().double()
    return torch.from_numpy(np.array(x, dtype=np.float64))  # a copy: executor views may be read-only or run backwards


def relative_error(
    prog: Program,
    run: Callable[[object, list[np.ndarray]], list[np.ndarray]],
    seed: int = 1,
) -> float:
    """The worst `rel_err` over the outputs, with fresh inputs, params as captured."""
    inputs = fresh_inputs(prog, seed)
    refs = reference(prog, inputs)
    arrays = [x.detach().numpy() for x in [*inputs, *prog.args[prog.num_inputs :]]]
    outs = run(prog.module, arrays)
    if len(outs) != len(refs):
        raise AssertionError(f"{len(outs)} outputs, PyTorch gives {len(refs)}")
    worst = 0.0
    for o, r in zip(outs, refs):
        if o.shape != r.shape:
            raise AssertionError(f"output shape {o.shape} differs from PyTorch's {r.shape}")
        worst = max(worst, rel_err(o, r))
    return worst
