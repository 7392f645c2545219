"""Copy loops unrolled up to FILL_UNROLL_TRIPS = 8 (as is), 16 and 32 trips a thread: the
element-staged (misaligned-row) matmul fills of 16 trips ran as loops from the thread's index;
dpl's own schedule, eager alongside (harness: CUDA graph, rotated inputs, float64 check)."""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.kernel import stage_fills
from cases18 import get

CASES = [(26, "matmul_nt_4096x29x2503"), (22, "matmul_nn_128x4096x451"), (0, "matmul_nt_4544x239x271"),
         (0, "matmul_tn_1117x19x347"), (0, "matmul_tt_512x2741x79"), (0, "bmm_tt_b21_25x1381x101"),
         (27, "linear_amax_5056x89to2048"), (0, "matmul_nn_3079x4081x257"), (0, "bmm_tt_b4_1024x2635x23")]
TRIPS = (8, 16, 32)
print(f"{'case':32s} {'eager':>7s} " + " ".join(f"{'u' + str(t):>13s}" for t in TRIPS))
for seed, name in CASES:
    fn, inputs = get(seed, name).build("cuda")
    cells, e = [], None
    for i, trips in enumerate(TRIPS):
        stage_fills.FILL_UNROLL_TRIPS = trips
        r = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        d = r["variants"]["dpl"]
        m = d.get("median_ms")
        print(f"   {name} u{trips}: {m*1e3 if m else 0:.1f} us err {d.get('rel_err')} {d.get('error') or ''}", flush=True)
        cells.append(f"{m*1e3:6.1f}({e/m:4.2f})" if m else "ERR")
    stage_fills.FILL_UNROLL_TRIPS = 8
    print(f"{name:32s} {e*1e3:7.1f} " + " ".join(f"{c:>13s}" for c in cells), flush=True)
