"""Session 31 (issue 13, device): what two changes would gain, before building either.

1. Norms and reductions over several trailing dims (rows delinearized over the buffer's dims:
   hold-rows and stage-inputs decline them) against the same data viewed as 2-D rows (what a
   merged row would run).
2. Pointwise chains of an element count 4 does not divide (one float a thread, no tail kernel
   under min-tail-bytes) against the count rounded down to a multiple of 4 (float4s).

    python3 bench/results/session31/tools/probe31.py [JSON]"""
import sys

from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase


def norm(kind, shape, nd):
    norm_shape = shape[-nd:]
    make = (lambda: nn.LayerNorm(norm_shape)) if kind == "ln" else (lambda: nn.RMSNorm(norm_shape, eps=1e-6))
    return S(f"{kind}{nd}_{'x'.join(map(str, shape))}", "norm", make, (shape,))


def pair(kind, shape, nd):
    rows = 1
    for s in shape[:-nd]:
        rows *= s
    n = 1
    for s in shape[-nd:]:
        n *= s
    return [norm(kind, shape, nd), norm(kind, (rows, n), 1)]


def red(op, shape, dims):
    return S(f"{op}{''.join(map(str, dims))}_{'x'.join(map(str, shape))}", "reduce",
             lambda: sweep.Reduce(op, dims), (shape,))


def pw(chain, shape):
    return S(f"pw_{chain}_{'x'.join(map(str, shape))}", "pointwise", lambda: sweep.Pointwise(chain, shape[-1]), (shape, shape))


cases = [
    *pair("rms", (1984, 8, 64), 2),
    *pair("rms", (64, 5, 17, 64), 3),
    *pair("ln", (64, 256, 64, 83), 2),
    *pair("rms", (67, 16, 256, 9), 2),
    *pair("ln", (2048, 64, 16), 2),
    *pair("rms", (32, 256, 64), 2),
    *pair("ln", (7, 128, 79, 79), 2),
    *pair("ln", (300, 24, 40), 2),
    red("mean", (576, 64, 27), (1, 2)), red("mean", (576, 1728), (1,)),
    red("sum", (64, 128, 29, 31), (2, 3)), red("sum", (8192, 899), (1,)),
    red("amax", (1024, 43, 64), (1, 2)), red("amax", (1024, 2752), (1,)),
    pw("silu_mul", (2275117,)), pw("silu_mul", (2275116,)),
    pw("silu_mul", (457, 3, 521)), pw("silu_mul", (457, 3, 520)),
    pw("sigmoid_bias", (2, 1039, 1235)), pw("sigmoid_bias", (2, 1039, 1236)),
    pw("gelu_mul_add", (1044391,)), pw("gelu_mul_add", (1044392,)),
    pw("sq_diff", (8000001,)), pw("sq_diff", (8000000,)),
    pw("silu_mul", (333, 12289)), pw("silu_mul", (333, 12288)),
]
rows = time_variants(cases, {"tree": None}, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, ["tree"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
