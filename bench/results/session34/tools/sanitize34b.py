"""Session 34 (GPU): the new kernels of call 3 under compute-sanitizer (scripts/sanitize_schedules
.run): multi-query attention with its key expanded over the heads (one flash kernel), a dense
mixture of experts (the experts' einsum on the tensor cores, the softmax fused under the sum), an
o_proj-like linear over a head-major attention output; odd sizes."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(7)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "mqa expanded 2x3x1x37x64 causal": (lambda q, k, v: F.scaled_dot_product_attention(
        q, k.expand(-1, 3, -1, -1), v.expand(-1, 3, -1, -1), is_causal=True), [r(2, 3, 37, 64), r(2, 1, 37, 64), r(2, 1, 37, 64)]),
    "dense moe 200x64 e4 h96": (lambda x, wg, w: torch.einsum("te,teh->th", torch.softmax(x @ wg, -1), torch.einsum("td,edh->teh", x, w)),
                                [r(200, 64), r(64, 4), r(4, 64, 96)]),
    "head-major linear 1x4x37x32 -> 96": (lambda a, w: a.transpose(1, 2).reshape(1, 37, 128) @ w.T, [r(1, 4, 37, 32), r(96, 128)]),
}
if __name__ == "__main__":
    run(cases)
