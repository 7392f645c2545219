"""Session 44 (issue 13, device): special functions with their series as elementwise chains
(`now`: erfinv's polynomials by Horner's rule, i0's Chebyshev series by Clenshaw's recurrence,
Python-number constants inlined into their readers by inline-constants) against the series as
reductions over a new dim (`series`, as before: a pow or a cos per term) and against the chains
without inline-constants (`noinline`), with eager and torch.compile in the same process:

    python3 bench/results/session44/tools/special44.py [--cases REGEX] [--variants now,series,noinline] [JSON]"""
import importlib
import re
import sys
from contextlib import ExitStack, contextmanager

import torch
from torch import nn

from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.dialects import torch as T  # noqa: E402
from dpl.frontend import aten  # noqa: E402
from dpl.transforms.decompose import inline_constants as IC  # noqa: E402
from xdsl.dialects.builtin import TensorType  # noqa: E402

sys.path.insert(0, "bench")
import sweep  # noqa: E402

horner = aten._horner


def polynomial(c, coeffs, w):
    """The reduction form before (erfinv's polynomials; shorter series kept Horner's rule)."""
    if len(coeffs) <= 8:
        return horner(c, coeffs, w)
    t = w.type
    rank, n, elem = len(t.get_shape()), len(coeffs), t.element_type
    box = TensorType(elem, [*t.get_shape(), n])
    exponents = aten._laid(c, rank + 1, rank, [float(n - 1 - k) for k in range(n)], elem, "exponents")
    powers = aten._op(c, T.PowOp, box, aten._unsqueezed(c, w, rank), exponents)
    terms = aten._op(c, T.MulOp, box, powers, aten._laid(c, rank + 1, rank, list(coeffs), elem, "coefficients"))
    return c.emit(T.SumOp(terms, [rank], False, t))


def chebyshev(c, coeffs, t):
    """The reduction form before: the sum of coeffs[k] cos(j acos(t)), the constant halved."""
    tt = t.type
    rank, n, elem = len(tt.get_shape()), len(coeffs), tt.element_type
    box = TensorType(elem, [*tt.get_shape(), n])
    angle = aten._unsqueezed(c, aten._op(c, T.AcosOp, tt, t), rank)
    orders = aten._laid(c, rank + 1, rank, [float(n - 1 - k) for k in range(n)], elem, "orders")
    cosines = aten._op(c, T.CosOp, box, aten._op(c, T.MulOp, box, angle, orders))
    halved = [*coeffs[:-1], coeffs[-1] / 2]
    terms = aten._op(c, T.MulOp, box, cosines, aten._laid(c, rank + 1, rank, halved, elem, "coefficients"))
    return c.emit(T.SumOp(terms, [rank], False, tt))


@contextmanager
def both(*managers):
    """The context managers entered together."""
    with ExitStack() as stack:
        for m in managers:
            stack.enter_context(m)
        yield


class F(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


S = sweep.SweepCase
CASES = [
    S("erfinv_1048576", "special", lambda: F(lambda x: torch.erfinv(torch.tanh(x))), ((1048576,),)),
    S("i0_1048576", "special", lambda: F(lambda x: torch.special.i0(x * 4)), ((1048576,),)),
    S("i0e_1048576", "special", lambda: F(lambda x: torch.special.i0e(x * 20)), ((1048576,),)),
]
VARIANTS = {
    "now": None,
    "series": lambda: both(patched(aten, "_horner", polynomial), patched(aten, "_chebyshev", chebyshev)),
    "noinline": lambda: patched(IC.InlineConstants, "apply", lambda self, ctx, op: None),
}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["now", "series", "noinline"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--variants")]
sys.path.insert(0, "bench/results/session43/tools")
batch = [c for c in importlib.import_module("ordinary43").CASES
         if re.search("beta_logpdf|loss_batch|log_scan|nan_stats|bn_stats|diff_trapz|lppool|rope", c.name)]
cases = [c for c in CASES + batch if re.search(pat, c.name)]
rows = time_variants(cases, {k: VARIANTS[k] for k in names}, "eager", 20.0, 34)
report(rows, names, "eager", 34, rest[0] if rest else None)
report(rows, names, "compile", 34, None)
