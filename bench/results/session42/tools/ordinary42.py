"""Session 42: sorts of long rows (sort, argsort, top-p, medians, quantiles, kthvalue, top-k),
as sweep cases: `CAL` times the n x n box against merging over row lengths (to set
`_sort_plan`'s constants), `CASES` the programs a user writes.

    from ordinary42 import CAL, CASES"""
import sys

import torch
from torch import nn

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session38/tools")
import sweep  # noqa: E402
from ordinary38 import TopP  # noqa: E402  (nucleus filtering)

S = sweep.SweepCase


class Sort(nn.Module):
    def __init__(self, dim=-1, descending=False):
        super().__init__()
        self.dim, self.descending = dim, descending

    def forward(self, x):
        return torch.sort(x, dim=self.dim, descending=self.descending)


class Argsort(nn.Module):
    def forward(self, x):
        return torch.argsort(x, dim=-1)


class Median(nn.Module):
    def forward(self, x):
        return torch.median(x, dim=-1)


class NanMedian(nn.Module):
    def forward(self, x):
        return torch.nanmedian(torch.where(x > 2.0, torch.nan, x), dim=-1)


class QuantileClip(nn.Module):
    """Session 40's: clip each row to its 1% and 99% quantiles."""

    def forward(self, x):
        lo, hi = torch.quantile(x, torch.tensor([0.01, 0.99], device=x.device, dtype=x.dtype), dim=-1, keepdim=True)
        return (x.clamp(lo, hi) - lo) / (hi - lo)


class Kth(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.kthvalue(x, self.k, dim=-1)


class TopK(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.topk(x, self.k, dim=-1)


CAL = [S(f"cal_sort_{r}x{n}", "sort", lambda: Sort(), ((r, n),))
       for r, n in ((4096, 128), (1024, 256), (512, 512), (256, 1024), (128, 2048), (64, 4096), (16, 16384))]

CASES = [
    S("top_p_64x32000", "nlp", lambda: TopP(), ((64, 32000),)),
    S("argsort_128x4096", "sort", lambda: Argsort(), ((128, 4096),)),
    S("sort_desc_16x100003", "sort", lambda: Sort(descending=True), ((16, 100003),)),
    S("sort_dim0_8192x64", "sort", lambda: Sort(dim=0), ((8192, 64),)),
    S("median_64x8191", "stats", lambda: Median(), ((64, 8191),)),
    S("nanmedian_32x10000", "stats", lambda: NanMedian(), ((32, 10000),)),
    S("quantile_clip_256x4096", "vision", lambda: QuantileClip(), ((256, 4096),)),
    S("kthvalue_32x50000k100", "stats", lambda: Kth(100), ((32, 50000),)),
    S("topk_1000_16x100003", "sort", lambda: TopK(1000), ((16, 100003),)),
    S("topk_2048_64x32000", "sort", lambda: TopK(2048), ((64, 32000),)),
    S("topk_50_64x32000", "sort", lambda: TopK(50), ((64, 32000),)),
    S("topk_100_256x4096", "sort", lambda: TopK(100), ((256, 4096),)),
]
