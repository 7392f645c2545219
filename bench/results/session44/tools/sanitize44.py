"""Session 44 (GPU): this session's changes under compute-sanitizer, each run once with a poisoned
output against float64 (scripts/sanitize_schedules.run): transposed convolutions as one
convolution over their output phases (1-D, 2-D with groups, 3-D, phases no tap reaches), an
8-step LSTM (fuse-loops' limit on copies of shared producers)."""
import sys

import torch
from torch import nn

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(44)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
lstm = nn.LSTM(24, 16, batch_first=True).eval()
mods = {
    "convT1d k8 s4 p2": (nn.ConvTranspose1d(6, 5, 8, stride=4, padding=2), (2, 6, 37)),
    "convT1d k2 s3 op2 (empty phases)": (nn.ConvTranspose1d(3, 4, 2, stride=3, output_padding=2), (2, 3, 11)),
    "convT2d k4 s2 p1 groups 2": (nn.ConvTranspose2d(8, 6, 4, stride=2, padding=1, groups=2), (2, 8, 9, 13)),
    "convT3d k(3,2,2) s(2,1,2)": (nn.ConvTranspose3d(4, 3, (3, 2, 2), stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1)), (1, 4, 5, 6, 7)),
}
cases = {name: (lambda x, m=m: m.to(x.device, x.dtype)(x), [r(*shape)]) for name, (m, shape) in mods.items()}
cases["lstm 8 steps"] = (lambda x: lstm.to(x.device, x.dtype)(x)[0], [r(3, 8, 24)])
if __name__ == "__main__":
    run(cases)
