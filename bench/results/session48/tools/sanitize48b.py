"""Session 48 (GPU): the kernels this session's fixes produce, under compute-sanitizer, each run
once with a poisoned output against float64 (scripts/sanitize_schedules.run): GroupNorm(C, C)
over rows held and padded (hold-rows no longer masks the channel weight), einsum attention on the
(b, s, h, d) layout (one flash kernel now), and the radix top-k (forced on a shorter row)."""
import sys

import torch
from torch import nn

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402
from dpl.frontend import aten  # noqa: E402

g = torch.Generator().manual_seed(48)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
gn = nn.GroupNorm(256, 256)
with torch.no_grad():
    gn.weight.copy_(r(256)), gn.bias.copy_(r(256))


def einsum_attention(q, k, v):
    a = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
    return torch.einsum("bhqk,bkhd->bqhd", a, v)


cases = {
    "groupnorm 256 of 4x256x1000": (lambda x: gn.to(x.device, x.dtype)(x), [r(4, 256, 1000)]),
    "einsum attention 2x100x4x32": (einsum_attention, [r(2, 100, 4, 32), r(2, 100, 4, 32), r(2, 100, 4, 32)]),
}
if __name__ == "__main__":
    run(cases)
    aten._topk_way = lambda *a: "radix"
    run({"topk radix 100 of 4x100000": (lambda x: x.topk(100)[0], [r(4, 100000)])})
