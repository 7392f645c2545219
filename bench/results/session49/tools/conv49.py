"""Session 49: is a 3x3 convolution's implicit-GEMM operand (its im2col gather) what holds dpl's
convolutions below its matmuls? The same GEMM (M = 256 output channels, N = 4 x 64 x 64
positions, K = 256 x 9) as a convolution, as W @ X with X N-major (the conv's operand layout) and
as a linear; and the session-32 3x3 conv. Per-kernel times (prof) and against eager (ab):

    python3 bench/results/session49/tools/conv49.py prof|ab [REGEX] [JSON]"""
import sys

import torch
from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

S = sweep.SweepCase


class WX(nn.Module):
    """W @ X: the convolution's GEMM with its operand X (K x N, N contiguous) given whole."""

    def __init__(self, m, k):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(m, k))

    def forward(self, x):
        return self.weight @ x


CASES = [
    S("conv3x3_4x256x64x64", "conv", lambda: nn.Conv2d(256, 256, 3, padding=1), ((4, 256, 64, 64),),
      flops=2 * 256 * 16384 * 2304, contraction=True),
    S("wx_256x2304x16384", "matmul", lambda: WX(256, 2304), ((2304, 16384),), flops=2 * 256 * 16384 * 2304,
      contraction=True),
    S("linear_16384x2304to256", "matmul", lambda: nn.Linear(2304, 256), ((16384, 2304),),
      flops=2 * 256 * 16384 * 2304, contraction=True),
    S("conv3x3_8x64x56x56", "conv", lambda: nn.Conv2d(64, 64, 3, padding=1), ((8, 64, 56, 56),),
      flops=2 * 64 * 8 * 56 * 56 * 576, contraction=True),
]

if __name__ == "__main__":
    main(CASES, sys.argv[1:])
