"""Shape sweep: dpl vs PyTorch eager vs torch.compile on shapes drawn per op class (issue 13).

    python bench/sweep.py [--classes matmul,norm] [--cases REGEX] [--quick] [--per-class N]
                          [--seed 0] [--modes eager,compile] [--budget-s 360] [--resume]
                          [--out bench/results/sweep] [--list]
    python bench/sweep.py --compile-only [--no-nvcc] ...     # no GPU: schedule + CUDA + nvcc

Each op class (CLASSES) has a few fixed cases (the shapes issue 13 reported slow) and cases drawn
from a generator seeded by (seed, class): odd, prime, power-of-two and round sizes, small to a
few GB. The names carry the shapes, so `--cases` regexes select them; `--quick` keeps the first
two of each class.

On a GPU each case is:
- checked against PyTorch in float64 (on the GPU): dpl's output (poisoned with NaN first, so an
  unwritten element fails) and eager's, as the norm error ‖out − ref‖/‖ref‖ and the worst
  element |out − ref| / max|ref|; `ok` when dpl's output is finite and its norm error is under
  DESIGN.md's bar (1e-4 for contractions, 1e-5 otherwise) or at most twice eager's, and its
  worst element at most 8 times eager's worst (or under the bar);
- timed by `bench.harness.benchmark` (CUDA graphs, events, median, L2 kept out) for dpl and the
  `--modes` variants.
Results go to `<out>/<device-slug>-<date>-seed<N>.json` (the seed in the name: the suite and
other seeds' runs write to the same folders), rewritten after every case (a run cut short
keeps what it measured), with a chart next to it (`bench/chart.py` style) once the run ends.
Cases start round-robin over the classes, so a run cut short by `--budget-s` covers every class;
`--resume` skips the cases the results file already holds (not those that failed), so the same
command run again goes on where the last one stopped (the device allows 10 minutes a command);
a results file of another seed is refused (the fixed cases have the same names in every seed).

`--compile-only` needs no GPU: every case is captured on the meta device, compiled by dpl
through the whole pipeline to CUDA, and the CUDA compiled by nvcc for sm_90 (sm_90a with wgmma; unless
`--no-nvcc`). Per kernel it reports what the schedule chose (class, grid, block, shared memory,
whether inputs were staged, atomics (split-K, split reductions, scatters), cp.async,
pipelining), and flags shapes that look like a cliff without running them (`flags`): a matmul with nothing staged in shared memory, a big
kernel on fewer blocks than the GPU has SMs, small blocks.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import logging
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from dpl.backend.cuda_mma import WGMMA_ARCH, needs_sm90a
from dpl.bench import harness as B

SMS = 132  # H100 SXM
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "sweep")
MiB = 1 << 20


# ----------------------------------------------------------------------------- the programs


class MatMul(nn.Module):
    """a @ b, each operand given in storage as is ("n") or transposed ("t"): `tn` is a.T @ b
    with `a` stored (K, M)."""

    def __init__(self, trans: str):
        super().__init__()
        self.trans = trans

    def forward(self, a, b):
        a = a.transpose(-1, -2) if self.trans[0] == "t" else a
        b = b.transpose(-1, -2) if self.trans[1] == "t" else b
        return torch.matmul(a, b)


class LinearEpilogue(nn.Module):
    """linear(x) followed by an elementwise epilogue."""

    def __init__(self, k: int, n: int, epi: str):
        super().__init__()
        self.lin = nn.Linear(k, n, bias=epi != "none")
        self.epi = epi

    def forward(self, x, r):
        y = self.lin(x)
        if self.epi == "relu":
            return torch.relu(y)
        if self.epi == "gelu":
            return F.gelu(y)
        if self.epi == "residual":
            return y + r
        if self.epi == "silu_mul":
            return F.silu(y) * r
        return y


class LinearReduce(nn.Module):
    """A reduction over a linear's output features: sum / mean / amax of x @ w.T over dim -1."""

    def __init__(self, k: int, n: int, op: str):
        super().__init__()
        self.lin = nn.Linear(k, n, bias=False)
        self.op = op

    def forward(self, x):
        y = self.lin(x)
        if self.op == "amax":
            return torch.amax(y, dim=-1)
        return getattr(torch, self.op)(y, dim=-1)


class Reduce(nn.Module):
    def __init__(self, op: str, dims: tuple[int, ...]):
        super().__init__()
        self.op, self.dims = op, dims

    def forward(self, x):
        if self.op == "amax":
            return torch.amax(x, dim=self.dims)
        return getattr(torch, self.op)(x, dim=self.dims)


class Softmax(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.softmax(x, dim=self.dim)


class ChannelRMSNorm(nn.Module):
    """RMSNorm over dim 1 of (batch, channels, h, w), with a weight per channel."""

    def __init__(self, c: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(c))

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6)
        return x * scale * self.weight[None, :, None, None]


class Pointwise(nn.Module):
    """A chain of elementwise ops over x, y (same shape) and a bias broadcast along the last dim."""

    def __init__(self, chain: str, n: int):
        super().__init__()
        self.chain = chain
        self.bias = nn.Parameter(torch.zeros(n))

    def forward(self, x, y):
        if self.chain == "gelu_mul_add":
            return F.gelu(x) * y + self.bias
        if self.chain == "silu_mul":
            return F.silu(x) * y
        if self.chain == "sigmoid_bias":
            return x * torch.sigmoid(y + self.bias)
        return (x - y).pow(2) * 0.5 + self.bias  # sq_diff


def _init(module: nn.Module, gen: torch.Generator) -> None:
    """Deterministic parameters: weights N(0, 1/fan_in), norm weights 1 + N(0, 0.1)."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.device.type == "meta":
                continue
            noise = torch.randn(p.shape, generator=gen, device="cpu").to(p.device)
            if name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif p.dim() >= 2:
                p.copy_(noise / math.sqrt(p.shape[-1]))
            else:
                p.copy_(1.0 + 0.1 * noise)


# ----------------------------------------------------------------------------- cases


@dataclass
class SweepCase:
    name: str
    cls: str
    #: () -> module (parameters on the CPU, not yet initialised)
    module: Callable[[], nn.Module]
    #: the input shapes
    shapes: tuple[tuple[int, ...], ...]
    #: floating-point work and bytes of inputs + outputs, roughly (for the table and the order)
    flops: float = 0.0
    io_bytes: int = 0
    contraction: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)

    def build(self, device: str | torch.device) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
        """The module (initialised) and random inputs on `device` ("meta": shapes only)."""
        seed = int(hashlib.sha256(self.name.encode()).hexdigest()[:8], 16)
        gen = torch.Generator(device="cpu").manual_seed(seed)
        dev = torch.device(device)
        with torch.device("meta" if dev.type == "meta" else "cpu"):
            m = self.module()
        _init(m, gen)
        m = m.to(dev).eval()
        if dev.type == "meta":
            return m, tuple(torch.empty(s, device=dev) for s in self.shapes)
        g = torch.Generator(device=dev).manual_seed(seed)
        return m, tuple(torch.randn(s, device=dev, generator=g) for s in self.shapes)


def _prime_at_least(n: int) -> int:
    def prime(k: int) -> bool:
        return k > 1 and all(k % d for d in range(2, math.isqrt(k) + 1))

    while not prime(n):
        n += 1
    return n


def draw(rng: random.Random, lo: int, hi: int, kinds: tuple[str, ...] = ("odd", "prime", "pow2", "round")) -> int:
    """A size in [lo, hi] of a kind drawn from `kinds`: odd, prime, a power of two, a multiple
    of 64 (round) or any (any)."""
    kind = rng.choice(kinds)
    if kind == "pow2":
        a, b = max(0, math.ceil(math.log2(lo))), max(0, math.floor(math.log2(hi)))
        return 2 ** rng.randint(a, max(a, b))
    # log-uniform, so small and large sizes are both drawn
    n = int(math.exp(rng.uniform(math.log(lo), math.log(hi + 1))))
    n = min(max(n, lo), hi)
    if kind == "odd":
        odd = [m for m in (n | 1, (n | 1) - 2) if lo <= m <= hi]
        return odd[0] if odd else n
    if kind == "prime":
        p = _prime_at_least(n)
        return p if p <= hi else n
    if kind == "round":
        return min(max(64, 64 * round(n / 64)), hi) if hi >= 64 else n
    return n


def _fmt(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def _nbytes(*shapes: tuple[int, ...]) -> int:
    return 4 * sum(math.prod(s) for s in shapes)


def matmul_case(m: int, n: int, k: int, trans: str = "nn", batch: int = 0, tags=()) -> SweepCase:
    a = (k, m) if trans[0] == "t" else (m, k)
    b = (n, k) if trans[1] == "t" else (k, n)
    if batch:
        a, b = (batch, *a), (batch, *b)
    cls = "bmm" if batch else "matmul"
    name = f"{cls}_{trans}_" + (f"b{batch}_" if batch else "") + f"{m}x{n}x{k}"
    out = (max(batch, 1), m, n)
    return SweepCase(name, cls, lambda: MatMul(trans), (a, b), 2.0 * max(batch, 1) * m * n * k,
                     _nbytes(a, b, out), True, tags)


def linear_epilogue_case(s: int, k: int, n: int, epi: str, tags=()) -> SweepCase:
    return SweepCase(f"linear_{epi}_{s}x{k}to{n}", "linear_epilogue",
                     lambda: LinearEpilogue(k, n, epi), ((s, k), (s, n)), 2.0 * s * n * k,
                     _nbytes((s, k), (n, k), (s, n), (s, n)), True, tags)


def linear_reduce_case(s: int, k: int, n: int, op: str, tags=()) -> SweepCase:
    return SweepCase(f"linear_{op}_{s}x{k}to{n}", "linear_reduce", lambda: LinearReduce(k, n, op),
                     ((s, k),), 2.0 * s * n * k, _nbytes((s, k), (n, k), (s,)), True, tags)


def reduce_case(shape: tuple[int, ...], op: str, dims: tuple[int, ...], tags=()) -> SweepCase:
    d = "".join(map(str, dims))
    return SweepCase(f"{op}_d{d}_{_fmt(shape)}", "reduce", lambda: Reduce(op, dims), (shape,),
                     float(math.prod(shape)), _nbytes(shape), False, tags)


def softmax_case(shape: tuple[int, ...], dim: int, tags=()) -> SweepCase:
    return SweepCase(f"softmax_d{dim}_{_fmt(shape)}", "softmax", lambda: Softmax(dim), (shape,),
                     5.0 * math.prod(shape), _nbytes(shape, shape), False, tags)


def norm_case(kind: str, shape: tuple[int, ...], ndims: int, tags=()) -> SweepCase:
    """LayerNorm / RMSNorm over the last `ndims` dims, or RMSNorm over dim 1 ("rmsnorm_c")."""
    normalized = shape[-ndims:]
    if kind == "layernorm":
        make = lambda: nn.LayerNorm(normalized)  # noqa: E731
    elif kind == "rmsnorm":
        make = lambda: nn.RMSNorm(normalized, eps=1e-6)  # noqa: E731
    else:
        make = lambda: ChannelRMSNorm(shape[1])  # noqa: E731
    what = kind if kind == "rmsnorm_c" else f"{kind}_last{ndims}"
    return SweepCase(f"{what}_{_fmt(shape)}", "norm", make, (shape,), 6.0 * math.prod(shape),
                     _nbytes(shape, shape), False, tags)


def pointwise_case(chain: str, shape: tuple[int, ...], tags=()) -> SweepCase:
    return SweepCase(f"pw_{chain}_{_fmt(shape)}", "pointwise", lambda: Pointwise(chain, shape[-1]),
                     (shape, shape), 4.0 * math.prod(shape), _nbytes(shape, shape, shape), False, tags)


# Fixed cases: the shapes issue 13 found slow, and the ones a user runs first.
ISSUE = ("issue13",)


def _matmuls(rng: random.Random, n: int) -> list[SweepCase]:
    cases = [matmul_case(1000, 1000, 1000, tags=ISSUE), matmul_case(2048, 2048, 2048, "tn", tags=ISSUE),
             matmul_case(4096, 4096, 4096, "nt", tags=ISSUE)]
    while len(cases) < n + 3:
        m, nn_, k = draw(rng, 16, 6000), draw(rng, 16, 6000), draw(rng, 16, 6000)
        if 2.0 * m * nn_ * k > 1.5e11 or m * nn_ < 64:
            continue
        cases.append(matmul_case(m, nn_, k, rng.choice(("nn", "nt", "tn", "tt"))))
    return cases


def _bmms(rng: random.Random, n: int) -> list[SweepCase]:
    cases = [matmul_case(2048, 2048, 2048, "nn", batch=4, tags=ISSUE),
             matmul_case(1023, 1025, 4099, "nt", batch=3, tags=ISSUE)]
    while len(cases) < n + 2:
        b = draw(rng, 2, 64, ("any", "pow2", "odd"))
        m, nn_, k = draw(rng, 16, 3000), draw(rng, 16, 3000), draw(rng, 16, 3000)
        if 2.0 * b * m * nn_ * k > 1.2e11 or m * nn_ < 64:
            continue
        cases.append(matmul_case(m, nn_, k, rng.choice(("nn", "nt", "tn", "tt")), batch=b))
    return cases


def _linears(rng: random.Random, n: int, fixed: list[SweepCase], make: Callable[..., SweepCase],
             kinds: tuple[str, ...]) -> list[SweepCase]:
    """`fixed`, then `n` linears of drawn sizes under 150 GFLOP, each ending in one of `kinds`."""
    cases = list(fixed)
    while len(cases) < n + len(fixed):
        s, k, o = draw(rng, 16, 8192), draw(rng, 16, 8192), draw(rng, 16, 8192)
        if 2.0 * s * o * k > 1.5e11:
            continue
        cases.append(make(s, k, o, rng.choice(kinds)))
    return cases


def _linear_epilogues(rng: random.Random, n: int) -> list[SweepCase]:
    fixed = [linear_epilogue_case(1000, 1000, 1000, "gelu", tags=ISSUE),
             linear_epilogue_case(4097, 1024, 4096, "residual", tags=ISSUE)]
    return _linears(rng, n, fixed, linear_epilogue_case, ("relu", "gelu", "residual", "silu_mul"))


def _linear_reduces(rng: random.Random, n: int) -> list[SweepCase]:
    fixed = [linear_reduce_case(4096, 1024, 1024, "sum", tags=ISSUE),
             linear_reduce_case(999, 1000, 1001, "mean", tags=ISSUE)]
    return _linears(rng, n, fixed, linear_reduce_case, ("sum", "mean", "amax"))


def _shape(rng: random.Random, rank: int, max_elems: int, lo: int = 1) -> tuple[int, ...]:
    """A shape of `rank` dims holding 256K to `max_elems` elements."""
    hi = min(max_elems, 4 * round(max_elems ** (1 / rank)))
    while True:
        shape = tuple(draw(rng, lo, hi) for _ in range(rank))
        if 1 << 18 <= math.prod(shape) <= max_elems:
            return shape


def _reduces(rng: random.Random, n: int) -> list[SweepCase]:
    cases = [reduce_case((64, 4099, 1021), "sum", (1,), tags=ISSUE),
             reduce_case((32, 1024, 8192), "mean", (1,), tags=ISSUE),
             reduce_case((8, 16777216), "sum", (1,), tags=ISSUE),
             reduce_case((1048576, 7), "sum", (1,), tags=ISSUE),
             reduce_case((4099, 8191), "sum", (0, 1))]  # to one value
    while len(cases) < n + 5:
        rank = rng.choice((2, 3, 3, 4))
        shape = _shape(rng, rank, 256 * MiB, lo=2)
        dims = (rng.randrange(rank),)
        if rank >= 3 and rng.random() < 0.25:
            dims = tuple(sorted(rng.sample(range(rank), 2)))
        cases.append(reduce_case(shape, rng.choice(("sum", "mean", "amax")), dims))
    return cases


def _softmaxes(rng: random.Random, n: int) -> list[SweepCase]:
    cases = [softmax_case((4096, 32000), -1, tags=ISSUE), softmax_case((16, 1023, 1025), 1, tags=ISSUE)]
    while len(cases) < n + 2:
        rank = rng.choice((2, 3, 4))
        shape = _shape(rng, rank, 128 * MiB, lo=2)
        dim = -1 if rng.random() < 0.6 else rng.randrange(rank - 1)
        cases.append(softmax_case(shape, dim))
    return cases


def _norms(rng: random.Random, n: int) -> list[SweepCase]:
    cases = [norm_case("layernorm", (16, 64, 256, 256), 3, tags=ISSUE),
             norm_case("rmsnorm_c", (32, 256, 56, 56), 1, tags=ISSUE),
             norm_case("rmsnorm", (8, 4099, 4096), 1, tags=ISSUE)]
    while len(cases) < n + 3:
        kind = rng.choice(("layernorm", "rmsnorm", "rmsnorm_c"))
        rank = 4 if kind == "rmsnorm_c" else rng.choice((2, 3, 4))
        shape = _shape(rng, rank, 128 * MiB, lo=2)
        ndims = 1 if kind == "rmsnorm_c" else rng.randint(1, rank - 1)
        cases.append(norm_case(kind, shape, ndims))
    return cases


def _pointwises(rng: random.Random, n: int) -> list[SweepCase]:
    cases = [pointwise_case("gelu_mul_add", (4099, 8191), tags=ISSUE),
             pointwise_case("silu_mul", (16384, 16411), tags=ISSUE)]  # 1 GB per operand
    while len(cases) < n + 2:
        rank = rng.choice((1, 2, 3))
        shape = _shape(rng, rank, 256 * MiB)
        cases.append(pointwise_case(rng.choice(("gelu_mul_add", "silu_mul", "sigmoid_bias", "sq_diff")), shape))
    return cases


#: Each op class and its case generator (rng, random cases) -> fixed cases + random cases.
CLASSES: dict[str, Callable[[random.Random, int], list[SweepCase]]] = {
    "matmul": _matmuls,
    "bmm": _bmms,
    "linear_epilogue": _linear_epilogues,
    "linear_reduce": _linear_reduces,
    "reduce": _reduces,
    "softmax": _softmaxes,
    "norm": _norms,
    "pointwise": _pointwises,
}


def all_cases(seed: int = 0, per_class: int = 5, classes: list[str] | None = None, quick: bool = False) -> list[SweepCase]:
    """The sweep's cases, round-robin over the classes (fixed cases first in each)."""
    per: list[list[SweepCase]] = []
    for cls in classes or list(CLASSES):
        if cls not in CLASSES:
            raise SystemExit(f"sweep: unknown class '{cls}' (known: {', '.join(CLASSES)})")
        rng = random.Random(f"dpl-sweep-{seed}-{cls}")
        cases = CLASSES[cls](rng, per_class)
        per.append(cases[:2] if quick else cases)
    out = []
    for i in range(max(len(c) for c in per)):
        out += [c[i] for c in per if i < len(c)]
    return out


def select(cases: list[SweepCase], pattern: str | None) -> list[SweepCase]:
    if not pattern:
        return cases
    pats = [re.compile(p.strip()) for p in pattern.split(",") if p.strip()]
    return [c for c in cases if any(p.search(c.name) for p in pats)]


# ----------------------------------------------------------------------------- compile only


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def schedule_report(module: Any, log: list[str]) -> list[dict[str, Any]]:
    """Per kernel.func of a kernel-level module: grid, block, shared memory, and what the
    schedule did (class from the `schedule` log, staging, atomics, cp.async, pipelining)."""
    from dpl.dialects import kernel as K

    classes: dict[str, str] = {}
    for line in log:
        m = re.match(r"schedule: @(\S+) is (matmul|pointwise|row reduction|(?:flash )?attention)\b(.*)", line)
        if m:
            what = m.group(2)
            tile = re.match(r",\s*([^(:]+?)\s*\(", m.group(3))
            classes[m.group(1)] = what + (f" {tile.group(1)}" if tile else "")
    funcs = [f for f in module.walk() if isinstance(f, K.KernelFuncOp)]
    names = {f.sym_name.data for f in funcs}
    kernels = []
    for f in funcs:
        ops = list(f.walk())
        # static buffers add up; dynamic ones are views into the launch's `smem` bytes (fused
        # launches' parts reuse the same offsets, so their sizes do not add)
        smem = sum(o.size_bytes() for o in ops if isinstance(o, K.SmemOp) and not o.is_dynamic)
        name = f.sym_name.data
        first = name.split("__")[0]  # a fused launch (fuse-launches) is classed by its first part
        base = next((k for k in sorted(classes, key=len, reverse=True) if first.startswith(k)), None)
        if first.endswith("_init"):
            what = "zero fill"
        elif first.endswith("_tail"):
            what = "pointwise tail"  # collapse-pointwise: the last N mod 4 elements
        elif f"{first}_acc" in names:
            what = "pointwise epilogue"
        else:
            what = classes.get(base, "?") if base else "?"
        kernels.append({
            "name": name,
            "class": what,
            "grid": [int(x) for x in f.grid_extents],
            "block": [int(x) for x in f.block_extents],
            "smem": int(smem + f.smem.data),
            "staged": any(isinstance(o, K.SmemOp) for o in ops),
            "cp_async": any(isinstance(o, K.CpAsyncOp) for o in ops),
            "atomic": any(isinstance(o, K.AtomicOp) for o in ops),
            "pipelined": any(isinstance(o, K.CpAsyncWaitOp) and o.attributes.get("n") is not None
                             for o in ops) or sum(isinstance(o, K.CpAsyncWaitOp) for o in ops) > 1,
        })
    return kernels


def cliff_flags(case: SweepCase, kernels: list[dict[str, Any]]) -> list[str]:
    """Signs of a cliff in a schedule, read without a GPU."""
    flags = []
    for k in kernels:
        blocks = math.prod(k["grid"])
        threads = math.prod(k["block"])
        if k["class"].startswith("matmul") and not k["staged"]:
            flags.append(f"{k['name']}: matmul with nothing staged in shared memory")
        big = case.io_bytes > 64 * MiB or case.flops > 2e9
        if big and blocks < SMS and k["class"] not in ("zero fill", "pointwise tail"):
            flags.append(f"{k['name']}: {blocks} blocks for a big kernel ({SMS} SMs)")
        if threads < 64 and blocks * threads > 4096:
            flags.append(f"{k['name']}: blocks of {threads} threads")
    return flags


def _nvcc() -> str | None:
    return shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def nvcc_check(source: str, arch: str = "sm_90") -> str | None:
    """None if nvcc compiles `source` for `arch` (sm_90, or sm_90a where the module uses wgmma),
    else the first error line."""
    nvcc = _nvcc()
    if nvcc is None:
        return "nvcc not found"
    # `-arch=sm_90a` would also run a plain sm_90 pass, which rejects wgmma: name the target alone
    flag = f"-gencode=arch=compute_{arch[3:]},code={arch}" if arch.endswith("a") else f"-arch={arch}"
    with tempfile.TemporaryDirectory() as d:
        cu = os.path.join(d, "k.cu")
        with open(cu, "w") as f:
            f.write(source)
        r = subprocess.run([nvcc, flag, "-c", "-o", os.path.join(d, "k.o"), cu],
                           capture_output=True, text=True, timeout=600)
    if r.returncode == 0:
        return None
    errs = [ln for ln in r.stderr.splitlines() if "error" in ln] or r.stderr.splitlines() or ["?"]
    return errs[0][:300]


def compile_case(case: SweepCase, nvcc: bool) -> dict[str, Any]:
    """Capture on the meta device, compile to CUDA, optionally nvcc it; the schedule report."""
    from dpl.driver.compile import compile_program
    from dpl.frontend import capture

    res: dict[str, Any] = {"name": case.name, "class": case.cls, "inputs": [list(s) for s in case.shapes],
                           "flops": case.flops, "io_bytes": case.io_bytes, "tags": list(case.tags)}
    handler = _Records()
    logger = logging.getLogger("dpl.passes")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    t0 = time.perf_counter()
    try:
        fn, inputs = case.build("meta")
        compiled = compile_program(capture(fn, *inputs, dtype=torch.float32))
        res["compile_s"] = time.perf_counter() - t0
        res["kernels"] = schedule_report(compiled.module, handler.lines)
        res["flags"] = cliff_flags(case, res["kernels"])
        res["declined"] = sorted({ln for ln in handler.lines if "declined" in ln
                                  and ("chunk-matmul-k" in ln or "split-matmul-k" in ln
                                       or "register-tile" in ln or "stage-inputs" in ln)})
        if nvcc:
            t1 = time.perf_counter()
            arch = WGMMA_ARCH if needs_sm90a(compiled.module.walk()) else "sm_90"
            res["nvcc_error"] = nvcc_check(compiled.cuda, arch)
            res["nvcc_s"] = time.perf_counter() - t1
    except Exception as e:  # noqa: BLE001 - a case that fails to compile is a finding
        res["error"] = B._one_line(e)
        res["compile_s"] = time.perf_counter() - t0
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    return res


def _kernel_text(k: dict[str, Any]) -> str:
    what = [w for w, on in (("smem", k["staged"]), ("cp.async", k["cp_async"]),
                            ("atomics", k["atomic"])) if on]
    return (f"{k['name']} [{k['class']}] grid {_fmt(tuple(k['grid']))} block {_fmt(tuple(k['block']))}"
            f" smem {k['smem'] // 1024}K" + (f" ({', '.join(what)})" if what else ""))


def run_compile_only(args: argparse.Namespace, cases: list[SweepCase]) -> int:
    os.makedirs(args.out, exist_ok=True)
    path = args.json or os.path.join(args.out, "compile-only.json")
    doc: dict[str, Any] = {"schema": "dpl-sweep-compile/1", "seed": args.seed,
                           "command": " ".join(sys.argv), "cases": []}
    bad = 0
    for case in cases:
        res = compile_case(case, nvcc=not args.no_nvcc)
        doc["cases"].append(res)
        B.write_json(path, doc)
        status = "ERROR " + res["error"] if "error" in res else (
            "nvcc: " + res["nvcc_error"] if res.get("nvcc_error") else "ok")
        bad += status != "ok" or bool(res.get("flags"))
        print(f"== {case.name} ({case.cls}, {res['compile_s']:.1f} s): {status}", flush=True)
        for k in res.get("kernels", []):
            print("   " + _kernel_text(k), flush=True)
        for fl in res.get("flags", []):
            print("   FLAG " + fl, flush=True)
    print(f"{len(cases)} cases, {bad} with an error or a flag; wrote {path}")
    return 0


# ----------------------------------------------------------------------------- GPU run


def _errors(out: Any, ref: Any) -> tuple[float, float]:
    """(‖out − ref‖/‖ref‖, max|out − ref| / max|ref|) in float64 (inf if not finite)."""
    outs, refs = B._tensors(out), B._tensors(ref)
    if len(outs) != len(refs) or any(o.shape != r.shape for o, r in zip(outs, refs)):
        return math.inf, math.inf
    num = den = worst = scale = 0.0
    for o, r in zip(outs, refs):
        d = o.double() - r
        if not bool(torch.isfinite(d).all()):
            return math.inf, math.inf
        num += float(d.pow(2).sum())
        den += float(r.pow(2).sum())
        worst = max(worst, float(d.abs().max()))
        scale = max(scale, float(r.abs().max()))
    return math.sqrt(num) / (math.sqrt(den) or 1.0), worst / (scale or 1.0)


def check64(case: SweepCase, fn: nn.Module, inputs: tuple, dpl: Any) -> dict[str, Any]:
    """dpl (poisoned outputs) and eager against float64 PyTorch on the GPU."""
    bar = 1e-4 if case.contraction else 1e-5
    with torch.no_grad():
        ref = copy.deepcopy(fn).double()(*[x.double() for x in inputs])
        eager = fn(*inputs)
        out = dpl(*inputs, poison=True)
    e_norm, e_elem = _errors(eager, ref)
    d_norm, d_elem = _errors(out, ref)
    ok = math.isfinite(d_norm) and (d_norm <= bar or d_norm <= 2 * e_norm) and (
        d_elem <= 8 * e_elem or d_elem <= bar)
    del ref, eager, out
    return {"dpl_err": d_norm, "eager_err": e_norm, "dpl_elem_err": d_elem, "eager_elem_err": e_elem,
            "err_ratio": d_norm / e_norm if e_norm else None, "ok": ok, "bar": bar}


def run_gpu(args: argparse.Namespace, cases: list[SweepCase], device: str = "cuda",
            compiler: Callable[[Any], Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Check and time every case (the module doc); `device` and `compiler` (a captured program
    -> a callable program) are for tests on the CPU."""
    from dpl.driver.compile import compile_program
    from dpl.frontend import capture

    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("sweep: needs a CUDA GPU (or --compile-only)")
    compiler = compiler or compile_program
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    t_start = time.perf_counter()
    doc = B.environment()
    doc.update(schema="dpl-sweep/1", seed=args.seed, modes=modes, command=" ".join(sys.argv), cases=[])
    os.makedirs(args.out, exist_ok=True)
    path = args.json or os.path.join(args.out, f"{doc['device_slug']}-{doc['date']}-seed{args.seed}.json")
    kept: dict[str, dict] = {}
    if (args.resume or args.merge) and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old.get("seed", args.seed) != args.seed:  # the fixed cases' names repeat across seeds
            raise SystemExit(f"sweep: {path} holds seed {old.get('seed')}, not {args.seed}: "
                             "give another --json to --resume or --merge")
        kept = {c["name"]: c for c in old.get("cases", []) if c.get("name")}
    order = {c.name: i for i, c in enumerate(cases)}

    def save() -> None:
        by_name = dict(kept)
        for c in doc["cases"]:
            if not (c.get("skipped") and c["name"] in by_name):
                by_name[c["name"]] = c
        doc["cases"] = sorted(by_name.values(), key=lambda c: order.get(c["name"], len(order)))
        kept.clear()
        kept.update({c["name"]: c for c in doc["cases"]})
        doc["summary"] = summarize(doc["cases"])
        doc["geomean"] = B.geomeans(doc["cases"])
        doc["wall_s"] = time.perf_counter() - t_start
        B.write_json(path, doc)

    print(f"{doc['device']}: copy {doc.get('copy_gbs') or 0:.0f} GB/s, cuBLAS fp32 "
          f"{(doc.get('cublas_fp32_gflops') or 0) / 1e3:.1f} TFLOP/s; {len(cases)} cases; "
          f"writing {path}", flush=True)
    for case in cases:
        done = kept.get(case.name)
        failed = done and (done.get("error") or done.get("variants", {}).get("dpl", {}).get("error"))
        if args.resume and done and not done.get("skipped") and not failed:
            continue
        elapsed = time.perf_counter() - t_start
        if elapsed > args.budget_s:
            doc["cases"].append({"name": case.name, "class": case.cls, "skipped":
                                 f"time budget ({args.budget_s:.0f} s)", "variants": {}, "speedup": {}})
            continue
        print(f"== {case.name} ({elapsed:.0f} s)", flush=True)
        fn = inputs = dpl = None
        dpl_entry: dict[str, Any] = {}
        try:
            fn, inputs = case.build(device)
            try:  # dpl failing to build or check still leaves eager and compile to time
                t0 = time.perf_counter()
                cpu_fn, cpu_inputs = copy.deepcopy(fn).cpu(), [torch.empty(s) for s in case.shapes]
                dpl = compiler(capture(cpu_fn, *cpu_inputs, dtype=torch.float32))
                dpl_entry["compile_s"] = time.perf_counter() - t0
                check = check64(case, fn, inputs, dpl)
            except Exception as e:  # noqa: BLE001 - recorded as dpl's error
                traceback.print_exc()
                dpl, check = None, None
                dpl_entry["error"] = B._one_line(e)
            res = B.benchmark(case.name, fn, inputs, dpl=dpl if dpl is not None else False,
                              modes=modes, check=False, target_ms=args.target_ms, device=device,
                              verbose=args.verbose)  # fmt: skip
            res["variants"]["dpl"] = {**res["variants"].get("dpl", {}), **dpl_entry}
            if check is not None:
                res["check"] = check
                res["variants"]["dpl"]["rel_err"] = check["dpl_err"]
            B._ratios(res)
        except Exception as e:  # noqa: BLE001 - a broken case must not end the sweep
            traceback.print_exc()
            res = {"name": case.name, "error": B._one_line(e), "variants": {}, "speedup": {}}
        res.update({"class": case.cls, "tags": list(case.tags), "flops": case.flops,
                    "io_bytes": case.io_bytes})
        doc["cases"].append(res)
        print("   " + _row_text(res), flush=True)
        fn = inputs = dpl = None
        torch._dynamo.reset()
        if device == "cuda":
            torch.cuda.empty_cache()
        save()
    save()
    print()
    print(format_summary(doc))
    try:
        from dpl.bench import chart

        png = chart.chart(doc, os.path.splitext(path)[0] + ".png")
        print(f"wrote {png}")
    except Exception as e:  # noqa: BLE001 - no matplotlib: the JSON is what counts
        print(f"chart: {B._one_line(e)}")
    print(f"wrote {path} ({time.perf_counter() - t_start:.0f} s)")
    return doc


def _row_text(res: dict[str, Any]) -> str:
    if res.get("error"):
        return "error: " + res["error"]
    v, sp, ch = res["variants"], res.get("speedup", {}), res.get("check", {})
    ms = lambda m: v[m].get("median_ms") or math.nan  # noqa: E731
    d = v.get("dpl", {})
    parts = [f"dpl error: {d['error']}" if d.get("error") else f"dpl {ms('dpl'):.4f} ms"]
    parts += [f"{m} {ms(m):.4f} ms ({sp.get(m) or 0:.2f}x)" for m in v if m != "dpl"]
    if ch:
        parts.append(f"err {ch.get('dpl_err', math.nan):.1e} (eager {ch.get('eager_err', math.nan):.1e})"
                     + ("" if ch.get("ok") else " WRONG"))
    return ", ".join(parts)


def summarize(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets: the worst case vs eager, the geomean vs torch.compile, wrong cases."""
    done = [c for c in cases if c.get("speedup")]
    eager = [(c["speedup"].get("eager"), c["name"]) for c in done if c["speedup"].get("eager")]
    worst = min(eager) if eager else (None, None)
    per_class: dict[str, dict[str, float | None]] = {}
    for cls in sorted({c.get("class", "?") for c in done}):
        cc = [c for c in done if c.get("class") == cls]
        per_class[cls] = {m: B.geomean(c["speedup"].get(m) for c in cc) for m in B.ALL_MODES}
    return {
        "cases": len(cases),
        "measured": len(done),
        "worst_vs_eager": worst[0],
        "worst_case": worst[1],
        "below_0.8x_eager": sorted(n for s, n in eager if s < 0.8),
        "wrong": sorted(c["name"] for c in cases if c.get("check") and not c["check"].get("ok")),
        "errors": sorted(c["name"] for c in cases
                         if c.get("error") or c.get("variants", {}).get("dpl", {}).get("error")),
        "per_class": per_class,
    }


SHOWN = 12
"""The summary table shows this many of the slowest cases against eager (plus every wrong or
failed one); the JSON holds them all."""


def format_summary(doc: dict[str, Any]) -> str:
    header = ["case", "class", "dpl ms", "eager ms", "compile ms", "eager/dpl", "compile/dpl",
              "dpl err", "eager err", "ok"]
    rows = []
    measured = sorted((c for c in doc["cases"] if c.get("speedup", {}).get("eager")),
                      key=lambda c: c["speedup"]["eager"])  # fmt: skip
    shown = {c["name"] for c in measured[:SHOWN]}
    shown |= {c["name"] for c in doc["cases"]
              if c.get("error") or c.get("variants", {}).get("dpl", {}).get("error")
              or (c.get("check") and not c["check"].get("ok"))}  # fmt: skip
    for c in sorted((c for c in doc["cases"] if c["name"] in shown),
                    key=lambda c: c.get("speedup", {}).get("eager") or 0.0):  # fmt: skip
        v, sp, ch = c.get("variants", {}), c.get("speedup", {}), c.get("check", {})
        ms = lambda m: B._fmt(v.get(m, {}).get("median_ms"), ".4f", "err" if "error" in v.get(m, {}) else "-")  # noqa: E731
        x = lambda m: (B._fmt(sp.get(m), ".2f") + "x") if sp.get(m) else "-"  # noqa: E731
        status = "skip" if c.get("skipped") else "error" if c.get("error") else (
            "yes" if ch.get("ok") else "NO")
        rows.append([c["name"], c.get("class", "?"), ms("dpl"), ms("eager"), ms("compile"), x("eager"),
                     x("compile"), B._fmt(ch.get("dpl_err"), ".1e"), B._fmt(ch.get("eager_err"), ".1e"),
                     status])
    lines = B._table(header, rows)
    skipped = sum(1 for c in doc["cases"] if c.get("skipped"))
    lines.append(f"(the {len(rows)} slowest vs eager, wrong or failed of {len(measured)} measured; "
                 f"{skipped} not run for time: rerun with --resume; all in the JSON)")
    s = doc.get("summary") or summarize(doc["cases"])
    gm = doc.get("geomean") or B.geomeans(doc["cases"])
    lines.append("geomean speedup of dpl: " + ", ".join(
        f"vs {m} {gm[m]:.2f}x" for m in B.ALL_MODES if gm.get(m) is not None))
    for cls, g in s["per_class"].items():
        lines.append(f"  {cls}: " + ", ".join(f"vs {m} {g[m]:.2f}x" for m in B.ALL_MODES if g.get(m)))
    if s["worst_vs_eager"] is not None:
        lines.append(f"worst vs eager: {s['worst_vs_eager']:.2f}x ({s['worst_case']}); "
                     f"{len(s['below_0.8x_eager'])} below 0.8x: {', '.join(s['below_0.8x_eager']) or '-'}")
    lines.append(f"wrong: {', '.join(s['wrong']) or '-'}; errors: {', '.join(s['errors']) or '-'}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--classes", help=f"comma-separated op classes (default all: {', '.join(CLASSES)})")
    p.add_argument("--cases", help="comma-separated regexes over case names")
    p.add_argument("--quick", action="store_true", help="the first two cases of each class")
    p.add_argument("--per-class", type=int, default=5, help="random cases per class (default 5)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--modes", default="eager,compile", help="eager,compile,max-autotune")
    p.add_argument("--budget-s", type=float, default=360.0,
                   help="start no new case after this many seconds (default 360: the whole command under 8 minutes)")
    p.add_argument("--target-ms", type=float, default=100.0, help="GPU time per timed variant")
    p.add_argument("--resume", action="store_true",
                   help="skip the cases the results file already holds (and keep them)")
    p.add_argument("--merge", action="store_true", help="keep the results file's other cases")
    p.add_argument("--out", default=OUT)
    p.add_argument("--json", help="results file (default <out>/<device>-<date>-seed<N>.json)")
    p.add_argument("--compile-only", action="store_true", help="no GPU: compile every case to CUDA")
    p.add_argument("--no-nvcc", action="store_true", help="with --compile-only: skip nvcc")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    classes = [c.strip() for c in args.classes.split(",")] if args.classes else None
    cases = select(all_cases(args.seed, args.per_class, classes, args.quick), args.cases)
    if not cases:
        raise SystemExit("sweep: no case selected")
    if args.list:
        for c in cases:
            print(f"{c.name:48s} {c.cls:16s} {c.flops / 1e9:10.2f} GFLOP {c.io_bytes / MiB:10.1f} MiB"
                  + (f"  [{', '.join(c.tags)}]" if c.tags else ""))
        return 0
    if args.compile_only:
        return run_compile_only(args, cases)
    bad = [m for m in args.modes.split(",") if m.strip() and m.strip() not in B.ALL_MODES]
    if bad:
        p.error(f"unknown mode '{bad[0]}' (known: {', '.join(B.ALL_MODES)})")
    run_gpu(args, cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
