"""Session 19: the wgmma flash kernels dpl compiles, run once under compute-sanitizer (outputs
poisoned first): causal ragged d 128, GQA d 64 non-causal cross-length, depth 80."""
import torch
import torch.nn.functional as F
from dpl.driver.compile import compile as dpl_compile


class Sdpa(torch.nn.Module):
    def __init__(self, causal, gqa):
        super().__init__()
        self.causal, self.gqa = causal, gqa

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=self.gqa)


for b, h, hkv, L, S, d, causal in [(1, 16, 16, 200, 200, 128, True), (1, 24, 4, 70, 130, 64, False),
                                   (2, 12, 12, 97, 97, 80, True)]:
    q = torch.randn(b, h, L, d, device="cuda")
    k, v = (torch.randn(b, hkv, S, d, device="cuda") for _ in range(2))
    mod = Sdpa(causal, h != hkv)
    c = dpl_compile(mod, q, k, v, tune_cache=False)
    assert "wgmma_rs" in c.cuda, "the wgmma flash kernel"
    out = c(q, k, v, poison=True)
    ref = mod(q.double(), k.double(), v.double())
    print(b, h, hkv, L, S, d, causal, c.num_kernels, float((out.double() - ref).norm() / ref.norm()))
