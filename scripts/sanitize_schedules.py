"""The schedules added on 2026-11-24 (session 2), each compiled by dpl and run once with a poisoned
output, to run under compute-sanitizer (GPU):

    compute-sanitizer --report-api-errors no --tool memcheck python3 scripts/sanitize_schedules.py
    compute-sanitizer --report-api-errors no --tool racecheck python3 scripts/sanitize_schedules.py

Prints each case's kernel count and relative error against float64. Later sessions' lists call
`run` with their own cases.
"""
import torch

from dpl.driver.compile import compile as dc

F = torch.nn.functional


def session2_cases() -> dict:
    """The schedules added in session 2: name -> (function, CPU inputs)."""
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
    return {
        "packed rows layernorm 2000x301": (lambda x: F.layer_norm(x, (301,)), [r(2000, 301)]),
        "narrow column sum 16x64x91x8": (lambda x: x.sum(1), [r(16, 64, 91, 8)]),
        "short-reduce softmax 512x3x251": (lambda x: x.softmax(1), [r(512, 3, 251)]),
        "channel rmsnorm 4x64x28x28": (lambda x, w: x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6) * w, [r(4, 64, 28, 28), r(64, 1, 1)]),
        "skinny 32x32 split 1117x19x347": (lambda a, b: a.T @ b, [r(347, 1117), r(347, 19)]),
        "linear amax 16x449to8192": (lambda x, w: F.linear(x, w).amax(1), [r(16, 449), r(8192, 449)]),
        "padded tc linear_sum 853x5669to1536": (lambda x, w: F.linear(x, w).sum(1), [r(853, 5669), r(1536, 5669)]),
        "padded tc bmm_tt 3x89x700x593": (lambda a, b: a.transpose(1, 2) @ b.transpose(1, 2), [r(3, 593, 89), r(3, 700, 593)]),
    }


def run(cases: dict) -> None:
    """Compile each case (name -> (function, CPU inputs)) with dpl, run it once on the GPU with a
    poisoned output, and print its kernel count and relative error against float64."""
    for name, (fn, xs) in cases.items():
        c = dc(fn, *xs)
        out = c(*[x.cuda() for x in xs], poison=True)
        ref = fn(*[x.cuda().double() for x in xs])
        err = float((out.double() - ref).norm() / ref.norm())
        torch.cuda.synchronize()
        print(f"{name}: {c.num_kernels} kernels, err {err:.1e}", flush=True)


if __name__ == "__main__":
    run(session2_cases())
