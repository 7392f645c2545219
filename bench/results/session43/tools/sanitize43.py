"""Session 43 (GPU): this session's new lowerings under compute-sanitizer, each run once with a
poisoned output against float64 (scripts/sanitize_schedules.run): a stack of hoisted reductions
(split-nests), Gauss-Jordan inverses / determinants / solves of small matrices (pivot rows
gathered at computed positions), complex RoPE as pairs, a short LSTM (fuse-loops' copy rule)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(43)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
lstm = torch.nn.LSTM(24, 16, batch_first=True).eval()


def rope(q, ang):
    f = torch.polar(torch.ones_like(ang), ang)
    return torch.view_as_real(torch.view_as_complex(q.reshape(*q.shape[:-1], -1, 2)) * f).flatten(2)


cases = {
    "stack of a mean, a sum and a max": (lambda x, y: torch.stack([x.mean(), y.sum(), x.amax()]), [r(37, 5), r(3, 9)]),
    "inv, det, solve 3x3 and 4x4": (lambda a, b, c: torch.cat([torch.linalg.inv(a + 3 * torch.eye(3, device=a.device)).flatten(1),
                                                               torch.linalg.det(a)[:, None],
                                                               torch.linalg.solve(c + 4 * torch.eye(4, device=c.device), b)], 1),
                                    [r(33, 3, 3), r(33, 4), r(33, 4, 4)]),
    "complex rope 7x16": (rope, [r(3, 7, 16), r(7, 8)]),
    "lstm 5 steps": (lambda x: lstm.to(x.device, x.dtype)(x)[0], [r(3, 5, 24)]),
}
if __name__ == "__main__":
    run(cases)
