"""Session 44 (issue 13, device): transposed convolutions lowered as one convolution per output
phase (`phases`, dpl's own) or as the convolution of the zero-interleaved input (`zeros`, the
lowering before), against eager and torch.compile in the same process:

    python3 bench/results/session44/tools/convt44.py [--cases REGEX] [--variants phases,zeros] [JSON]"""
import importlib
import re
import sys

import torch
from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402

from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.frontend import aten  # noqa: E402
from dpl.dialects import torch as T  # noqa: E402
from xdsl.dialects.builtin import IntAttr  # noqa: E402


def zeros_path(c, x, wv, bias, t, stride, padding, groups):
    """The lowering before: zeros between the input's elements, padded, one convolution."""
    ks, insize, out = T.shape_of(wv)[2:], T.shape_of(x)[2:], list(t.get_shape())[2:]
    v = x
    for i, s in enumerate(stride):
        v = aten._interleave_zeros(c, v, i + 2, s)
    for i, (k, p, n, s, o) in enumerate(zip(ks, padding, insize, stride, out)):
        lo = k - 1 - p
        v = aten._pad_dim(c, v, i + 2, lo, lo + o - ((n - 1) * s - 2 * p + k))
    props = aten._window_props(c, len(stride), 1, 0, 1)
    props["groups"] = IntAttr(groups)
    return c.emit(T.ConvolutionOp.create_from([v, wv] + ([bias] if bias is not None else []), t, props))


class Up(nn.Module):
    """A U-Net decoder step: ConvTranspose2d up by 2, a skip added, a 3x3 conv, ReLU."""

    def __init__(self, c):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c // 2, 2, stride=2)
        self.conv = nn.Conv2d(c // 2, c // 2, 3, padding=1)

    def forward(self, x, skip):
        return torch.relu(self.conv(self.up(x) + skip))


S = sweep.SweepCase
CASES = [
    S("convT2x2s2_16x128x64x64to64", "conv", lambda: nn.ConvTranspose2d(128, 64, 2, 2), ((16, 128, 64, 64),)),
    S("convT3x3s2p1op1_8x64x64x64to32", "conv", lambda: nn.ConvTranspose2d(64, 32, 3, 2, 1, 1), ((8, 64, 64, 64),)),
    S("convT1d_k16s8_8x512x256to256", "audio", lambda: nn.ConvTranspose1d(512, 256, 16, 8, 4), ((8, 512, 256),)),
    S("convT3d_k2s2_2x64x16x32x32to32", "conv", lambda: nn.ConvTranspose3d(64, 32, 2, 2), ((2, 64, 16, 32, 32),)),
    S("unet_up_8x256x32x32", "conv", lambda: Up(256), ((8, 256, 32, 32), (8, 128, 64, 64))),
]
VARIANTS = {"phases": None, "zeros": lambda: patched(aten, "_conv_transpose_phases", zeros_path)}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["phases", "zeros"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--variants")]
cases, seen = [], set()
for session, module in [(32, "ordinary32"), (43, "ordinary43")]:
    sys.path.insert(0, f"bench/results/session{session}/tools")
    cases += [c for c in importlib.import_module(module).CASES if re.search("convT|snake_up", c.name)]
cases = [c for c in cases + CASES if re.search(pat, c.name)]
rows = time_variants(cases, {k: VARIANTS[k] for k in names}, "eager", 20.0, 34)
report(rows, names, "eager", 34, rest[0] if rest else None)
report(rows, names, "compile", 34, None)
