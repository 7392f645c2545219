"""Session 33 (issue 13, device): a padded window's select fused into the window's reduction
(session 32: always) or kept as its own padded copy, over depthwise, grouped and pooling windows
of 9 to 288 iterations per output:

    python3 bench/results/session33/tools/ab33s.py [--tree] [JSON]      # --tree: the tree alone"""
import sys

from torch import nn

sys.path.insert(0, "bench/results/session33/tools")
sys.path.insert(0, "bench")
from common33 import select_limit  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase


def conv(c, k, groups, d=1):
    return lambda: nn.Conv2d(c, c, k, padding=k // 2 * d, dilation=d, groups=groups, bias=False)


CASES = [
    S("dw3x3_8x128x56x56", "w", conv(128, 3, 128), ((8, 128, 56, 56),)),
    S("dw5x5_8x128x56x56", "w", conv(128, 5, 128), ((8, 128, 56, 56),)),
    S("dw7x7_8x96x56x56", "w", conv(96, 7, 96), ((8, 96, 56, 56),)),
    S("dw7x7_4x384x14x14", "w", conv(384, 7, 384), ((4, 384, 14, 14),)),
    S("g3x3_4pg_8x256x28x28", "w", conv(256, 3, 64), ((8, 256, 28, 28),)),
    S("g3x3_8pg_8x256x28x28", "w", conv(256, 3, 32), ((8, 256, 28, 28),)),
    S("g3x3_32pg_8x64x56x56", "w", conv(64, 3, 2), ((8, 64, 56, 56),)),
    S("dw1d7_16x256x1000", "w", lambda: nn.Conv1d(256, 256, 7, padding=3, groups=256), ((16, 256, 1000),)),
    S("dw1d31_16x256x1000", "w", lambda: nn.Conv1d(256, 256, 31, padding=15, groups=256), ((16, 256, 1000),)),
    S("avgpool5p2_8x128x56x56", "w", lambda: nn.AvgPool2d(5, 1, 2), ((8, 128, 56, 56),)),
    S("maxpool3s2_8x64x112x112", "w", lambda: nn.MaxPool2d(3, 2, 1), ((8, 64, 112, 112),)),
]
variants = {"fused": select_limit(10**9), "own": select_limit(0)}
if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--tree"]
    if "--tree" in sys.argv:
        variants = {"tree": None}
    rows = time_variants(CASES, variants, "eager", 20.0, 34, modes=("eager",) if "--tree" in sys.argv else ("eager", "compile"))
    report(rows, list(variants), "eager", 34, args[0] if args else None)
