"""dpl default against schedule variants and eager on the session-18 probes (harness: CUDA graph
replays, inputs rotated past L2, checked against float64).  argv: variants (comma list)."""
import sys, re
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
import torch
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.pipelines import kernel_schedule
from cases18 import PROBES, get

variants = (sys.argv[1] if len(sys.argv) > 1 else "default").split(",")
only = sys.argv[2].split(",") if len(sys.argv) > 2 else None


def spec(v):
    if v == "default":
        return None
    return re.sub(r"\bschedule\b(?!\{)", f"schedule{{{v}}}", kernel_schedule(), count=1)


print(f"{'case':30s} {'eager':>7s} " + " ".join(f"{v[:18]:>18s}" for v in variants))
for seed, name in PROBES:
    if only and not any(o in name for o in only):
        continue
    case = get(seed, name)
    fn, inputs = case.build("cuda")
    cells, e = [], None
    for i, v in enumerate(variants):
        r = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs, s=spec(v): dpl_compile(f, *xs, pipeline=s, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        d = r["variants"]["dpl"]
        m = d.get("median_ms")
        ks = "+".join(f"{k['name'].replace('k_', '')}{tuple(k['grid'])}x{k['block'][0]}" for k in r.get("kernels", []))
        if m:
            cells.append(f"{m*1e3:7.1f}({e/m:4.2f})")
        else:
            cells.append(f"ERR {str(d.get('error'))[:12]}")
        print(f"   {name} {v}: {m*1e3 if m else 0:.1f} us err {d.get('rel_err')} {ks}", flush=True)
    print(f"{name:30s} {e*1e3:7.1f} " + " ".join(f"{c:>18s}" for c in cells), flush=True)
