"""Session 46 (GPU): whole-tensor statistics split off (split-row-stats' one-row case, with
chunk-variance) and a Cholesky whose first column's sum of zeros is folded, under
compute-sanitizer, each run once with a poisoned output against float64
(scripts/sanitize_schedules.run)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(46)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731

cases = {
    "x / max|x| 97 x 1031": (lambda x: x / x.abs().max(), [r(97, 1031)]),
    "(x - mean) / std 61 x 1633": (lambda x: (x - x.mean()) / x.std(), [r(61, 1633)]),
    "min-max 3 x 67 x 531": (lambda x: (x - x.min()) / (x.max() - x.min()), [r(3, 67, 531)]),
    "var 1009 x 97": (lambda x: x.var()[None], [r(1009, 97)]),
    "x * x[0].sum() 89 x 1130": (lambda x: x * x[0].sum(), [r(89, 1130)]),
    "cholesky 300 x 5 x 5": (lambda a: torch.linalg.cholesky(a @ a.mT + 5 * torch.eye(5, device=a.device)), [r(300, 5, 5)]),
}
if __name__ == "__main__":
    run(cases)
