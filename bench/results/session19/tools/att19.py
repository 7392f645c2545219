"""Session 19 (issue 17): dpl's flash attention on warpgroup MMA (materialize-attention-wgmma,
the default where it fits) against the mma.sync kernel it replaces (flash_wgmma_fits patched
off) and eager SDPA, one process. Each row: medians (us, CUDA graphs, inputs rotated past L2),
x eager, and relative errors against float64 (norm-wise, as bench/attention.py).

    python3 bench/results/session19/tools/att19.py [--quick]"""
import sys
import torch
import torch.nn.functional as F
from dpl.bench.ab import patched
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule


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
    (1, 32, 4, 2048, 64, True), (1, 32, 32, 1024, 64, False), (2, 12, 12, 777, 80, True),
]


def main():
    shapes = SHAPES[:3] if "--quick" in sys.argv else SHAPES
    print(f"{'shape':30} {'eager':>8} {'wgmma':>8} {'x eag':>6} {'mma.sync':>8} {'x eag':>6} "
          f"{'err eager':>9} {'err wgmma':>9} {'err sync':>9} kernels")
    for b, h, hkv, L, d, causal in shapes:
        g = torch.Generator(device="cuda").manual_seed(0)
        def mk(seed):
            g.manual_seed(seed)
            return [torch.randn(b, n, L, d, device="cuda", generator=g) for n in (h, hkv, hkv)]
        xs = mk(0)
        mod = Sdpa(causal, h != hkv)
        ref = mod(*(x.double() for x in xs))
        with torch.no_grad():
            eo = mod(*xs)
        fast = dpl_compile(mod, *xs, tune_cache=False)
        with patched(schedule, "flash_wgmma_fits", lambda *a: False):
            old = dpl_compile(mod, *xs, tune_cache=False)
        sets = [mk(s + 1) for s in range(max(1, min(8, int(240e6 // (4 * 3 * xs[0].numel())))))]
        errs = [rel(eo, ref)]
        times = [gpu_time(mod, sets)["median_ms"] * 1e3]
        for c in (fast, old):
            out = c(*xs, poison=True)
            errs.append(rel(out, ref))
            times.append(gpu_time(c, sets)["median_ms"] * 1e3)
        kn = f"{fast.num_kernels}/{old.num_kernels}"
        name = f"b{b} h{h}/{hkv} L{L} d{d} {'causal' if causal else 'full'}"
        print(f"{name:30} {times[0]:8.1f} {times[1]:8.1f} {times[0] / times[1]:6.2f} {times[2]:8.1f} "
              f"{times[0] / times[2]:6.2f} {errs[0]:9.1e} {errs[1]:9.1e} {errs[2]:9.1e} {kn}", flush=True)
        del fast, old, sets
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
