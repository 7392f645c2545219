"""Session 21 (issue 17): the wgmma flash kernel as the tree lowers it (the softmax scale folded
into exp2's multiply-add, the next value tile fetched while the scores run) against the lowering
of 1523695 (`wgmma_before.py` beside this script) and eager SDPA, one process. Each row: medians
(us, CUDA graphs, inputs rotated past L2), x eager, and relative errors against float64
(norm-wise, as bench/attention.py). To run it again:

    T=bench/results/session21/tools
    git show 1523695:transforms/kernel/materialize_attention_wgmma.py > $T/wgmma_before.py
    python3 $T/att21.py"""
import importlib.util
import os
import sys
import torch
import torch.nn.functional as F
from dpl.bench.ab import patched
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.kernel import materialize_attention_wgmma as mw

spec = importlib.util.spec_from_file_location("wgmma_before", os.path.join(os.path.dirname(__file__), "wgmma_before.py"))
before = importlib.util.module_from_spec(spec)
spec.loader.exec_module(before)


class Sdpa(torch.nn.Module):
    def __init__(self, causal, gqa):
        super().__init__()
        self.causal, self.gqa = causal, gqa

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=self.gqa)


def rel(a, ref):
    return float((a.double() - ref).norm() / ref.norm())


SHAPES = [  # b, h, hkv, L, d, causal
    (1, 28, 28, 512, 128, True), (1, 28, 28, 1024, 128, True), (1, 28, 28, 2048, 128, True),
    (1, 28, 28, 4096, 128, True), (1, 28, 28, 1024, 128, False), (1, 32, 4, 1024, 128, True),
    (4, 28, 28, 128, 128, True), (1, 28, 28, 1000, 128, True), (1, 32, 4, 512, 64, True),
    (1, 32, 4, 2048, 64, True), (2, 12, 12, 777, 80, True),
]


def main():
    print(f"{'shape':30} {'eager':>8} {'new':>8} {'x eag':>6} {'before':>8} {'x eag':>6} "
          f"{'err eager':>9} {'err new':>9} {'err bef':>9}")
    for b, h, hkv, L, d, causal in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(0)
        def mk(seed):
            g.manual_seed(seed)
            return [torch.randn(b, n, L, d, device="cuda", generator=g) for n in (h, hkv, hkv)]
        xs = mk(0)
        mod = Sdpa(causal, h != hkv)
        ref = mod(*(x.double() for x in xs))
        with torch.no_grad():
            eo = mod(*xs)
        new = dpl_compile(mod, *xs, tune_cache=False)
        with patched(mw, "WgmmaFlashLowering", before.WgmmaFlashLowering):
            old = dpl_compile(mod, *xs, tune_cache=False)
        sets = [mk(s + 1) for s in range(max(1, min(8, int(240e6 // (4 * 3 * xs[0].numel())))))]
        errs = [rel(eo, ref)]
        times = [gpu_time(mod, sets)["median_ms"] * 1e3]
        for c in (new, old):
            out = c(*xs, poison=True)
            errs.append(rel(out, ref))
            times.append(gpu_time(c, sets)["median_ms"] * 1e3)
        name = f"b{b} h{h}/{hkv} L{L} d{d} {'causal' if causal else 'full'}"
        print(f"{name:30} {times[0]:8.1f} {times[1]:8.1f} {times[0] / times[1]:6.2f} {times[2]:8.1f} "
              f"{times[0] / times[2]:6.2f} {errs[0]:9.1e} {errs[1]:9.1e} {errs[2]:9.1e}", flush=True)
        del new, old, sets
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
