"""Session 33 (issue 13, device): depthwise windows of 7 x 7 a thread per output (the tree) or
with lanes sharing each output (`lanes`: `_window_rows` off), and top-k by rounds (the tree) or
by ranks on the n x n box (`ranks`: TOPK_ROUNDS 0), against eager:

    python3 bench/results/session33/tools/ab33w.py [JSON]"""
import sys
from contextlib import contextmanager

import torch
from torch import nn

sys.path.insert(0, "bench/results/session33/tools")
sys.path.insert(0, "bench")
import ordinary33  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.frontend import aten  # noqa: E402
from dpl.transforms.tile import blockify_launch  # noqa: E402

S = sweep.SweepCase


@contextmanager
def lanes():
    with patched(blockify_launch, "_window_rows", lambda *a: False):
        yield


@contextmanager
def ranks():
    with patched(aten, "TOPK_ROUNDS", 0):
        yield


class TopK(nn.Module):
    def __init__(self, k, largest=True):
        super().__init__()
        self.k, self.largest = k, largest

    def forward(self, x):
        return torch.topk(x, self.k, dim=-1, largest=self.largest).values


def dw(c, k):
    return lambda: nn.Conv2d(c, c, k, padding=k // 2, groups=c)


WINDOWS = [
    S("dw7x7_8x96x56x56", "w", dw(96, 7), ((8, 96, 56, 56),)),
    S("dw7x7_4x384x14x14", "w", dw(384, 7), ((4, 384, 14, 14),)),
    S("dw7x7_16x192x28x28", "w", dw(192, 7), ((16, 192, 28, 28),)),
    S("dw9x9_4x64x64x64", "w", dw(64, 9), ((4, 64, 64, 64),)),
] + [c for c in ordinary33.CASES if c.name.startswith("convnext")]
TOPKS = [
    S("topk8_4096x1024", "k", lambda: TopK(8), ((4096, 1024),)),
    S("topk16_4x32000", "k", lambda: TopK(16), ((4, 32000),)),
    S("topk4_smallest_1000x777", "k", lambda: TopK(4, False), ((1000, 777),)),
    S("topk2_8192x8", "k", lambda: TopK(2), ((8192, 8),)),
]
if __name__ == "__main__":
    rows = time_variants(WINDOWS, {"tree": None, "lanes": lanes}, "eager", 20.0, 34, modes=("eager",))
    rows += time_variants(TOPKS, {"tree": None, "ranks": ranks}, "eager", 20.0, 34, modes=("eager",))
    report(rows[:len(WINDOWS)], ["tree", "lanes"], "eager", 34, None)
    report(rows[len(WINDOWS):], ["tree", "ranks"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
