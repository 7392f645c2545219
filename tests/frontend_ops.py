"""The ops of issue 14 (and the other ATen ops the frontend gained with them), one program each,
with the inputs that exercise them: shared by tests/test_frontend_ops.py (every CPU executor
against PyTorch in float64, nvcc on the CUDA) and tests/test_frontend_ops_gpu.py (parity on the
GPU).

`OPS[name] = (fn, specs)`: `fn` is a callable or nn.Module, `specs` one input spec each:
("f", shape) normal floats with edge values planted (0, -0, +-inf, halves for round),
("fin", shape) normal floats, ("pos", shape) floats in [0.5, 2.5), ("b", shape) bools,
("i", shape, low, high) int64. `make_inputs(specs, dtype, seed)` draws them.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

EDGES = (0.0, -0.0, math.inf, -math.inf, 2.5, -2.5, 0.5, -1.5)

S = (3, 5, 7)  # odd sizes
M = (5, 7)


def _bn(cls, c: int) -> nn.Module:
    m = cls(c)
    with torch.no_grad():
        m.running_mean.normal_()
        m.running_var.uniform_(0.5, 2.0)
        m.weight.normal_()
        m.bias.normal_()
    return m.eval()


def _affine(m: nn.Module) -> nn.Module:
    """`m` with random weight and bias (not PyTorch's ones and zeros)."""
    with torch.no_grad():
        m.weight.normal_()
        m.bias.normal_()
    return m


def _gn(groups: int, c: int) -> nn.Module:
    m = nn.GroupNorm(groups, c)
    with torch.no_grad():
        m.weight.normal_()
        m.bias.normal_()
    return m


class _WeightedBag(nn.Module):
    """nn.EmbeddingBag's sum with per-sample weights."""

    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(11, 6, mode="sum")

    def forward(self, i, w):
        return self.bag(i, per_sample_weights=w)


def _starts(lengths, n: int):
    """Bags' (segments') starts from lengths drawn at random: the running sum before each,
    capped at the n indices (the bags past them empty)."""
    return (torch.cumsum(lengths, 0) - lengths).clamp(max=n)


def _bounds(lengths, n: int):
    """`_starts` and then n: offsets of bags that cover the n indices."""
    return torch.cat([_starts(lengths, n), lengths[:1] * 0 + n])


def _segments(x, lengths, reduces=("sum", "mean", "max", "min", "prod"), **kw):
    """segment_reduce of x in each way, the segments' lengths drawn at random (`_bounds`)."""
    o = _bounds(lengths, x.shape[0])
    return tuple(torch.segment_reduce(x, r, lengths=o[1:] - o[:-1], **kw) for r in reduces)


def _setitem(assign):
    """A program that writes `y = x.clone()` in place with `assign(y, *rest)` and returns y."""

    def fn(x, *rest):
        y = x.clone()
        assign(y, *rest)
        return y * 1.0

    return fn


class _TemporalShift(nn.Module):
    """An eighth of the channels one step back in time, an eighth one step forward (TSM)."""

    def __init__(self, t: int):
        super().__init__()
        self.t = t

    def forward(self, x):
        nt, c, h, w = x.shape
        x = x.view(nt // self.t, self.t, c, h, w)
        f = c // 8
        out = torch.zeros_like(x)
        out[:, :-1, :f] = x[:, 1:, :f]
        out[:, 1:, f:2 * f] = x[:, :-1, f:2 * f]
        out[:, :, 2 * f:] = x[:, :, 2 * f:]
        return out.view(nt, c, h, w)


class _SpectralConv2d(nn.Module):
    """A Fourier neural operator's layer (the FNO reference code): the low modes of rfft2 times
    complex weights, into a zeroed spectrum, and back."""

    def __init__(self, c: int, modes: int):
        super().__init__()
        gen = torch.Generator().manual_seed(3)
        self.modes = modes
        self.w1 = nn.Parameter(torch.randn(c, c, modes, modes, 2, generator=gen).div(c))
        self.w2 = nn.Parameter(torch.randn(c, c, modes, modes, 2, generator=gen).div(c))

    def forward(self, x):
        m, (h, w) = self.modes, x.shape[-2:]
        x_ft = torch.fft.rfft2(x)
        out = torch.zeros(x.shape[0], self.w1.shape[1], h, w // 2 + 1, dtype=x_ft.dtype)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m, :m], torch.view_as_complex(self.w1))
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -m:, :m], torch.view_as_complex(self.w2))
        return torch.fft.irfft2(out, s=(h, w))


def _cholesky_family(spd, b):
    """A Cholesky factor, its triangular solves, cholesky_solve / _inverse, slogdet and logdet."""
    l = torch.linalg.cholesky(spd)
    return (l, torch.linalg.solve_triangular(l, b, upper=False), torch.linalg.solve_triangular(l.mT, b, upper=True, unitriangular=True),
            torch.cholesky_solve(b, l), torch.cholesky_inverse(l), torch.linalg.slogdet(spd - 2 * torch.eye(4, dtype=b.dtype, device=b.device))[1],
            torch.logdet(spd))  # fmt: skip


def _view_bits(x):
    """A float's mantissa bits as a float of the same dtype plus its exponent field, through
    `view(dtype)` both ways (int32 for float32, int64 for float64)."""
    wide = x.dtype == torch.float64
    bits = x.view(torch.int64 if wide else torch.int32)
    mantissa, exponent = ((1 << 52) - 1, 52) if wide else ((1 << 23) - 1, 23)
    return (bits & mantissa).view(x.dtype) + ((bits >> exponent) & 0x7FF).to(x.dtype)


def _at_column_0(x, value: int):
    """x with its first column set to `value` (a where: the value stays exact in x's dtype)."""
    return torch.where(torch.arange(x.shape[-1]) == 0, torch.tensor(value, dtype=x.dtype), x)


def _slice_chain(x, y):
    """Assignments that overlap, a read of the assigned tensor, and a broadcast of a part."""
    z = torch.zeros_like(x)
    z[:, 1:4] = x[:, :3]
    z[1:, :, 2:6] = y[:2]
    z[:, 2] = z[:, 3] * 2.0
    w = z[:, 1:3].sum(1, keepdim=True)
    return z * 1.0, w + z[:, 4:5, :1]


OPS: dict[str, tuple[object, list[tuple]]] = {
    # pointwise
    "abs": (torch.abs, [("f", S)]),
    "abs_int": (lambda x: torch.abs(x) * 2, [("i", M, -9, 9)]),
    "sign": (torch.sign, [("f", S)]),
    "clamp": (lambda x: torch.clamp(x, -0.5, 0.75), [("f", S)]),
    "clamp_min": (lambda x: torch.clamp(x, min=0.25), [("f", S)]),
    "clamp_max": (lambda x: x.clamp(max=-0.25), [("f", S)]),
    "clamp_tensor": (lambda x, lo, hi: torch.clamp(x, lo, hi), [("f", S), ("fin", (5, 1)), ("fin", (7,))]),
    "clip": (lambda x: torch.clip(x, -1.0, 1.0), [("f", S)]),
    "hardtanh": (nn.Hardtanh(-0.5, 1.5), [("f", S)]),
    "relu6": (nn.ReLU6(), [("f", S)]),
    "relu6_functional": (F.relu6, [("f", S)]),
    "leaky_relu": (nn.LeakyReLU(0.1), [("f", S)]),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3) + F.rrelu(x * 2.0), [("f", S)]),
    "elu": (nn.ELU(0.7), [("f", S)]),
    "selu": (nn.SELU(), [("f", S)]),
    "celu": (nn.CELU(0.5), [("f", S)]),
    "softplus": (nn.Softplus(beta=2.0, threshold=5.0), [("f", S)]),
    "softplus_default": (F.softplus, [("f", S)]),
    "softsign": (nn.Softsign(), [("f", S)]),
    "mish": (nn.Mish(), [("f", S)]),
    "hardsigmoid": (nn.Hardsigmoid(), [("f", S)]),
    "hardswish": (nn.Hardswish(), [("f", S)]),
    "log": (torch.log, [("f", S)]),
    "log1p": (torch.log1p, [("f", S)]),
    "log2": (torch.log2, [("f", S)]),
    "log10": (torch.log10, [("f", S)]),
    "exp2": (torch.exp2, [("f", S)]),
    "expm1": (torch.expm1, [("f", S)]),
    "erf": (torch.erf, [("f", S)]),
    "floor": (torch.floor, [("f", S)]),
    "ceil": (torch.ceil, [("f", S)]),
    "round": (lambda x: torch.round(x * 4.0), [("f", S)]),
    "round_decimals": (lambda x: torch.round(x, decimals=2), [("f", S)]),
    "round_negative_decimals": (lambda x: torch.round(x * 100.0, decimals=-1), [("f", S)]),
    "trunc": (torch.trunc, [("f", S)]),
    "tan_atan": (lambda x: torch.tan(x) + torch.atan(x), [("f", S)]),
    "asin_acos": (lambda x: torch.asin(x) + torch.acos(x), [("f", S)]),
    "sinh_cosh": (lambda x: torch.sinh(x) - torch.cosh(x), [("f", S)]),
    "asinh_acosh_atanh": (lambda x: torch.asinh(x) + torch.acosh(x) + torch.atanh(x), [("f", S)]),
    "atan2": (torch.atan2, [("f", S), ("f", S)]),
    # log(y) plants -inf, inf and NaN beside x's 0, inf, -inf: (-inf, NaN) is inf, (-2.5, NaN) NaN
    "hypot": (lambda x, y: torch.hypot(x, torch.log(y)), [("f", S), ("f", (7,))]),
    # both 0 (0), both inf, and squares that overflow float32 (the GPU test; float64's overflow:
    # test_frontend_ops.test_hypot_does_not_overflow), scaled back for `compare`'s norms
    "hypot_large_zero": (lambda x, y: torch.hypot(x * 1e30, y * 1e30) * 1e-30, [("f", M), ("f", M)]),
    "erfinv": (torch.erfinv, [("f", S)]),  # NaN beyond +-1 and at +-inf; 0, -0
    # +-1 (inf) from the clamp; integers -2..2; 1 - x of 2^-14 (the tail branch) and 2^-30 (the
    # far tail): exact products, so 1 - x is rounded alike everywhere (erfinv near 1 magnifies it)
    "erfinv_edges_tails": (lambda x, i, y: (torch.erfinv(x.clamp(-1.0, 1.0)), torch.erfinv(i), torch.erfinv(1 - y * 2.0**-14),
                                           torch.erfinv(y * 2.0**-30 - 1)), [("f", M), ("i", M, -2, 3), ("pos", M)]),
    # every branch: the table (0..50), the continued fraction (past 50) and its first term (past
    # 5e7); 2 exp(x^2) less the table (0..-6.1), without it (to -26.7), inf below; +-inf, 0, -0
    # (scaled so that compare's squares do not overflow; each side alone, or the larger values hide the rest)
    "erfcx": (lambda x: (torch.special.erfcx(x.abs() * 30), torch.special.erfcx(x.abs() * 1e8 + 60.0), torch.special.erfcx(-x.abs() * 5),
                         torch.special.erfcx(-x.abs() * 30) * 1e-160), [("f", S)]),
    # 1 - erf within 0.5; exp(-x^2) erfcx(|x|) beyond, from 2 below 0; underflow past 26.5
    "erfc": (lambda x: (torch.erfc(x), torch.erfc(x * 10), torch.special.erfc(x * 0.2)), [("f", S)]),
    # log1p(-erfc / 2) from -1 on, log(erfcx / 2) - t^2 below: finite far into the left tail
    "log_ndtr": (lambda x: (torch.special.log_ndtr(x * 2), torch.special.log_ndtr(x * 30)), [("f", S)]),
    # x itself: NaN outside [0, 1], -inf at 0 and -0, 0.5 (0); the sigmoid: 0 and 1 at -+inf, the
    # central part and both tails; p * 1e-20 past z = 8 (P2/Q2), 1 - p / 8 the upper tail's first
    "ndtri": (lambda x, p: (torch.special.ndtri(x), torch.special.ndtri(torch.sigmoid(x * 2)), torch.special.ndtri(p * 1e-20),
                            torch.special.ndtri(1 - p / 8)), [("f", S), ("pos", S)]),
    "i0": (torch.i0, [("f", S)]),  # NaN at +-inf (inf / inf), as PyTorch's
    "i0e": (torch.special.i0e, [("f", S)]),
    "nextafter": (torch.nextafter, [("f", S), ("f", S)]),
    "nextafter_toward_zero": (lambda x: (torch.nextafter(x, torch.zeros_like(x)), torch.nextafter(x * 0.0, x)), [("f", S)]),
    "spherical_bessel_j0": (lambda x: (torch.special.spherical_bessel_j0(x), torch.special.spherical_bessel_j0(x * 0.1)), [("f", S)]),
    "i1": (torch.special.i1, [("f", S)]),
    "i1e": (torch.special.i1e, [("f", S)]),
    "i1_wide": (lambda x: (torch.special.i1(x * 12.0) * torch.exp(-12.0 * x.abs()), torch.special.i1e(x * 40.0)), [("fin", S)]),
    "lgamma": (lambda x: torch.lgamma(4 * x), [("f", S)]),
    "lgamma_poles": (lambda x: torch.special.gammaln(torch.round(3 * x)), [("f", S)]),  # 0, -0, negative integers
    "digamma": (lambda x: torch.digamma(4 * x), [("f", S)]),
    "digamma_poles": (lambda x: torch.special.psi(torch.round(3 * x)), [("f", S)]),
    "mvlgamma": (lambda x: torch.mvlgamma(x + 1, 3), [("pos", S)]),
    "multigammaln_int": (lambda i: torch.special.multigammaln(i.double(), 2), [("i", M, 1, 30)]),
    # past 5 (the asymptotic branch) and 0, -0, +-inf; Y: -inf at +-0, NaN below 0
    "bessel_j": (lambda x: (torch.special.bessel_j0(x * 4), torch.special.bessel_j1(x * 4), torch.special.bessel_j0(x * 1e-6)), [("f", S)]),
    "bessel_y": (lambda x: (torch.special.bessel_y0(x * 4), torch.special.bessel_y1(x * 4)), [("f", S)]),
    "modified_bessel_i": (lambda x: (torch.special.modified_bessel_i0(x * 4), torch.special.modified_bessel_i1(x * 4)), [("f", S)]),
    # past 2 (the second series); inf at +-0, NaN below 0, 0 at inf
    "modified_bessel_k": (lambda x: (torch.special.modified_bessel_k0(x * 2), torch.special.modified_bessel_k1(x * 2),
                                     torch.special.scaled_modified_bessel_k0(x * 2), torch.special.scaled_modified_bessel_k1(x * 2)), [("f", S)]),
    # x = 1 (inf), x < 1 (NaN), q at 0 and negative integers (inf), negative q with integer x of
    # both parities (the reflection) and with fractional x (NaN)
    "zeta": (lambda x, q: (torch.special.zeta(x.abs() * 4 + 1, q * 3), torch.special.zeta(torch.round(x.abs() * 3) + 2, q * 3),
                           torch.special.zeta(3.0, q * 3 + 0.25), torch.special.zeta(x * 4, 2.5)), [("f", S), ("f", S)]),
    "polygamma": (lambda x: (torch.polygamma(1, x * 4), torch.polygamma(2, x * 4), torch.special.polygamma(3, x * 4),
                             torch.polygamma(0, x * 4 + 0.25)), [("f", S)]),
    "copysign": (torch.copysign, [("f", S), ("f", S)]),
    "copysign_scalar": (lambda x: torch.copysign(x, -2.0) + torch.copysign(x.abs(), x), [("f", S)]),
    "signbit": (lambda x: torch.signbit(x) | torch.signbit(torch.round(x)), [("f", S)]),
    "ldexp": (lambda x, e: torch.ldexp(x, e), [("f", M), ("i", M, -40, 40)]),
    "view_dtype": (_view_bits, [("f", S)]),
    # zeros and negatives (gcd >= 0, lcm 0 with a zero), broadcast, int32; column 0 holds Euclid's
    # worst case, consecutive Fibonacci numbers: F(91), F(92) (90 divisions), F(45), -F(46) in int32
    "gcd_lcm": (lambda a, b, r: (torch.gcd(_at_column_0(a, 4660046610375530309), _at_column_0(b, 7540113804746346429)),
                                 torch.lcm(a, r), torch.gcd(_at_column_0(a.int(), 1134903170), _at_column_0(b.int(), -1836311903))),
                [("i", M, -30, 31), ("i", M, -30, 31), ("i", (7,), -4, 5)]),
    # 0, -0, +-inf planted (x, 0); NaN from log; subnormals (float64's and float32's), the
    # smallest one, and a value past float32's range in float64
    "frexp": (lambda x, p: (*torch.frexp(x), *torch.frexp(torch.log(x)), *torch.frexp(p * 2.0**-1060), *torch.frexp(p * 2.0**-140),
                            *torch.frexp(p * 0.0 + 2.0**-1074), *torch.frexp(p * 1e300)), [("f", S), ("pos", S)]),
    "shifts": (lambda a, b: (a << b) + (a >> b) * 3 + (a >> 2), [("i", M, -1000, 1000), ("i", M, -70, 70)]),
    # integer floor and trunc division: every sign pairing, exact and inexact (no zero divisor)
    "int_division": (lambda a, b: (a // (b + (b >= 0).long()), torch.div(a, b + (b >= 0).long(), rounding_mode="trunc"),
                                   torch.div(a, -3, rounding_mode="floor"), a // 7 * 7 + a % 7),
                     [("i", M, -1000, 1000), ("i", M, -9, 9)]),
    "int_division_int32": (lambda a: (a.int() // 5, torch.div(a.int(), -4, rounding_mode="trunc")), [("i", M, -50, 50)]),
    "bitwise_shifts_int32": (lambda a, b: torch.bitwise_left_shift(a.int(), b.int()) - torch.bitwise_right_shift(a.int(), 3),
                             [("i", M, -1000, 1000), ("i", M, -40, 40)]),
    # |x| over 8 (the second series; scaled by exp(-|x|) so that every element weighs in
    # `compare`), and integers -9..9 (8 ends the first series; as float64: PyTorch's i0 of an
    # integer tensor is float32, no reference for float64)
    "i0_large_int": (lambda x, i: (torch.special.i0(x * 12.0) * torch.exp(-12.0 * x.abs()), torch.i0(i.double())),
                     [("fin", S), ("i", M, -9, 10)]),
    "where": (lambda c, x, y: torch.where(c, x, y), [("b", S), ("f", S), ("f", M)]),
    "where_compare_scalar": (lambda x: torch.where(x > 0.25, x, 0.0), [("f", S)]),
    "eq_ne": (lambda x, y: torch.stack([x == y, x != y]), [("f", M), ("f", M)]),
    "lt_le": (lambda x, y: (x < y) | (x <= 0.5), [("f", S), ("f", M)]),
    "gt_ge": (lambda x, y: (x > y) ^ (x >= -0.5), [("f", S), ("f", (7,))]),
    "compare_ints": (lambda i, j: (i < j).float() + (i == 3).float(), [("i", M, 0, 6), ("i", M, 0, 6)]),
    "compare_bools": (lambda a, b: torch.stack([a < b, a >= b]), [("b", M), ("b", M)]),
    "masked_fill": (lambda x, m: x.masked_fill(m, -7.0), [("f", S), ("b", M)]),
    "masked_fill_causal": (lambda x: x.masked_fill(torch.ones(7, 7, dtype=torch.bool).triu(1), float("-inf")), [("fin", (3, 7, 7))]),
    "minimum": (torch.minimum, [("f", S), ("f", M)]),
    "fmod": (lambda x: torch.fmod(x, 0.75), [("f", S)]),
    "fmod_tensor": (torch.fmod, [("fin", S), ("pos", M)]),
    "remainder": (torch.remainder, [("fin", S), ("fin", M)]),
    "remainder_scalar": (lambda x: x % -0.7, [("f", S)]),
    "pow_tensor_exponent": (torch.pow, [("pos", S), ("f", M)]),
    "pow_scalar_base": (lambda x: 2.0**x, [("f", S)]),
    "logical": (lambda a, b: torch.logical_and(a, b) | torch.logical_xor(a, ~b), [("b", M), ("b", M)]),
    "logical_not_float": (lambda x: torch.logical_not(x).float(), [("f", S)]),
    "isnan_isinf": (lambda x: torch.isnan(torch.log(x)) | torch.isinf(x), [("f", S)]),
    "bool_to_float": (lambda x: (x > 0).float() * x, [("f", S)]),
    "float_to_int": (lambda x: (x * 3).to(torch.int64) * 2, [("fin", S)]),
    # reductions
    "max_dim": (lambda x: torch.max(x, 1), [("f", S)]),
    "min_dim_keepdim": (lambda x: torch.min(x, -1, keepdim=True), [("f", S)]),
    "max_dim_values": (lambda x: x.max(dim=0).values * 2.0, [("f", S)]),
    "max_all": (lambda x: torch.max(x), [("f", S)]),
    "argmax": (lambda x: torch.argmax(x, 2), [("f", S)]),
    "argmax_ties": (lambda x: torch.argmax(torch.round(x), 1), [("fin", S)]),
    "argmax_all": (torch.argmax, [("f", S)]),
    "argmin_keepdim": (lambda x: torch.argmin(x, 0, keepdim=True), [("f", S)]),
    "amin": (lambda x: torch.amin(x, (0, 2)), [("f", S)]),
    "prod": (lambda x: torch.prod(x, 1), [("f", S)]),
    "prod_all": (torch.prod, [("pos", M)]),
    "logsumexp": (lambda x: torch.logsumexp(x, 2), [("f", S)]),
    "logsumexp_keepdim": (lambda x: torch.logsumexp(x * 30.0, (0, 1), keepdim=True), [("f", S)]),
    "var": (lambda x: torch.var(x, 1), [("f", S)]),
    "var_correction0": (lambda x: torch.var(x, (0, 2), correction=0, keepdim=True), [("f", S)]),
    "std": (lambda x: torch.std(x, -1), [("f", S)]),
    "var_mean": (lambda x: torch.var_mean(x, 1, keepdim=True), [("fin", S)]),
    # a bool mask given as an input (each row keeps its diagonal key: none is fully masked)
    "sdpa_bool_mask": (lambda q, k, m: F.scaled_dot_product_attention(q, k, k, attn_mask=m | torch.eye(5, 7, dtype=torch.bool)),
                       [("fin", (2, 2, 5, 8)), ("fin", (2, 2, 7, 8)), ("b", (5, 7))]),
    "std_mean_correction0": (lambda x: torch.std_mean(x, (0, 2), correction=0), [("fin", S)]),
    "std_all": (lambda x: torch.std(x, unbiased=False), [("f", S)]),
    "vector_norm_2": (lambda x: torch.linalg.vector_norm(x, dim=-1), [("f", S)]),
    "vector_norm_1": (lambda x: torch.linalg.vector_norm(x, 1, dim=(0, 2)), [("f", S)]),
    "vector_norm_inf": (lambda x: torch.linalg.vector_norm(x, float("inf"), dim=1), [("f", S)]),
    "vector_norm_neg_inf": (lambda x: torch.linalg.vector_norm(x, float("-inf"), dim=1), [("f", S)]),
    "vector_norm_0": (lambda x: torch.linalg.vector_norm(x, 0, dim=2, keepdim=True), [("f", S)]),
    "vector_norm_3": (lambda x: torch.linalg.vector_norm(x, 3.0, dim=1), [("f", S)]),
    "norm": (lambda x: x.norm(), [("f", S)]),
    "norm_p1_dim": (lambda x: x.norm(p=1, dim=1), [("f", S)]),
    "any_all": (lambda x: torch.stack([(x > 1.0).any(1), (x > -1.0).all(1)]), [("f", S)]),
    "any_float_all": (lambda x: torch.any(x).float() + torch.all(x).float(), [("f", S)]),
    "sum_bool": (lambda x: (x > 0).sum(-1), [("f", S)]),
    # row reductions wide enough for the block-cooperative schedule (shuffles of i64 / i32)
    "argmax_rows": (lambda x: torch.argmax(x, -1), [("f", (4, 1500))]),
    "max_dim_rows": (lambda x: torch.max(x, -1), [("fin", (8, 2048))]),
    "any_rows": (lambda x: (x > 3.0).any(-1), [("fin", (4, 3000))]),
    "all_whole": (lambda x: (x > -4.0).all(), [("fin", (32, 200))]),
    # softmax and normalisation
    "log_softmax": (lambda x: F.log_softmax(x, 1), [("f", S)]),
    "log_softmax_module": (nn.LogSoftmax(dim=-1), [("f", S)]),
    "group_norm": (_gn(2, 6), [("fin", (2, 6, 3, 5))]),
    "group_norm_noaffine": (lambda x: F.group_norm(x, 3), [("fin", (2, 6, 7))]),
    "instance_norm_2d": (_affine(nn.InstanceNorm2d(4, affine=True)), [("fin", (2, 4, 5, 7))]),
    "instance_norm_1d": (nn.InstanceNorm1d(3), [("fin", (2, 3, 9))]),
    "batch_norm_2d": (_bn(nn.BatchNorm2d, 5), [("fin", (2, 5, 3, 3))]),
    "batch_norm_1d": (_bn(nn.BatchNorm1d, 7), [("f", M)]),
    # compositions of the ops above
    "hardshrink": (nn.Hardshrink(0.3), [("f", S)]),
    "softshrink": (nn.Softshrink(0.3), [("f", S)]),
    "tanhshrink": (nn.Tanhshrink(), [("fin", S)]),
    "prelu": (nn.PReLU(5, 0.2), [("f", S)]),
    "prelu_scalar": (nn.PReLU(), [("f", M)]),
    "glu": (nn.GLU(1), [("fin", (3, 6, 5))]),
    "index": (lambda x, i: x[i] * 2.0, [("f", S), ("i", (4,), -3, 3)]),
    "index_dim1": (lambda x, i: x[:, i] + 1.0, [("fin", S), ("i", (6,), -5, 5)]),
    "index_2d": (lambda x, i: x[:, i] + 1.0, [("fin", S), ("i", (2, 3), -5, 5)]),
    "index_2d_pair": (lambda x, i, j: x[i, j] * 2.0, [("f", S), ("i", (4, 1), -3, 3), ("i", (3,), 0, 5)]),
    "unfold": (lambda x: F.unfold(x, 3, padding=1, stride=2) * 1.0, [("fin", (2, 3, 7, 6))]),
    "fold": (lambda x: F.fold(x, (5, 6), 3, padding=1) * 1.0, [("fin", (2, 18, 30))]),
    "cumsum": (lambda x: torch.cumsum(x, 1), [("f", S)]),
    "cumsum_bool": (lambda x: (x > 0).cumsum(-1), [("fin", S)]),
    # blocks of 64: 3 of them (the last ragged) along dim 1; 8300 is 130 blocks, whose totals
    # are summed in 3 blocks again
    "cumsum_blocked": (lambda x: torch.cumsum(x, 1), [("fin", (2, 150, 3))]),
    "cumsum_two_levels": (lambda x: (x > 0).cumsum(0) * 1.0 + torch.cumsum(x, 0), [("fin", (8300,))]),
    "cumprod": (lambda x: torch.cumprod(x, 1), [("f", S)]),
    "cumprod_int": (lambda i: torch.cumprod(i, -1), [("i", M, -3, 4)]),
    # 150 = 3 blocks of 64 (the last ragged), 8300 two levels of blocks; zeros and infinities
    # planted: a zero makes the rest 0, inf * 0 NaN, as PyTorch's sequential product
    "cumprod_blocked": (lambda x: torch.cumprod(x, 1), [("f", (2, 150, 3))]),
    "cumprod_two_levels": (lambda x: torch.cumprod(1.0 + 0.01 * x, 0), [("fin", (8300,))]),
    # logcumsumexp: +-inf planted (inf stays, -inf first gives -inf); x * 1000 overflows exp
    # (rows like [-1000, 0, 1000]); log of negatives plants NaN (it propagates)
    "logcumsumexp": (lambda x: torch.logcumsumexp(x, 1), [("f", S)]),
    "logcumsumexp_wide_nan": (lambda x: (torch.logcumsumexp(x * 1000.0, -1), torch.logcumsumexp(torch.log(x), 0)), [("f", (6, 9))]),
    "logcumsumexp_blocked": (lambda x: torch.logcumsumexp(x * 100.0, 1), [("f", (2, 150, 3))]),
    "logcumsumexp_two_levels": (lambda x: torch.logcumsumexp(x * 30.0, 0), [("fin", (8300,))]),
    "cummax": (lambda x: torch.cummax(x, 1), [("f", S)]),
    "cummin_ties": (lambda x: torch.cummin(torch.round(x), 0), [("fin", (9, 4))]),
    "cummax_int_blocked": (lambda i: torch.cummax(i, 0), [("i", (300, 2), -50, 50)]),
    "cummin_blocked": (lambda x: torch.cummin(x, -1), [("f", (2, 200))]),
    # sorts: stable, NaN above everything; 0 and -0 planted are a tie kept in input order
    "sort": (lambda x: torch.sort(x, 1), [("f", S)]),
    "sort_descending_stable": (lambda x: torch.sort(x, dim=-1, descending=True, stable=True), [("f", S)]),
    "sort_ties_stable": (lambda x: torch.sort(torch.round(x), dim=0, stable=True), [("fin", (9, 4))]),
    "sort_nan": (lambda x: torch.sort(torch.log(x), dim=-1, stable=True), [("fin", (3, 8))]),  # NaN for x < 0
    "sort_nan_descending": (lambda x: torch.sort(torch.log(x), dim=0, descending=True, stable=True), [("fin", (8, 3))]),
    # odd rows of i64 (repack-operands leaves integer operands as they are)
    "sort_int": (lambda i: torch.sort(i, stable=True), [("i", (4, 9), -3, 3)]),
    "argsort": (lambda x: torch.argsort(x, 1, descending=True), [("fin", S)]),
    "msort": (torch.msort, [("fin", M)]),
    "topk": (lambda x: torch.topk(x, 3, 1), [("f", S)]),
    "topk_smallest_dim0": (lambda x: torch.topk(x, 2, 0, largest=False), [("f", S)]),
    # topk's values of ties are defined, not which index comes first: the ties' values only
    "topk_ties_values": (lambda x: torch.topk(torch.round(x), 4).values, [("fin", (6, 9))]),
    "topk_nan_values": (lambda x: torch.topk(torch.log(x), 3, -1).values, [("fin", (3, 8))]),
    "kthvalue": (lambda x: torch.kthvalue(x, 2, 1), [("fin", S)]),
    "kthvalue_keepdim": (lambda x: torch.kthvalue(x, 7, -1, keepdim=True), [("f", S)]),
    # mode: ties in count (the smallest value), its last occurrence (PyTorch's CPU for rows of
    # up to 16), planted -0.0 beside 0.0 and infinities; no NaN (PyTorch's order of them is undefined)
    "mode": (lambda x: torch.mode(torch.round(x), 1), [("fin", (4, 9))]),
    "mode_keepdim_edges": (lambda x: torch.mode(torch.round(x), 0, keepdim=True), [("f", (7, 5))]),
    "mode_all_distinct": (lambda x: torch.mode(x), [("fin", (3, 2, 5))]),
    "mode_int_bool": (lambda i: (torch.mode(i, -1), torch.mode(i > 0, 0).values), [("i", (3, 16), -2, 3)]),
    "median_dim": (lambda x: torch.median(x, 0), [("fin", S)]),
    "median_even_keepdim": (lambda x: torch.median(x, 1, keepdim=True), [("fin", (3, 6))]),
    "median_nan": (lambda x: torch.median(torch.log(x), -1), [("fin", (5, 4))]),
    "median_all": (torch.median, [("f", S)]),
    # nanmedian: NaN from log of negatives skipped; rows of NaN only (where x <= 0.8: about 4 in
    # 10 rows of 4) give NaN, at an index PyTorch leaves to its nth_element: values only there;
    # integers have ties: values only
    "nanmedian_dim": (lambda x: torch.nanmedian(torch.log(x), -1), [("f", (5, 7))]),
    "nanmedian_all_nan_keepdim": (lambda x: torch.nanmedian(torch.where(x > 0.8, x, math.nan), 1, keepdim=True).values,
                                  [("fin", (9, 4))]),
    "nanmedian_all": (lambda x: torch.nanmedian(torch.log(x)), [("f", S)]),
    "nanmedian_int": (lambda i: torch.nanmedian(i, 0).values, [("i", (7, 3), -5, 5)]),
    # scatters: indices drawn with repeats; without accumulation the last writer (PyTorch's CPU loop)
    "scatter_src": (lambda x, i, y: x.scatter(1, i, y), [("f", S), ("i", (2, 4, 6), 0, 5), ("fin", (3, 6, 7))]),
    "scatter_value": (lambda x, i: torch.scatter(x, 0, i, -2.5), [("fin", S), ("i", (2, 5, 7), 0, 3)]),
    "scatter_add": (lambda x, i, y: x.scatter_add(-1, i, y), [("f", S), ("i", (3, 5, 9), 0, 7), ("fin", (3, 5, 9))]),
    "scatter_reduce_add": (lambda x, i, y: x.scatter(1, i, y, reduce="add"), [("fin", (4, 6)), ("i", (3, 8), 0, 6), ("fin", (4, 8))]),
    "scatter_add_int": (lambda x, i: x.scatter_add(0, i, x), [("i", (6, 8), -9, 9), ("i", (6, 8), 0, 6)]),
    "index_put": (lambda x, i, v: torch.index_put(x, (i,), v), [("f", S), ("i", (5,), -3, 3), ("fin", (5, 5, 7))]),
    "index_put_accumulate": (lambda x, i, j, v: torch.index_put(x, (i, j), v, accumulate=True), [("f", S), ("i", (6,), -3, 3), ("i", (6,), 0, 5), ("fin", (7,))]),
    "index_put_setitem": (_setitem(lambda y, i: y.__setitem__(i, -1.5)), [("f", M), ("i", (3,), 0, 5)]),
    "index_put_2d": (lambda x, i, v: torch.index_put(x, (i,), v, accumulate=True), [("f", S), ("i", (2, 4), -3, 3), ("fin", (2, 4, 5, 7))]),
    "index_put_inner": (_setitem(lambda y, i, v: y.__setitem__((slice(None), i), v)), [("fin", S), ("i", (9,), -5, 5), ("fin", (3, 9, 7))]),
    "index_put_mask": (_setitem(lambda y: y.__setitem__(y > 0.5, 0.25)), [("f", S)]),
    # a number or a 0-d tensor into a stepped slice: aten.fill.Tensor of a 0-d value
    "setitem_step_scalar": (_setitem(lambda y, v: (y.__setitem__((slice(None), slice(None, None, 2)), 1.5),
                                                   y.__setitem__((slice(1, None), slice(1, None, 3)), v))),
                            [("f", (4, 7)), ("fin", ())]),
    "index_put_mask_inner": (_setitem(lambda y, m: y.__setitem__((slice(None), m), -3.0)), [("f", S), ("b", (5, 7))]),
    "scatter_reduce_amax": (lambda x, i, v: x.scatter_reduce(1, i, v, reduce="amax"), [("f", M), ("i", (5, 4), 0, 7), ("fin", (5, 6))]),
    "scatter_reduce_mean_noself": (lambda x, i, v: x.scatter_reduce(0, i, v, reduce="mean", include_self=False), [("fin", M), ("i", (3, 7), 0, 5), ("fin", (3, 7))]),
    "scatter_reduce_sum_prod": (lambda x, i, v: x.scatter_reduce(1, i, v, reduce="sum") + x.scatter_reduce(1, i, v, reduce="prod", include_self=False),
                                [("fin", M), ("i", (4, 3), 0, 7), ("fin", (4, 3))]),
    "scatter_reduce_amin_int": (lambda x, i, v: x.scatter_reduce(1, i, v, reduce="amin").float(), [("i", M, -9, 9), ("i", (5, 4), 0, 7), ("i", (5, 4), -9, 9)]),
    "embedding_bag_mean": (nn.EmbeddingBag(11, 6, mode="mean"), [("i", (4, 5), 0, 11)]),
    "embedding_bag_max": (nn.EmbeddingBag(11, 6, mode="max"), [("i", (3, 7), 0, 11)]),
    "embedding_bag_weighted": (_WeightedBag(), [("i", (4, 5), 0, 11), ("fin", (4, 5))]),
    # bags of several lengths, offsets a run-time tensor: empty ones first, between, last
    "embedding_bag_ragged_sum": (lambda i, w, l: F.embedding_bag(i, w, _starts(l, 9), mode="sum"), [("i", (9,), 0, 11), ("fin", (11, 6)), ("i", (6,), 0, 4)]),
    "embedding_bag_ragged_mean": (lambda i, w, l: F.embedding_bag(i, w, _bounds(l, 13), mode="mean", include_last_offset=True),
                                  [("i", (13,), 0, 11), ("f", (11, 5)), ("i", (7,), 0, 4)]),
    "embedding_bag_ragged_max": (lambda i, w, l: F.embedding_bag(i, w, _starts(l, 10), mode="max"), [("i", (10,), 0, 11), ("f", (11, 3)), ("i", (5,), 0, 4)]),
    "embedding_bag_empty_bags_weighted": (lambda i, w, o, p: F.embedding_bag(i, w, torch.tensor([0, 0, 3, 3, 7, 9]) + o * 0, mode="sum", per_sample_weights=p),
                                          [("i", (9,), 0, 11), ("fin", (11, 4)), ("i", (6,), 0, 9), ("fin", (9,))]),
    "embedding_bag_one_bag_mean": (lambda i, w, o: F.embedding_bag(i, w, o * 0, mode="mean"), [("i", (7,), 0, 11), ("fin", (11, 4)), ("i", (1,), 0, 9)]),
    "embedding_bag_2d_padding_idx": (nn.EmbeddingBag(5, 3, mode="mean", padding_idx=2), [("i", (3, 5), 0, 5)]),
    "embedding_bag_padding_idx": (lambda i, w, l: (F.embedding_bag(i % 3, w, _starts(l, 8), mode="mean", padding_idx=2),
                                                   F.embedding_bag(i % 3, w, _starts(l, 8), mode="max", padding_idx=2)),
                                  [("i", (8,), 0, 11), ("fin", (11, 3)), ("i", (4,), 0, 3)]),
    # segment_reduce: empty segments (0, NaN, -inf, inf, 1; or `initial`), planted inf and 0
    "segment_reduce": (_segments, [("f", (9, 4)), ("i", (5,), 0, 4)]),
    "segment_reduce_initial": (lambda x, l: _segments(x, l, initial=-0.5), [("fin", (8, 3)), ("i", (6,), 0, 3)]),
    # NaN (log of negatives) through sum, mean, prod; max and min drop it on the GPU (fmaxf)
    "segment_reduce_offsets_nan": (lambda x, l: tuple(torch.segment_reduce(torch.log(x), r, offsets=_bounds(l, 7)) for r in ("sum", "mean", "prod")),
                                   [("fin", (7, 5)), ("i", (4,), 0, 4)]),
    "segment_reduce_one_segment": (lambda x, l: torch.segment_reduce(x, "prod", lengths=l * 0 + 6), [("fin", (6,)), ("i", (1,), 0, 4)]),
    "segment_reduce_axis1": (lambda x, l: torch.segment_reduce(x, "mean", lengths=torch.stack([l, 7 - l], 1), axis=1, initial=2.0),
                             [("fin", (3, 7, 2)), ("i", (3,), 0, 8)]),
    "masked_scatter": (lambda x, m, s: x.masked_scatter(m > 0, s), [("f", (4, 5)), ("fin", (4, 5)), ("fin", (30,))]),
    # a VLM's image tokens: a token mask expanded over the hidden dim, rows of features
    "masked_scatter_tokens": (lambda x, m, s: x.masked_scatter((m > 0).unsqueeze(-1).expand_as(x), s),
                              [("fin", (2, 6, 4)), ("fin", (2, 6)), ("fin", (12, 4))]),
    "masked_scatter_broadcast": (lambda x, m, s: x.masked_scatter(m > 0.3, s) * 2.0,
                                 [("fin", (3, 4, 5)), ("fin", (3, 1, 5)), ("fin", (7, 9))]),
    "bilinear": (lambda x, y, w, b: F.bilinear(x, y, w, b), [("f", (2, 3, 5)), ("fin", (2, 3, 4)), ("fin", (6, 5, 4)), ("fin", (6,))]),
    "bilinear_no_bias": (lambda x, y, w: F.bilinear(x, y, w) * 2.0, [("fin", (7, 3)), ("f", (7, 5)), ("fin", (4, 3, 5))]),
    "addbmm": (lambda i, a, b: torch.addbmm(i, a, b, beta=0.5, alpha=2.0), [("fin", (5, 6)), ("fin", (3, 5, 7)), ("fin", (3, 7, 6))]),
    "addmv": (lambda i, a, v: torch.addmv(i, a, v, beta=2.0, alpha=0.5), [("fin", (5,)), ("fin", (5, 7)), ("fin", (7,))]),
    "fmax_fmin": (lambda a, b: torch.fmax(torch.log(a), b) + torch.fmin(a, torch.log(b)), [("f", M), ("f", M)]),
    "bucketize": (lambda x: torch.bucketize(x, torch.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])).float()
                  + torch.bucketize(x, torch.tensor([-1.5, -0.5, 0.0, 0.5, 2.0]), right=True), [("f", S)]),
    "searchsorted_rows": (lambda s, v: torch.searchsorted(s.sort(-1).values, v).float() + torch.searchsorted(s.sort(-1).values, v, side="right"),
                          [("fin", (3, 9)), ("fin", (3, 5))]),
    "searchsorted_1d": (lambda s, v: torch.searchsorted(s.sort().values, v, right=True) * 2, [("fin", (11,)), ("f", M)]),
    "bucketize_nan": (lambda x: torch.bucketize(torch.log(x), torch.tensor([-1.0, 0.0, 1.0])) * 1, [("f", M)]),
    # histc: edges planted (inf, -inf, 2.5 outside), values on bin edges (min, max: the last bin)
    # and NaN (counted nowhere)
    "histc": (lambda x: (torch.histc(x, 7, -1.0, 2.0), torch.histc(torch.round(x * 2.0) / 2.0, 6, -1.5, 1.5),
                         torch.histc(torch.log(x), 5, -2, 1)), [("f", S)]),
    # min == max: the data's extremes (x's, and a constant row's widened by 1 each way)
    "histc_data_range": (lambda x: (torch.histc(x, 7), torch.histc(x * 0.0 + 2.0, 5, 3.0, 3.0)), [("fin", S)]),
    "index_add": (lambda x, i, y: x.index_add(1, i, y, alpha=2.0), [("f", S), ("i", (6,), 0, 5), ("fin", (3, 6, 7))]),
    # histogram: planted inf, -inf and 2.5 outside, values on edges (the rightmost in the last
    # bin), NaN from log counting nowhere, weights, density; the data's range (equal extremes
    # widened by 0.5); edges given
    "histogram": (lambda x, w: (torch.histogram(x, 6, range=(-1.5, 1.5)), torch.histogram(torch.round(x * 2.0) / 2.0, 6, range=(-1.5, 1.5), weight=w),
                                torch.histogram(torch.log(x), 5, range=(-2.0, 1.0), density=True)), [("f", S), ("pos", S)]),
    "histogram_data_range": (lambda x, w: (torch.histogram(x, 5, weight=w, density=True), torch.histogram(x * 0.0 + 2.0, 3),
                                           torch.histogram(x, 4, range=(1.0, 1.0))), [("fin", (4, 6)), ("pos", (4, 6))]),
    "histogram_edges": (lambda x, e: torch.histogram(x, torch.cumsum(e, 0) - 3.0, density=True), [("f", (5, 7)), ("pos", (5,))]),
    "index_reduce_amax": (lambda x, i, y: x.index_reduce(1, i, y, "amax"), [("f", S), ("i", (6,), 0, 5), ("fin", (3, 6, 7))]),
    "index_reduce_mean_noself": (lambda x, i, y: x.index_reduce(0, i, y, "mean", include_self=False), [("fin", S), ("i", (4,), 0, 3), ("fin", (4, 5, 7))]),
    "index_reduce_prod": (lambda x, i, y: x.index_reduce(2, i, y, "prod"), [("fin", S), ("i", (3,), 0, 7), ("fin", (3, 5, 3))]),
    "put_accumulate": (lambda x, i, y: x.put(i, y, accumulate=True), [("f", S), ("i", (4, 6), -105, 105), ("fin", (4, 6))]),
    "put": (lambda x, i, y: x.put(i, y), [("f", M), ("i", (9,), -20, 35), ("fin", (9,))]),
    "cartesian_prod": (lambda a, b, c: torch.cartesian_prod(a, b, c), [("fin", (3,)), ("f", (4,)), ("fin", (2,))]),
    "cov": (lambda x: torch.cov(x), [("fin", (5, 37))]),
    "cov_1d_correction0": (lambda x: torch.cov(x, correction=0) * 2.0, [("fin", (37,))]),
    "corrcoef": (lambda x: x.corrcoef(), [("fin", (5, 37))]),
    "stack_of_reductions": (lambda x, y: torch.stack([x.mean(), y.sum(), x.amax()]), [("fin", M), ("fin", S)]),
    "gaussian_nll": (lambda x, y: F.gaussian_nll_loss(x, y, F.softplus(y) + 0.1, full=True), [("fin", M), ("fin", M)]),
    "linalg_cholesky_family": (lambda m, b: _cholesky_family(m @ m.mT + 4 * torch.eye(4, dtype=m.dtype, device=m.device), b),
                               [("fin", (3, 4, 4)), ("fin", (3, 4, 2))]),  # fmt: skip
    "linalg_inv_det_solve": (lambda a, b: torch.cat([torch.linalg.inv(a + 3 * torch.eye(3, device=a.device)).flatten(1), torch.det(a)[:, None],
                                                     torch.linalg.solve(a + 3 * torch.eye(3, device=a.device), b)], 1),
                             [("fin", (6, 3, 3)), ("fin", (6, 3))]),
    "quantile_q_tensor": (lambda x: torch.quantile(x, x.new_tensor([0.0, 0.1, 0.5, 0.9]), dim=1, keepdim=True), [("fin", (4, 37))]),
    "nanquantile_midpoint": (lambda x: torch.nanquantile(torch.where(x > 1.0, torch.nan, x), 0.25, dim=0, interpolation="midpoint"),
                             [("fin", (37, 3))]),
    "max_pool2d_indices": (lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[1].float(), [("fin", (2, 3, 9, 11))]),
    "max_pool1d_indices_dilated_ceil": (lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2, ceil_mode=True, return_indices=True)[1].float(),
                                        [("fin", (2, 3, 20))]),
    "max_pool3d_indices": (lambda x: F.max_pool3d(x, 2, return_indices=True)[1].float(), [("fin", (1, 2, 4, 5, 6))]),
    "max_unpool2d": (lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), [("fin", (2, 3, 8, 10))]),
    "max_unpool3d": (lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(5, 7, 6)),
                     [("fin", (1, 2, 5, 7, 6))]),
    "index_put_accumulate_bool": (lambda x, i, v: torch.index_put(x > 0, (i,), v > 0, accumulate=True).float(),
                                  [("f", M), ("i", (6,), 0, 5), ("fin", (6, 7))]),
    "index_copy": (lambda x, i, y: x.index_copy(2, i, y), [("fin", S), ("i", (4,), 0, 7), ("fin", (3, 5, 4))]),
    "slice_scatter": (lambda x, y: torch.slice_scatter(x, y, 1, 1, 3), [("fin", S), ("fin", (3, 2, 7))]),
    # steps that do not divide the span, a negative start, None bounds, a start past the end (empty)
    "slice_scatter_step": (lambda x, a, b, e, f: (torch.slice_scatter(x, a, 2, 1, 6, 2), torch.slice_scatter(x, b, 1, -4, None, 3),
                                                  torch.slice_scatter(x, e, 0, 9, None, 2), torch.slice_scatter(x[0], f, 1, step=2)),
                           [("fin", S), ("fin", (3, 5, 3)), ("fin", (3, 2, 7)), ("fin", (0, 5, 7)), ("fin", (5, 4))]),
    "select_scatter": (lambda x, y: torch.select_scatter(x, y, 2, -1), [("fin", S), ("fin", (3, 5))]),
    # slice assignments along two axes on a view (the temporal shift), and a chain that
    # overwrites part of an earlier assignment and reads it back (fold-concats' cases)
    "temporal_shift": (_TemporalShift(3), [("fin", (6, 16, 3, 5))]),
    "slice_assign_chain": (_slice_chain, [("fin", S), ("fin", (3, 5, 4))]),
    "copy": (lambda x, y: torch.ops.aten.copy(x, y) * 2.0, [("fin", M), ("fin", (7,))]),
    # sliding windows
    "conv2d": (nn.Conv2d(3, 4, 3, padding=1), [("fin", (2, 3, 7, 6))]),
    "conv2d_stride_dilation": (nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(2, 1), dilation=(1, 2), bias=False), [("fin", (1, 4, 9, 8))]),
    "conv2d_groups": (nn.Conv2d(4, 6, 3, groups=2), [("fin", (2, 4, 5, 5))]),
    "conv2d_depthwise_same": (nn.Conv2d(4, 4, 3, padding="same", groups=4), [("fin", (1, 4, 6, 7))]),
    "conv1d": (nn.Conv1d(3, 5, 4, stride=2), [("fin", (2, 3, 11))]),
    # ops over a dim of a 0-d tensor (dim 0 or -1 names its one element) and its full reductions
    "scalar_dims": (lambda x: torch.stack([
        x.sum(-1), x.mean(0, keepdim=True), x.amax(-1), torch.logsumexp(x, -1), torch.softmax(x, -1),
        torch.log_softmax(x, 0), torch.cumsum(x, 0), x.norm(dim=-1), x.prod(-1), x.max(-1)[0],
        torch.sort(x, -1)[0], x.flip(0), torch.cummax(x, 0)[0], torch.topk(x, 1)[0], x.sum(), x.mean(),
        x.amax(), x.var(-1, correction=0), x.std(), x.var()]), [("fin", ())]),
    "scalar_dims_indices": (lambda x: torch.stack([x.argmax(-1), x.argmax(), x.argmin(0), x.max(-1)[1],
                                                   torch.cummax(x, 0)[1], torch.topk(x, 1)[1]]), [("fin", ())]),
    # P @ V on the tensor cores with a masked V (a bool table read one by one, not as a float4)
    "sdpa_tril_query": (lambda x: F.scaled_dot_product_attention(torch.tril(x), x, x), [("fin", (128, 128))]),
    # a padded matmul tile reading a flipped operand runs its index below 0 (clamped to 0 too)
    "matmul_flipped": (lambda a, w: (a @ w).flip(1) + (a @ w).flip(0), [("fin", (5, 8)), ("fin", (8, 5))]),
    # index_fill with a run-time index (negative from the end, repeated), a number or a 0-d value
    "index_fill_runtime": (lambda x, i: x.index_fill(1, i, -1.5), [("f", (3, 7, 4)), ("i", (5,), -7, 7)]),
    "index_fill_tensor_value": (lambda x, i, v: x.index_fill(-1, i, v), [("fin", (2, 5)), ("i", (2,), -5, 5), ("fin", ())]),
    # unbatched inputs ([C, *S]): PyTorch takes them as a batch of one
    "conv2d_unbatched": (nn.Conv2d(2, 3, 3, padding=1), [("fin", (2, 7, 5))]),
    "conv_transpose1d_unbatched": (nn.ConvTranspose1d(2, 3, 3, stride=2), [("fin", (2, 5))]),
    "pools_unbatched": (lambda x: F.max_pool2d(x, 3, 1, 1) + F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
                        [("f", (3, 6, 7))]),
    "adaptive_pools_unbatched": (lambda x: F.adaptive_avg_pool2d(x, 3) + F.adaptive_max_pool2d(x, 3), [("f", (2, 5, 17))]),
    "adaptive_pools_unbatched_even": (lambda x: F.adaptive_avg_pool2d(x, 3) * F.adaptive_max_pool2d(x, 3), [("f", (2, 6, 9))]),
    "max_pool1d_unbatched_ceil": (lambda x: F.max_pool1d(x, 2, ceil_mode=True), [("fin", (2, 9))]),
    "conv1x1": (nn.Conv2d(6, 3, 1), [("fin", (2, 6, 4, 5))]),
    "conv_transpose2d": (nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), [("fin", (2, 3, 4, 5))]),
    "conv_transpose2d_groups": (nn.ConvTranspose2d(4, 6, (2, 3), stride=(1, 3), padding=(1, 0), groups=2, dilation=(2, 1), bias=False), [("fin", (1, 4, 5, 3))]),
    "conv_transpose1d": (nn.ConvTranspose1d(2, 3, 4, stride=3, padding=2), [("fin", (2, 2, 6))]),
    # phases no tap reaches (kernel 2 < stride 3), output padding, padding past the kernel
    "conv_transpose1d_sparse": (nn.ConvTranspose1d(2, 3, 2, stride=3, output_padding=2), [("fin", (2, 2, 5))]),
    "conv_transpose1d_wide_pad": (nn.ConvTranspose1d(3, 2, 5, stride=2, padding=4, bias=False), [("fin", (1, 3, 9))]),
    "conv_transpose2d_upsample": (nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1, groups=2), [("fin", (2, 4, 5, 3))]),
    "conv_transpose3d": (nn.ConvTranspose3d(2, 3, (3, 2, 2), stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1)), [("fin", (1, 2, 3, 4, 3))]),
    "max_pool2d": (nn.MaxPool2d(2), [("f", (2, 3, 6, 8))]),
    "max_pool2d_padded": (nn.MaxPool2d(3, stride=2, padding=1), [("fin", (1, 3, 7, 7))]),
    "max_pool2d_ceil": (nn.MaxPool2d(3, stride=2, ceil_mode=True), [("f", (1, 3, 8, 9))]),
    "max_pool1d_ceil_padded": (nn.MaxPool1d(3, stride=2, padding=1, ceil_mode=True), [("fin", (2, 3, 10))]),
    "avg_pool2d": (nn.AvgPool2d(2), [("fin", (2, 3, 6, 8))]),
    "avg_pool2d_exclude_pad": (nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [("fin", (1, 3, 7, 6))]),
    "avg_pool1d": (nn.AvgPool1d(3, stride=1, padding=1), [("fin", (2, 3, 9))]),
    "adaptive_avg_pool2d": (nn.AdaptiveAvgPool2d(1), [("fin", (2, 5, 4, 6))]),
    "adaptive_avg_pool2d_2x3": (nn.AdaptiveAvgPool2d((2, 3)), [("fin", (1, 3, 4, 6))]),
    "upsample_nearest": (nn.Upsample(scale_factor=2), [("fin", (1, 2, 3, 4))]),
    "adaptive_max_pool2d": (nn.AdaptiveMaxPool2d(1), [("f", (2, 5, 4, 6))]),
    "adaptive_max_pool1d_3": (nn.AdaptiveMaxPool1d(3), [("fin", (2, 3, 9))]),
    "adaptive_avg_pool2d_uneven": (nn.AdaptiveAvgPool2d((3, 5)), [("f", (2, 3, 8, 7))]),
    "adaptive_max_pool2d_uneven": (nn.AdaptiveMaxPool2d((3, 4)), [("f", (1, 3, 7, 9))]),
    "adaptive_avg_pool1d_grow": (nn.AdaptiveAvgPool1d(7), [("fin", (2, 3, 5))]),
    "upsample_nearest_1_5": (nn.Upsample(scale_factor=1.5), [("f", (1, 2, 5, 7))]),
    "upsample_nearest_size": (lambda x: F.interpolate(x, size=(3, 11)), [("fin", (1, 2, 5, 4))]),
    "upsample_nearest_exact": (lambda x: F.interpolate(x, scale_factor=1.7, mode="nearest-exact"), [("fin", (1, 2, 5, 4))]),
    "upsample_bilinear": (nn.Upsample(scale_factor=2, mode="bilinear"), [("fin", (1, 2, 5, 4))]),
    "upsample_bilinear_align": (nn.Upsample(size=(7, 3), mode="bilinear", align_corners=True), [("fin", (2, 2, 4, 5))]),
    "upsample_bilinear_1_5": (lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear"), [("fin", (1, 2, 7, 5))]),
    "upsample_linear_down": (lambda x: F.interpolate(x, size=4, mode="linear"), [("fin", (2, 3, 9))]),
    "upsample_bicubic": (nn.Upsample(scale_factor=2, mode="bicubic"), [("fin", (1, 2, 5, 4))]),
    "upsample_bicubic_align_down": (lambda x: F.interpolate(x, size=(3, 7), mode="bicubic", align_corners=True), [("fin", (2, 1, 6, 5))]),
    "grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False), [("f", (2, 3, 5, 7)), ("fin", (2, 4, 6, 2))]),
    "grid_sample_reflect_3d": (lambda x, g: F.grid_sample(x, 1.5 * g, padding_mode="reflection", align_corners=True),
                               [("f", (1, 2, 3, 4, 5)), ("fin", (1, 2, 3, 4, 3))]),
    "grid_sample_nearest_border": (lambda x, g: F.grid_sample(x, 2 * g, mode="nearest", padding_mode="border", align_corners=False),
                                   [("f", (2, 2, 5, 4)), ("fin", (2, 3, 7, 2))]),
    "grid_sample_bicubic_reflect": (lambda x, g: F.grid_sample(x, 2 * g, mode="bicubic", padding_mode="reflection", align_corners=False),
                                    [("fin", (1, 2, 6, 5)), ("fin", (1, 4, 3, 2))]),
    "affine_grid_sample": (lambda x, theta: F.grid_sample(x, F.affine_grid(theta, [2, 3, 6, 5], align_corners=False), align_corners=False),
                           [("fin", (2, 3, 7, 9)), ("fin", (2, 2, 3))]),
    "cdist": (lambda x, y: torch.cdist(x, y), [("fin", (2, 7, 3)), ("fin", (2, 5, 3))]),
    "cdist_p": (lambda x, y: (torch.cdist(x, y, p=1), torch.cdist(x, y, p=float("inf")), torch.cdist(x, y, p=3),
                              torch.cdist(torch.round(x), torch.round(y), p=0)), [("fin", (6, 4)), ("fin", (3, 4))]),
    # pdist: 66 pairs (a table of positions), inf and -inf planted in row 0
    "pdist": (lambda x: F.pdist(x), [("f", (12, 5))]),
    "pdist_p": (lambda x: (F.pdist(x, p=1), F.pdist(x, p=float("inf")), F.pdist(x, p=3), F.pdist(torch.round(x), p=0)), [("fin", (7, 4))]),
    "upsample_trilinear": (nn.Upsample(scale_factor=(2, 1, 3), mode="trilinear"), [("fin", (1, 2, 3, 4, 2))]),
    "reflection_pad2d": (nn.ReflectionPad2d((1, 2, 3, 0)), [("fin", (1, 2, 5, 4))]),
    "replication_pad1d": (lambda x: F.pad(x, (3, 1), mode="replicate") * 2.0, [("fin", S)]),
    "circular_pad2d": (lambda x: F.pad(x, (2, 1, 1, 3), mode="circular"), [("fin", (1, 2, 5, 4))]),
    "conv_net": (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8).eval(), nn.ReLU(),
                               nn.MaxPool2d(2), nn.Conv2d(8, 4, 3), nn.AdaptiveAvgPool2d(1),
                               nn.Flatten(), nn.Linear(4, 3)), [("fin", (2, 3, 10, 10))]),
    # shapes and constants
    # antialiased resizing (torchvision's Resize): a stretched triangle / cubic per output
    "resize_bilinear_aa_down": (lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", antialias=True), [("fin", (1, 2, 23, 17))]),
    "resize_bicubic_aa_down": (lambda x: F.interpolate(x, size=(6, 4), mode="bicubic", antialias=True, align_corners=True), [("fin", (2, 1, 19, 13))]),
    "resize_bilinear_aa_mixed": (lambda x: F.interpolate(x, scale_factor=(0.4, 1.5), mode="bilinear", antialias=True), [("fin", (1, 2, 13, 6))]),
    "flip": (lambda x: torch.flip(x, (0, 2)) * 2.0, [("fin", S)]),
    "index_select": (lambda x, i: torch.index_select(x, 1, i), [("fin", S), ("i", (4,), 0, 5)]),
    "index_two": (lambda x, i, j: x[i, j] * 2.0, [("fin", S), ("i", (4,), -3, 3), ("i", (4,), -5, 5)]),
    "index_two_inner": (lambda x, i, j: x[:, i, j], [("fin", S), ("i", (6,), 0, 5), ("i", (1,), -7, 7)]),
    "gather_dim1": (lambda x, i: torch.gather(x, 1, i) * 2.0, [("fin", S), ("i", (3, 4, 6), 0, 5)]),
    "gather_dim0": (lambda x, i: torch.gather(x, 0, i), [("fin", S), ("i", (2, 5, 7), 0, 3)]),
    "gather_last": (lambda x, i: x.gather(-1, i), [("fin", (4, 9)), ("i", (4, 1), 0, 9)]),
    # strided views of a contiguous tensor: an index map; fill_diagonal_ is an as_strided_scatter
    "as_strided": (lambda x: torch.as_strided(x, (10, 5), (7, 2), 3) * 2.0, [("fin", (100,))]),
    "as_strided_windows": (lambda x: x.as_strided((4, 5, 6), (30, 5, 1)) + 1.0, [("fin", (4, 30))]),
    "as_strided_broadcast": (lambda x: x.as_strided((3, 4, 5), (0, 5, 1), 1) * 2.0, [("fin", (3, 7))]),
    "fill_diagonal": (lambda x: x.clone().fill_diagonal_(0.5) * 2.0, [("fin", (8, 6))]),
    "fill_diagonal_wrap": (lambda x: x.clone().fill_diagonal_(-1.0, wrap=True) + 1.0, [("fin", (13, 4))]),
    # a CompositeImplicitAutograd op export keeps whole: PyTorch's definition (slices)
    "tensor_split_indices": (lambda x: torch.tensor_split(x, [1, 3], dim=1)[1] * 2.0, [("fin", S)]),
    "unfold": (lambda x: x.unfold(1, 2, 2) * 2.0, [("f", S)]),  # the last element left out
    "unfold_last_overlapping": (lambda x: x.unfold(-1, 3, 1), [("f", S)]),
    "unfold_dim0_whole": (lambda x: x.unfold(0, 3, 5), [("fin", S)]),  # one window of the whole dim
    "unfold_1d_int": (lambda i: i.unfold(0, 4, 3), [("i", (11,), -9, 9)]),
    "diagonal": (lambda x: torch.diagonal(x) * 2.0, [("fin", M)]),
    "diagonal_offsets": (lambda x: (torch.diagonal(x, 1, 1, 2), torch.diagonal(x, -2, 2, 0)), [("fin", S)]),
    # batched, dims in either order, offsets either side; 9 is past the plane (an empty diagonal: x)
    "diagonal_scatter": (lambda x, a, b, e: (torch.diagonal_scatter(x, a, 1, 1, 2), torch.diagonal_scatter(x, b, -2, 2, 0),
                                             torch.diagonal_scatter(x[0], b[:, 0]), torch.diagonal_scatter(x, e, 9, 0, 2)),
                         [("fin", S), ("fin", (3, 5)), ("fin", (5, 3)), ("fin", (5, 0))]),
    "repeat": (lambda x: x.repeat(2, 1, 3) * 2.0, [("fin", M)]),
    "tril": (lambda x: x.tril(), [("f", S)]),
    "triu_offset": (lambda x: torch.triu(x, 1) - torch.tril(x, -2), [("fin", (3, 9, 9))]),
    "tril_table": (lambda x: x.tril(1) * 2.0, [("fin", (2, 20, 9))]),  # a mask of 180: a table
    "pad": (lambda x: F.pad(x, (1, 2, 0, 1), value=-1.0), [("fin", S)]),
    # constant_pad_nd's third argument is the value (it was read as a mode: refused)
    "constant_pad_nd": (lambda x: torch.constant_pad_nd(x, [1, 2, 0, 1], 2.5), [("fin", S)]),
    "pad_sequence": (lambda x, y: nn.utils.rnn.pad_sequence([x, y, x[:2]], batch_first=True, padding_value=-1.0),
                     [("fin", (5, 4)), ("fin", (3, 4))]),
    "pad_negative": (lambda x: F.pad(x, (-1, 2)) * 2.0, [("fin", S)]),
    # an integer 0 filling one dim is zeros, not the positions 0, 1, ... (session 39's bug)
    "pad_int_1d": (lambda i: (F.pad(i, (0, 5)) * 3).float(), [("i", (9,), -4, 4)]),
    "split": (lambda x: torch.split(x, 2, dim=2), [("fin", S)]),
    "chunk_unbind": (lambda x: (x.chunk(2, 1)[1] * 2.0, x.unbind(0)[2] + 1.0), [("fin", S)]),
    "stack": (lambda x, y: torch.stack([x, y], 1) * 2.0, [("fin", M), ("fin", M)]),
    "addmm": (lambda b, x, w: torch.addmm(b, x, w, beta=0.5, alpha=2.0), [("fin", (7,)), ("fin", M), ("fin", (7, 7))]),
    "full_like": (lambda x: x + torch.full_like(x, 2.5) * torch.ones_like(x), [("fin", M)]),
    "div_floor": (lambda x, y: torch.div(x, y, rounding_mode="floor"), [("fin", S), ("pos", M)]),
    "div_trunc": (lambda x, y: torch.div(x, y, rounding_mode="trunc"), [("fin", S), ("pos", M)]),
    "floor_divide": (lambda x: x // 0.3, [("fin", S)]),
    # captured through PyTorch's decompositions (frontend/capture.py: no handler of their own)
    "cross_entropy": (lambda x, t: F.cross_entropy(x, t), [("fin", (5, 7)), ("i", (5,), 0, 7)]),
    "cross_entropy_sum_smoothing": (lambda x, t: F.cross_entropy(x, t, reduction="sum", label_smoothing=0.1),
                                    [("fin", (4, 6, 3)), ("i", (4, 3), 0, 6)]),  # fmt: skip
    "nll_loss": (lambda x, t: F.nll_loss(F.log_softmax(x, 1), t), [("fin", (5, 7)), ("i", (5,), 0, 7)]),
    "mse_loss": (F.mse_loss, [("fin", M), ("fin", M)]),
    "l1_loss_sum": (lambda x, y: F.l1_loss(x, y, reduction="sum"), [("fin", S), ("fin", S)]),
    "bce_with_logits": (F.binary_cross_entropy_with_logits, [("fin", M), ("fin", M)]),
    "einsum_bmm": (lambda a, b: torch.einsum("bij,bjk->bik", a, b), [("fin", (3, 4, 5)), ("fin", (3, 5, 6))]),
    "einsum_transposed": (lambda a, b: torch.einsum("ij,kj->ki", a, b), [("fin", M), ("fin", (3, 7))]),
    "baddbmm": (lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2.0),
                [("fin", (3, 4, 6)), ("fin", (3, 4, 5)), ("fin", (3, 5, 6))]),  # fmt: skip
    # an empty piece's arithmetic (dropped from the concat, then dead) and .mT
    "cat_empty_piece_mT": (lambda x: torch.cat([x[..., :2], x[..., 7:] * 2.0], -1) + x.mT.mT[..., 1:3], [("fin", (3, 5, 7))]),
    "roll": (lambda x: torch.roll(x, (2, -1), (1, 2)), [("fin", S)]),
    "roll_flat": (lambda x: torch.roll(x, 4) * 2.0, [("fin", M)]),
    "repeat_interleave": (lambda x: x.repeat_interleave(2, dim=1), [("fin", S)]),
    # tensor repeats drawn at random (zeros among them), pairs of them summing to 4: output_size 4 a pair
    "repeat_interleave_tensor": (lambda x, l: torch.repeat_interleave(x, torch.stack([l, 4 - l], 1).flatten(), dim=1, output_size=16),
                                 [("f", (3, 8, 2)), ("i", (4,), 0, 5)]),
    "repeat_interleave_tensor_flat": (lambda x, l: (x.repeat_interleave(torch.stack([4 - l, l], 1).flatten(), output_size=12),
                                                    torch.repeat_interleave(torch.stack([l, 4 - l], 1).flatten(), output_size=12)),
                                      [("fin", (2, 3)), ("i", (3,), 0, 5)]),
    "pixel_shuffle": (nn.PixelShuffle(2), [("fin", (1, 8, 3, 5))]),
    "cosine_similarity": (F.cosine_similarity, [("fin", M), ("fin", M)]),
    # Fourier transforms: DFT matmuls on (real, imag) pairs; past 512 points two shorter ones
    "rfft": (lambda x: torch.view_as_real(torch.fft.rfft(x)), [("fin", (3, 10))]),
    "fft_of_complex": (lambda x: torch.view_as_real(torch.fft.fft(torch.view_as_complex(x), norm="ortho")), [("fin", (2, 7, 2))]),
    "irfft_odd_length": (lambda x: torch.fft.irfft(torch.view_as_complex(x), n=9), [("fin", (3, 5, 2))]),
    "rfft2_irfft2": (lambda x: torch.fft.irfft2(torch.fft.rfft2(x) * 2.0, s=(4, 6)), [("fin", (2, 4, 6))]),
    "fftshift_fft_dim0": (lambda x: torch.fft.fftshift(torch.fft.fft(x, dim=0)).abs(), [("fin", (5, 3))]),
    "rfft_split": (lambda x: torch.view_as_real(torch.fft.rfft(x, norm="forward")), [("fin", (2, 1030))]),
    "irfft_split": (lambda x: torch.fft.irfft(torch.fft.rfft(x) * 0.5), [("fin", (1, 1024))]),
    "fno_spectral_conv": (_SpectralConv2d(3, 2), [("fin", (2, 3, 6, 7))]),
    "stft": (lambda x: torch.stft(x, 16, hop_length=4, window=torch.hann_window(16, dtype=x.dtype), return_complex=True).abs(),
             [("fin", (2, 50))]),  # fmt: skip
}


def make_inputs(specs, dtype=torch.float64, seed: int = 0) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    out = []
    for spec in specs:
        kind, shape = spec[0], spec[1]
        if kind in ("f", "fin"):
            x = torch.randn(shape, generator=gen, dtype=torch.float64)
            if kind == "f":
                flat = x.view(-1)
                for i, v in enumerate(EDGES[: flat.numel()]):
                    flat[i] = v
            out.append(x.to(dtype))
        elif kind == "pos":
            out.append((torch.rand(shape, generator=gen, dtype=torch.float64) * 2 + 0.5).to(dtype))
        elif kind == "b":
            out.append(torch.rand(shape, generator=gen) < 0.5)
        elif kind == "i":
            out.append(torch.randint(spec[2], spec[3], shape, generator=gen))
        else:
            raise ValueError(f"unknown input spec {spec}")
    return out


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def module_of(fn) -> nn.Module:
    return fn if isinstance(fn, nn.Module) else Fn(fn)


def flat_outputs(res) -> list[torch.Tensor]:
    if isinstance(res, torch.Tensor):
        return [res]
    return [t for r in res for t in flat_outputs(r)]


def compare(out: np.ndarray, ref: np.ndarray) -> float:
    """A relative error that treats special values exactly: NaN where the reference has NaN,
    the same infinities where it has them; over the finite rest the larger of ||out - ref|| / ||ref||
    and the worst element's |out - ref| / (|ref| + rms(ref)).
    Integer and bool outputs must be equal. Returns inf on any special-value mismatch."""
    out, ref = np.asarray(out), np.asarray(ref)
    if out.shape != ref.shape:
        return math.inf
    if ref.dtype.kind in "biu":
        return 0.0 if np.array_equal(out.astype(ref.dtype), ref) else math.inf
    o, r = out.astype(np.float64), ref.astype(np.float64)
    if not np.array_equal(np.isnan(o), np.isnan(r)):
        return math.inf
    inf = np.isinf(r)
    if not np.array_equal(np.isinf(o), inf) or not np.array_equal(o[inf], r[inf]):
        return math.inf
    fin = np.isfinite(r)
    if not fin.any():
        return 0.0
    denom = np.linalg.norm(r[fin]) or 1.0
    norm = float(np.linalg.norm(o[fin] - r[fin]) / denom)
    # per element: |out - ref| against |ref| plus the output's RMS (driver/compile's bound), so
    # one wrong element among many right ones cannot hide under the norm ratio
    scale = np.abs(r[fin]) + (float(np.sqrt(np.mean(r[fin] ** 2))) or 1.0)
    elem = float(np.max(np.abs(o[fin] - r[fin]) / scale))
    return max(norm, elem)
