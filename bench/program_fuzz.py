"""Random small PyTorch programs through every IR level on the CPU executors, against PyTorch in
float64: a differential fuzzer for the passes' meaning on programs nobody wrote a test for.

    python bench/program_fuzz.py [--seed 0] [--count 50] [--steps 6] [--f32] [-v]

Each program is a few lines of ordinary PyTorch drawn from a menu (`TEMPLATES`: pointwise ops,
broadcasts between the values computed so far, reductions over any axis kept or dropped,
softmax and norms, matmuls against a new weight or the value's own transpose, transposes,
reshapes, slices, concatenations, scans, sorts, pooling and convolutions), each line kept only
where PyTorch runs it on the shapes so far (`random_program`). Input shapes are small and odd
(1 to 33 per dim, a few thousand elements at most), so the executors run them quickly; the
schedule is run for a GPU of 4 SMs on odd seeds (`schedule{sms=4}`), so that the split
reductions, split-K matmuls and held rows of large shapes are taken at these sizes too.

`--f32` draws float32 programs of `MID_DIMS` sizes that start from a matrix and contract a third
of the time, so the tensor cores' lowering (wgmma with the 3xTF32 split, ragged tiles, prologues
and epilogues) runs on the kernel executor; each level may then differ from float64 by up to 8
times eager float32's error (at least 1e-4).

A program fails when a level's executor output differs from PyTorch's float64 result by more
than `TOL` in float64 (`frontend.check.rel_err`, against a norm of at least 1e-3 per element:
`_error`), when a pass raises, or when the kernel executor sees a race. A refusal (a one-line
error of the frontend or the torch verifier) is counted apart. The failing program's source is
printed whole, ready to paste into a test.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F  # noqa: F401  (the programs' own namespace)

from xdsl.utils.exceptions import VerifyException

from dpl.frontend import capture
from dpl.frontend.convert import UnsupportedOpError
from dpl.frontend.check import rel_err
from dpl.interpreters import exec_kernel, exec_loop, exec_tensor, exec_tile, exec_torch
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

#: The error (‖out − ref‖ / ‖ref‖, float64) past which a level is wrong.
TOL = 1e-9
DIMS = (1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33)
MAX_ELEMENTS = 4096
#: `--f32`'s sizes: large enough for the tensor cores' tiles (M, N >= 64 in steps, K >= 128)
MID_DIMS = (3, 17, 33, 64, 96, 128, 160, 193)
MID_MAX_ELEMENTS = 1 << 16

#: Lines a program may take: `{x}` is the latest value, `{y}` any earlier value, `{d}` and `{e}`
#: axes of {x} (d negative half the time), `{k}` True or False, `{w}` a new input whose shape
#: the template gives after `|` (in terms of `x.shape`, as Python), `{i}` a new input of
#: indices into {x} along d of {x}'s shape, `{j}` a new 1-d input of such indices.
TEMPLATES = [
    "torch.relu({x})", "torch.tanh({x})", "torch.sigmoid({x})", "torch.abs({x})", "-{x}",
    "{x} * 0.5 + 1.0", "torch.sqrt(torch.abs({x}) + 1.0)", "torch.sin({x})", "F.gelu({x})",
    "F.silu({x})", "torch.clamp({x}, -1.0, 1.0)", "torch.where({x} > 0, {x}, {x} * 0.1)",
    "torch.exp(-torch.abs({x}))", "torch.log1p(torch.abs({x}))", "torch.floor({x} * 4) / 4",
    "{x} + {y}", "{x} * {y}", "{x} - {y}", "torch.maximum({x}, {y})", "torch.where({x} > {y}, {x}, {y})",
    "{x} / (torch.abs({y}) + 1.0)",
    "{x}.sum({d}, keepdim={k})", "{x}.mean({d}, keepdim={k})", "{x}.amax({d}, keepdim={k})",
    "{x}.amin({d}, keepdim={k})", "torch.logsumexp({x}, {d}, keepdim={k})", "{x}.var({d}, keepdim={k})",
    "{x}.norm(dim={d}, keepdim={k})", "{x}.sum()", "{x}.argmax({d}).to({x}.dtype)",
    "{x} - {x}.mean({d}, keepdim=True)", "{x} / ({x}.abs().sum({d}, keepdim=True) + 1.0)",
    "torch.softmax({x}, {d})", "torch.log_softmax({x}, {d})",
    "F.layer_norm({x}, {x}.shape[-1:])", "F.normalize({x}, dim={d})",
    "{x} * torch.rsqrt({x}.pow(2).mean(-1, keepdim=True) + 1e-6)",
    "{x} @ {w} | (x.shape[-1], rng.choice(DIMS))", "{x} @ {x}.transpose(-1, -2)",
    "{x}.transpose(-1, -2) @ {x}", "F.linear({x}, {w}) | (rng.choice(DIMS), x.shape[-1])",
    "{x}.transpose({d}, {e})", "{x}.flatten({d})", "{x}.unsqueeze({d}) * {x}.unsqueeze({d})",
    "{x}.narrow({d}, {x}.shape[{d}] // 3, ({x}.shape[{d}] + 1) // 2)", "{x}[..., ::2]",
    "{x}[1:]", "torch.cat([{x}, {y}], {d})", "torch.stack([{x}, {x} * 2.0], {d})",
    "{x}.flip({d})", "torch.roll({x}, 1, {d})", "torch.cumsum({x}, {d})", "torch.cummax({x}, {d})[0]",
    "torch.sort({x}, {d})[0]", "torch.topk({x}, 1 + {x}.shape[{d}] // 3, {d})[0]",
    "torch.tril({x})", "F.pad({x}, (1, 2))", "{x}.expand(3, *{x}.shape)",
    "{x}.reshape(-1, {x}.shape[-1])", "{x}.permute(*reversed(range({x}.dim())))",
    "F.avg_pool2d({x}, 2)", "F.max_pool2d({x}, 3, 1, 1)",
    "F.conv2d({x}, {w}, padding=1) | (rng.choice((1, 3, 4)), x.shape[1], 3, 3)",
    "F.conv1d({x}, {w}) | (rng.choice((2, 5)), x.shape[1], 2)",
    "torch.einsum('...ij,...kj->...ik', {x}, {y})",
    "torch.gather({x}, {d}, {i})", "{x}.index_select({d}, {j})", "{x}.scatter_add({d}, {i}, {x})",
    "{x}.index_add({d}, {j}, {x}.index_select({d}, {j}))", "{x}.index_fill({d}, {j}, 0.5)",
    "F.embedding({j}, {x})", "{x}.masked_fill({x} > 0.5, 0.0)", "{x}.repeat(2, *[1] * ({x}.dim() - 1))",
    "F.scaled_dot_product_attention({x}, {x}, {x}, is_causal={k})", "{x}.unfold({d}, 2, 1)",
    "torch.median({x}, {d})[0]", "torch.kthvalue({x}, 1, {d})[0]", "torch.logcumsumexp({x}, {d})",
    "F.interpolate({x}, scale_factor=2.0, mode='nearest')", "{x}.std({d})",
    "F.group_norm({x}, 1)", "F.instance_norm({x})", "F.adaptive_avg_pool2d({x}, 3)",
    "F.conv_transpose2d({x}, {w}, stride=2) | (x.shape[1], rng.choice((1, 2, 3)), 2, 2)",
    "F.layer_norm({x}, {x}.shape[-1:], {w}) | (x.shape[-1],)", "F.glu({x}, {d})",
    "torch.chunk({x}, 2, {d})[-1]", "torch.split({x}, 2, {d})[0]", "{x}.clamp(min={y})",
    "{x}.pow(2)", "({x} > 0).sum({d}).to({x}.dtype)", "({x} > 0).to({x}.dtype).cumsum({d})",
    "{x}.max({d})[1].to({x}.dtype)", "torch.where({x} > 0, {x}, {y})", "{x}.diagonal(dim1={d}, dim2={e})",
    "F.pixel_shuffle({x}, 2)", "{x}.mT @ {y}", "torch.einsum('...i,...i->...', {x}, {x})",
    "F.hardtanh({x})", "F.softplus({x})", "F.elu({x})", "F.leaky_relu({x}, 0.2)", "torch.erf({x})",
    "torch.atan2({x}, {y})", "torch.remainder({x}, 0.7)", "torch.round({x} * 3)",
]  # fmt: skip


#: The templates that contract (`--f32` draws them a third of the time).
CONTRACTIONS = [t for t in TEMPLATES if "@" in t or "linear" in t or "einsum" in t or "conv" in t]


@dataclass
class RandomProgram:
    source: str
    inputs: list[torch.Tensor]

    def function(self):
        scope = {"torch": torch, "F": F}
        exec(self.source, scope)  # noqa: S102  (the program is ours, drawn from TEMPLATES)
        return scope["program"]


def _shape(rng: random.Random, dims: tuple[int, ...], most: int) -> tuple[int, ...]:
    while True:
        shape = tuple(rng.choice(dims) for _ in range(rng.randint(1, 4)))
        if int(np.prod(shape)) <= most:
            return shape


def _fill(template: str, rng: random.Random, gen: torch.Generator, names: list[str], values: list[torch.Tensor],
          dims: tuple[int, ...] = DIMS):  # fmt: skip
    """One line from `template` over the latest value and the new inputs it reads (name,
    tensor), or None where it needs what is not there."""
    text, _, wshape = template.partition(" | ")
    x = values[-1]
    if any(f in text for f in ("{d}", "{e}", "{i}", "{j}")) and x.dim() == 0:
        return None
    d = rng.randrange(x.dim()) if x.dim() else 0
    e = rng.randrange(x.dim()) if x.dim() else 0
    if rng.random() < 0.5:
        d -= x.dim()
    fields = {"x": names[-1], "y": rng.choice(names), "d": d, "e": e, "k": rng.random() < 0.5}
    new: list[tuple[str, torch.Tensor]] = []
    if wshape:
        try:
            shape = tuple(eval(wshape, {"x": x, "rng": rng, "DIMS": dims}))  # noqa: S307  (our templates)
        except IndexError:  # x has too few dims for the weight
            return None
        new.append((f"w{len(names)}", torch.randn(shape, dtype=torch.float64, generator=gen)))
        fields["w"] = new[-1][0]
    if "{i}" in text:  # indices into x along d, one per element of x
        new.append((f"i{len(names)}", torch.randint(0, x.shape[d], tuple(x.shape), generator=gen)))
        fields["i"] = new[-1][0]
    if "{j}" in text:  # a 1-d list of indices into x along d
        new.append((f"j{len(names)}", torch.randint(0, x.shape[d], (rng.choice(dims),), generator=gen)))
        fields["j"] = new[-1][0]
    return text.format(**fields), new


def random_program(seed: int, steps: int = 6, mid: bool = False) -> RandomProgram:
    """A program of up to `steps` lines (each one PyTorch runs on the shapes so far), returning
    its last value and, half the time, an earlier one too; of `MID_DIMS` sizes with `mid`."""
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    dims, most = (MID_DIMS, MID_MAX_ELEMENTS) if mid else (DIMS, MAX_ELEMENTS)
    names, values = [], []
    for i in range(rng.randint(1, 2)):
        if mid and i == 0:  # a matrix first, for the contractions
            shape = (rng.choice(dims), rng.choice(dims))
        else:
            shape = _shape(rng, dims, most) if i == 0 or rng.random() < 0.5 else tuple(values[0].shape[-rng.randint(1, values[0].dim()):])
        names.append(f"a{i}")
        values.append(torch.randn(shape, dtype=torch.float64, generator=gen))
    inputs = list(values)
    lines = []
    tries = 0
    while len(lines) < steps and tries < 20 * steps:
        tries += 1
        template = rng.choice(CONTRACTIONS if mid and rng.random() < 0.3 else TEMPLATES)
        filled = _fill(template, rng, gen, names, values, dims)
        if filled is None:
            continue
        text, new = filled
        scope = {"torch": torch, "F": F, **dict(zip(names, values)), **dict(new)}
        try:
            with torch.no_grad():
                out = eval(text, scope)  # noqa: S307
        except (RuntimeError, IndexError, ValueError, TypeError):
            continue
        if not isinstance(out, torch.Tensor) or out.dtype != torch.float64 or not out.numel() or out.numel() > 4 * most:
            continue
        for name, value in new:
            names.append(name)
            values.append(value)
            inputs.append(value)
        name = f"v{len(lines)}"
        lines.append(f"    {name} = {text}")
        names.append(name)
        values.append(out)
    results = [names[-1]]
    earlier = [n for n in names[:-1] if n.startswith("v")]
    if earlier and rng.random() < 0.5:
        results.append(rng.choice(earlier))
    args = [n for n in names if not n.startswith("v")]
    source = f"def program({', '.join(args)}):\n" + "\n".join(lines) + f"\n    return {', '.join(results)}\n"
    return RandomProgram(source, inputs)


def _stages(sms: int | None):
    """(level, passes from the previous level, executor): torch -> tensor -> loop -> tile -> kernel."""
    tile = IR_PIPELINES["tile"][len(IR_PIPELINES["loop"]) + 1 :]
    kernel = IR_PIPELINES["kernel"][len(IR_PIPELINES["tile"]) + 1 :]
    if sms is not None:
        tile = tile.replace("schedule", f"schedule{{sms={sms}}}")
    return [
        ("torch", "", exec_torch.run),
        ("tensor", IR_PIPELINES["tensor"], exec_tensor.run),
        ("loop", IR_PIPELINES["loop"][len(IR_PIPELINES["tensor"]) + 1 :], exec_loop.run),
        ("tile", tile, exec_tile.run),
        ("kernel", kernel, exec_kernel.run),
    ]


class _Module(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def _error(outs: list, refs: list) -> float:
    """The worst `rel_err` over the outputs, each against a norm of at least 1e-3 per element
    (an output that cancels to about 0, a logsumexp of a log_softmax, is compared absolutely:
    its rounding noise is no error)."""
    if len(outs) != len(refs):
        return math.inf
    worst = 0.0
    for o, r in zip(outs, refs):
        err = rel_err(o, r)
        norm = float(np.linalg.norm(np.where(np.isfinite(r), r, 0.0)))
        worst = max(worst, err * (norm or 1.0) / max(norm, 1e-3 * math.sqrt(max(np.size(r), 1))))
    return worst


def _first_line(e: Exception) -> str:
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"


def _outputs(res) -> list[np.ndarray]:
    return [r.detach().double().numpy() if r.is_floating_point() else r.numpy() for r in (res if isinstance(res, tuple) else (res,))]


def check(prog: RandomProgram, sms: int | None = None, dtype: torch.dtype = torch.float64) -> tuple[str, str]:
    """("ok", ""), ("refused", why) where the frontend or the torch verifier refuses the program
    (a one-line error, no wrong result), or ("FAIL", what went wrong and at which level).

    In float32 the floating inputs are rounded to it, the reference is PyTorch in float64 on
    those, and each level may differ from it by up to 8 times eager float32's error (at least
    1e-4: DESIGN's bar for matmul chains), so the tensor cores' 3xTF32 and reordered sums pass
    where they are no worse than PyTorch's own float32."""
    inputs = [x.to(dtype) if x.is_floating_point() else x for x in prog.inputs]
    fn = prog.function()
    with torch.no_grad():
        refs = _outputs(fn(*[x.double() if x.is_floating_point() else x for x in inputs]))
        tol = TOL if dtype == torch.float64 else max(1e-4, 8 * _error(_outputs(fn(*inputs)), refs))
    try:
        captured = capture(_Module(fn), *inputs, dtype=dtype)
        captured.module.verify()
    except (UnsupportedOpError, VerifyException) as e:
        return "refused", _first_line(e)
    except Exception as e:  # noqa: BLE001  (a crash of the frontend)
        return "FAIL", "capture: " + _first_line(e)
    arrays = [x.numpy() for x in inputs] + [a.detach().numpy() for a in captured.args[captured.num_inputs :]]
    ir = captured.module
    for level, passes, run in _stages(sms):
        try:
            run_pipeline(ir, passes)
            with np.errstate(all="ignore"):
                outs = run(ir, arrays)
        except Exception as e:  # noqa: BLE001
            return "FAIL", f"{level}: " + _first_line(e)
        err = _error(list(outs), refs)
        if not err < tol:
            return "FAIL", f"{level}: error {err:.2e} (bound {tol:.1e})"
    return "ok", ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=0, help="the first program's seed")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--steps", type=int, default=6, help="lines per program at most")
    p.add_argument("--f32", action="store_true", help="float32 programs of MID_DIMS sizes (the tensor cores' paths)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every program")
    args = p.parse_args(argv)
    dtype = torch.float32 if args.f32 else torch.float64
    counts = {"ok": 0, "refused": 0, "FAIL": 0}
    for seed in range(args.seed, args.seed + args.count):
        prog = random_program(seed, args.steps, mid=args.f32)
        sms = 4 if seed % 2 else None
        try:
            status, why = check(prog, sms, dtype)
        except Exception:  # noqa: BLE001
            status, why = "FAIL", "harness: " + traceback.format_exc().splitlines()[-1]
        shapes = ", ".join("x".join(map(str, x.shape)) for x in prog.inputs)
        print(f"seed {seed} ({shapes}{', sms=4' if sms else ''}): {status} {why}", flush=True)
        if status != "ok" or args.verbose:
            print(prog.source, flush=True)
        counts[status] += 1
    print(f"{counts['ok']} ok, {counts['refused']} refused, {counts['FAIL']} failed of {args.count}")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
