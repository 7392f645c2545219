"""Each SIMT register tile x K step x stages of sweep matmul kernels, built and timed as the tuner
times a candidate. python .gpu/cands2.py "seed:name ..." [--dry]"""
import itertools, logging, multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import torch, sweep
from dpl.frontend import capture
from dpl.driver.tune import GpuMeasurer, program_kernels
from dpl.bench.mma_candidates import build
logging.disable(logging.WARNING)

TILES = [(4, 4, 256), (4, 2, 256), (2, 2, 256), (4, 4, 64)]

def points(k):
    pts = [dict(k.default)]
    plain = {o: v for o, v in k.default.items() if o not in ("tensor_cores", "bm", "bn")}
    for (r, c, t), kt, st, sp in itertools.product(TILES, (8, 16, 32), (2, 3, 4), (0,)):
        p = {**plain, "rows": r, "cols": c, "block_size": t, "k_tile": kt, "buffers": st, "depth": st, "splits": sp}
        if "tensor_cores" in k.space:
            p["tensor_cores"] = False
        if p not in pts:
            pts.append(p)
    return pts

def name(p):
    if p.get("tensor_cores"):
        return f"tc{p['bm']}x{p['bn']}"
    side = 8 if p.get("block_size") == 64 else 16
    return f"{p['rows']*side}x{p['cols']*side}{'@64' if side == 8 else ''}k{p['k_tile']}s{p['buffers']}{'/'+str(p['splits']) if p.get('splits') else ''}"

if __name__ == "__main__":
    dry = "--dry" in sys.argv
    if not dry:
        meas = GpuMeasurer(); arch = meas.arch
    else:
        arch = None
    pool = ProcessPoolExecutor(int(os.environ.get("JOBS", 16)), mp_context=multiprocessing.get_context("spawn"))
    for spec in sys.argv[1].split():
        seed, cname = spec.split(":")
        (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == cname]
        fn, inputs = case.build("meta")
        prog = capture(fn, *inputs, dtype=torch.float32)
        for k in [k for k in program_kernels(prog.module) if k.cls == "matmul"]:
            t0 = time.time()
            pts = points(k)
            outs = [j.result() for j in [pool.submit(build, k.text, p, k.precision, arch, False) for p in pts]]
            ref = outs[0].get("kernel_ir")
            res = []
            for i, (p, o) in enumerate(zip(pts, outs)):
                if "error" in o:
                    res.append((1e9, f"{name(p)}=ERR:{o['error'][:60]}"))
                    continue
                grid = ",".join(g for n, g in o["grids"].items() if not n.endswith("_init"))
                if dry:
                    res.append((o["model_us"], f"{name(p)}{'*' if i == 0 else ''}=m{o['model_us']:.1f}[{grid}]"))
                    continue
                us, err = meas.measure(k, p, ref, o["kernel_ir"])
                res.append((us if us else 1e9, f"{name(p)}{'*' if i == 0 else ''}={us if us is None else round(us, 1)}/{o['model_us']:.1f}[{grid}]" + (f"!{err[:40]}" if err else "")))
            d = res[0]
            best = sorted(res[1:])[:6]
            print(f"{spec} {k.name} ({time.time()-t0:.0f}s): default {d[1]}  best: " + "  ".join(b[1] for b in best), flush=True)
    if not dry:
        meas.close()
