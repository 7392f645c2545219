"""Session 37 (GPU): the kernels of this session's ops under compute-sanitizer, odd sizes, each
run once with a poisoned output against float64 (scripts/sanitize_schedules.run): grid_sample
in every mode, lgamma / digamma, shifts, and gathers through an embedding lookup."""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(37)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731


def grid(mode, padding, align):
    return lambda x, t: F.grid_sample(x, torch.tanh(t) * 1.2, mode=mode, padding_mode=padding, align_corners=align)


cases = {
    "grid_sample bilinear zeros 3x5x37x41": (grid("bilinear", "zeros", False), [r(3, 5, 37, 41), r(3, 19, 23, 2)]),
    "grid_sample nearest border 3x5x37x41": (grid("nearest", "border", True), [r(3, 5, 37, 41), r(3, 19, 23, 2)]),
    "grid_sample bicubic reflection 3x5x37x41": (grid("bicubic", "reflection", False), [r(3, 5, 37, 41), r(3, 19, 23, 2)]),
    "grid_sample 3-d reflection 2x3x9x11x13": (grid("bilinear", "reflection", True), [r(2, 3, 9, 11, 13), r(2, 5, 7, 9, 3)]),
    "lgamma digamma 37x129": (lambda x: torch.lgamma(3 * x) + torch.digamma(3 * x), [r(37, 129)]),
    "gather dim 1 37x129": (lambda x: x.gather(1, (x[:, :17].abs() * 40).long().clamp(max=128)) * 2.0, [r(37, 129)]),
    "mvlgamma 37x129": (lambda x: torch.mvlgamma(x.abs() + 2, 3), [r(37, 129)]),
    "topk 37x129": (lambda x: torch.topk(x, 5, 1)[0], [r(37, 129)]),
}
if __name__ == "__main__":
    run(cases)
