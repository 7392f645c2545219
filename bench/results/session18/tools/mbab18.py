"""min_blocks A/B: the matmul cases whose SIMT tile asks for its blocks an SM (new) against the
same schedule with no bound (old: blockify-launch without sm-threads), eager alongside."""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule_classes as SC
from cases18 import get

AFFECTED = """0 bmm_tt_b4_1024x2635x23
0 linear_residual_1289x1024to64
0 linear_amax_67x115to192
0 bmm_tn_b36_433x256x32
0 linear_relu_41x29to159
0 linear_amax_16x449to8192
0 matmul_tn_1117x19x347
0 bmm_tt_b21_25x1381x101
0 linear_silu_mul_145x37to576
0 linear_mean_64x2048to2101
0 linear_gelu_640x64to512
0 linear_residual_2447x33to307
0 matmul_tt_512x2741x79
26 bmm_nt_b64_97x739x37
26 matmul_nt_4096x29x2503
22 matmul_tt_97x1201x97
22 matmul_nn_128x4096x451
22 linear_mean_2048x397to57
23 matmul_nn_47x1024x1024
19 matmul_tt_384x4083x16"""
NEW = SC.PIPELINES["matmul"]
OLD = NEW.replace("blockify-launch{{sm-threads={sm_threads}}}", "blockify-launch")
assert OLD != NEW
only = sys.argv[1].split(",") if len(sys.argv) > 1 else None
print(f"{'case':32s} {'eager':>7s} {'old':>13s} {'new':>13s}  new/old")
for line in AFFECTED.splitlines():
    seed, name = line.split()
    if only and not any(o in name for o in only):
        continue
    fn, inputs = get(int(seed), name).build("cuda")
    cells, t, e = [], {}, None
    for i, (label, pipe) in enumerate((("old", OLD), ("new", NEW))):
        SC.PIPELINES["matmul"] = pipe
        r = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        d = r["variants"]["dpl"]
        t[label] = m = d.get("median_ms")
        print(f"   {name} {label}: {m*1e3 if m else 0:.1f} us err {d.get('rel_err')} {d.get('error') or ''}", flush=True)
        cells.append(f"{m*1e3:6.1f}({e/m:4.2f})" if m else "ERR")
    SC.PIPELINES["matmul"] = NEW
    ratio = t["old"] / t["new"] if t.get("old") and t.get("new") else 0
    print(f"{name:32s} {e*1e3:7.1f} {cells[0]:>13s} {cells[1]:>13s}  {ratio:5.2f}x", flush=True)
