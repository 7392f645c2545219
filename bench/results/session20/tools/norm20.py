"""Session 20 (issue 13): norms over large normalized shapes with few rows, one kernel a row
(the schedule's pick, split_rows' model) against the statistics split off (split-row-stats,
split_rows patched to say yes), eager and torch.compile; medians in us (CUDA graphs, inputs
rotated past L2), errors against float64.

    python3 bench/results/session20/tools/norm20.py"""
import torch
import torch.nn.functional as F
from dpl.bench.ab import patched
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule


class LN(torch.nn.Module):
    def __init__(self, shape, rms=False):
        super().__init__()
        self.shape, self.rms = shape, rms

    def forward(self, x, w, b):
        if self.rms:
            return F.rms_norm(x, self.shape, w, 1e-6)
        return F.layer_norm(x, self.shape, w, b, 1e-5)


CASES = [((251, 384, 256), 2, False), ((16, 64, 256, 256), 3, False), ((96, 512, 512), 2, False),
         ((251, 384, 256), 2, True), ((64, 1024, 1024), 2, True), ((600, 4096, 32), 2, False)]


ORIG = schedule.split_rows


def forced(kernel, sms, smem=schedule.ROW_SMEM_BYTES):
    """split_rows saying yes wherever split-row-stats takes the kernel."""
    ok, why = ORIG(kernel, sms, smem)
    return ok or (why != "" and schedule.split_row_stats_declines(kernel) is None), why


def rel(a, ref):
    return float((a.double() - ref).norm() / ref.norm())


def main():
    print(f"{'case':32} {'eager':>8} {'compile':>8} {'dpl':>8} {'split':>8} {'err dpl':>8} {'err spl':>8}")
    for shape, nd, rms in CASES:
        ns = shape[-nd:]
        mod = LN(ns, rms)
        def mk(s):
            g = torch.Generator(device="cuda").manual_seed(s)
            return [torch.randn(shape, device="cuda", generator=g), torch.randn(ns, device="cuda", generator=g),
                    torch.randn(ns, device="cuda", generator=g)]
        xs = mk(0)
        ref = mod(*(x.double() for x in xs))
        sets = [mk(s + 1) for s in range(max(1, min(6, int(400e6 // (4 * xs[0].numel())))))]
        comp = torch.compile(mod)
        comp(*xs)
        t = [gpu_time(mod, sets)["median_ms"] * 1e3, gpu_time(comp, sets)["median_ms"] * 1e3]
        errs = []
        for force in (False, True):
            if force:
                with patched(schedule, "split_rows", forced):
                    c = dpl_compile(mod, *xs, tune_cache=False)
            else:
                c = dpl_compile(mod, *xs, tune_cache=False)
            errs.append(rel(c(*xs, poison=True), ref))
            t.append(gpu_time(c, sets)["median_ms"] * 1e3)
            del c
        name = f"{'rms' if rms else 'ln'} {'x'.join(map(str, shape))} last{nd}"
        print(f"{name:32} {t[0]:8.1f} {t[1]:8.1f} {t[2]:8.1f} {t[3]:8.1f} {errs[0]:8.1e} {errs[1]:8.1e}", flush=True)
        del sets
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
