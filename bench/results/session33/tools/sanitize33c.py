"""Session 33 (GPU): split-reduce over several sums (four losses into one scalar, atomically from
many blocks) and a one-hot built from an arange (torch.iota), under compute-sanitizer."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(9)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731


def losses(a, b):
    t = torch.sigmoid(b)
    return (F.mse_loss(a, b) + F.smooth_l1_loss(a, b) + F.binary_cross_entropy_with_logits(a, t)
            + F.kl_div(F.log_softmax(a, -1), F.log_softmax(b, -1), reduction="batchmean", log_target=True))


cases = {
    "four losses 333 x 1001": (losses, [r(333, 1001), r(333, 1001)]),
    "mean + sum of squares 3 x 700001": (lambda x: x.mean() + 0.5 * (x * x).sum(), [r(3, 700001)]),
    "one-hot 97 x 61 times 61 x 33": (lambda x, w: F.one_hot(x.argmax(-1), 61).to(w.dtype) @ w, [r(97, 61), r(61, 33)]),
}
if __name__ == "__main__":
    run(cases)
