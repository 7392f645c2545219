"""Session 38 (GPU): the kernels of this session's changes under compute-sanitizer, odd sizes,
each run once with a poisoned output against float64 (scripts/sanitize_schedules.run):
masked_scatter (a token mask and a broadcast one), nn.Bilinear, integer floor / trunc division,
rrelu, and contractions with prologue factors that collapse-matmul-axes now collapses (an
RMSNorm before a linear over a batch of sequences, a masked convolution weight) on the tensor
cores."""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(38)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731

cases = {
    "masked_scatter tokens 3x37x129": (lambda x, m, s: x.masked_scatter((m > 0).unsqueeze(-1).expand_as(x), s),
                                       [r(3, 37, 129), r(3, 37), r(111, 129)]),
    "masked_scatter broadcast 5x7x33": (lambda x, m, s: x.masked_scatter(m > 0.2, s), [r(5, 7, 33), r(5, 1, 33), r(1155)]),
    "bilinear 37x29x31to13": (lambda x, y, w, b: F.bilinear(x, y, w, b), [r(37, 29), r(37, 31), r(13, 29, 31), r(13)]),
    "int division 37x129": (lambda x, y: ((x * 100).long() // ((y * 10).long() | 1) + torch.div((x * 100).long(), 7, rounding_mode="trunc")).float(),
                            [r(37, 129), r(37, 129)]),
    "rrelu 37x129": (lambda x: F.rrelu(x, 0.1, 0.3), [r(37, 129)]),
    "rmsnorm linear 3x37x200to301": (lambda x, w, W: F.linear(F.rms_norm(x, (200,), w), W), [r(3, 37, 200), r(200), r(301, 200)]),
    "masked conv 2x40x33x35to72": (lambda x, w, m: F.conv2d(x, w * (m > 0), padding=1), [r(2, 40, 33, 35), r(72, 40, 3, 3), r(3, 3)]),
}
if __name__ == "__main__":
    run(cases)
