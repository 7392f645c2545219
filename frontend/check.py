"""Check an executor against PyTorch on fresh random inputs (used by the tests of every level).

    err = relative_error(prog, lambda module, arrays: exec_torch.run(module, arrays))
    assert err < 1e-6

Fresh inputs have the captured inputs' shapes and dtypes: floating inputs are redrawn (uniform
on [0, max) where the captured input was non-negative, so `sqrt(rand)`-style programs stay in
their domain; normal otherwise), integer inputs (indices) are redrawn in [0, max].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


def relative_error(
    prog: Program,
    run: Callable[[object, list[np.ndarray]], list[np.ndarray]],
    seed: int = 1,
) -> float:
    """max over outputs of ||out - ref|| / ||ref|| with fresh inputs, params as captured."""
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
        r64 = r.astype(np.float64)
        denom = np.linalg.norm(r64) or 1.0
        worst = max(worst, float(np.linalg.norm(o.astype(np.float64) - r64) / denom))
    return worst
