"""Column (non-innermost) reductions: dpl with the row pipeline's blockify-launch at block sizes
256 (as is), 512 and 1024 (lanes 8, 16, 32 beside a warp of columns), eager alongside (harness:
CUDA graph replays, inputs rotated past L2, checked against float64)."""
import sys
import torch
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule_classes as SC

ROW = SC.PIPELINES["row reduction"]
CASES = [
    ("sum_d1_64x4099x1021", lambda x: x.sum(1), (64, 4099, 1021)),
    ("mean_d1_8x8192x4096", lambda x: x.mean(1), (8, 8192, 4096)),
    ("sum_d0_8192x1024", lambda x: x.sum(0), (8192, 1024)),
    ("amax_d0_256x256x3x317", lambda x: x.amax(0), (256, 256, 3, 317)),
    ("sum_d1_32x512x127", lambda x: x.sum(1), (32, 512, 127)),
    ("var_d1_128x2048x333", lambda x: x.var(1), (128, 2048, 333)),
    ("sum_d0_100000x64", lambda x: x.sum(0), (100000, 64)),
    ("mean_d1_8x30000x64", lambda x: x.mean(1), (8, 30000, 64)),
    ("sum_d1_256x97x512", lambda x: x.sum(1), (256, 97, 512)),
    ("sum_d01_2048x64x129", lambda x: x.sum((0, 1)), (2048, 64, 129)),
    ("sum_d0_4096x4096", lambda x: x.sum(0), (4096, 4096)),
    ("rmsnorm_d1_16x256x64x64", lambda x: x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6), (16, 256, 64, 64)),
    ("softmax_d1_32x1000x257", lambda x: torch.softmax(x, 1), (32, 1000, 257)),
    ("mean_d2_16x64x3000x33", lambda x: x.mean(2), (16, 64, 3000, 33)),
    ("sum_d1_1024x300x96", lambda x: x.sum(1), (1024, 300, 96)),
]
sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "256,512,1024").split(",")]
print(f"{'case':26s} {'eager':>8s} " + " ".join(f"{'b' + str(s):>14s}" for s in sizes))
for name, fn, shape in CASES:
    torch.manual_seed(0)
    x = torch.randn(shape, device="cuda")
    cells, e = [], None
    for i, bs in enumerate(sizes):
        SC.PIPELINES["row reduction"] = ROW.replace("row-trips=", f"block-size={bs} row-trips=")
        r = B.benchmark(name, fn, [x], modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        m = r["variants"]["dpl"].get("median_ms")
        ks = "+".join(f"{k['name'].replace('k_', '')}{tuple(k['grid'])}x{k['block'][0]}" for k in r.get("kernels", []))
        print(f"   {name} b{bs}: {m*1e3 if m else 0:.1f} us err {r['variants']['dpl'].get('rel_err')} "
              f"{r['variants']['dpl'].get('error') or ''} {ks}", flush=True)
        cells.append(f"{m*1e3:7.1f}({e/m:4.2f})" if m else "ERR")
    SC.PIPELINES["row reduction"] = ROW
    print(f"{name:26s} {e*1e3:8.1f} " + " ".join(f"{c:>14s}" for c in cells), flush=True)
