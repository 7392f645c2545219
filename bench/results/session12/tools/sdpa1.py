"""One causal SDPA (28 heads, d 128, seq argv[1]) through dpl, run 3 times: for ncu."""
import sys, torch, torch.nn.functional as F
from dpl.driver.compile import compile as dpl_compile
s = int(sys.argv[1])
class M(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
xs = [torch.randn(1, 28, s, 128) for _ in range(3)]
c = dpl_compile(M(), *xs, tune_cache=False)
gs = [x.cuda() for x in xs]
for _ in range(3):
    c(*gs)
torch.cuda.synchronize()
