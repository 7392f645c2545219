"""Session 39: top-k programs whose k is past the rounds' limit (16) or whose rows are long, as
users write them: top-k sampling filters over a vocabulary (HF's TopKLogitsWarper), a single
row of Llama 3's vocabulary, retrieval's top 100 of 4096 scores, many rows of 1024, a large k,
and the indices alone (argsort-like). `topk` alone keeps both outputs.

    from topk39 import CASES"""
import sys

import torch
from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class TopK(nn.Module):
    def __init__(self, k, largest=True):
        super().__init__()
        self.k, self.largest = k, largest

    def forward(self, x):
        return torch.topk(x, self.k, -1, largest=self.largest)


class TopKFilter(nn.Module):
    """Logits below the k-th largest set to -inf (top-k sampling's filter)."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, logits):
        kth = torch.topk(logits, self.k, -1).values[..., -1:]
        return logits.masked_fill(logits < kth, float("-inf"))


class TopKSoftmax(nn.Module):
    """Probabilities over the k best tokens and their ids."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, logits):
        v, i = torch.topk(logits, self.k, -1)
        return torch.softmax(v / 0.7, -1), i


CASES = [
    S("topk_filter_64x32000k50", "nlp", lambda: TopKFilter(50), ((64, 32000),)),
    S("topk_softmax_8x50257k40", "nlp", lambda: TopKSoftmax(40), ((8, 50257),)),
    S("topk_1x128256k50", "nlp", lambda: TopK(50), ((1, 128256),)),
    S("topk_256x4096k100", "retrieval", lambda: TopK(100), ((256, 4096),)),
    S("topk_4096x1024k32", "retrieval", lambda: TopK(32), ((4096, 1024),)),
    S("topk_16x100003k1000", "retrieval", lambda: TopK(1000), ((16, 100003),)),
    S("topk_smallest_32x9999k20", "retrieval", lambda: TopK(20, largest=False), ((32, 9999),)),
]
