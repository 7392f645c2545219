"""Measure SIMT/TC points of sweep matmul kernels as the tuner does; one JSON line per point.
python .gpu/cands3.py "seed:name ..." > out.jsonl"""
import itertools, json, logging, multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import torch, sweep
from dpl.frontend import capture
from dpl.driver.tune import GpuMeasurer, program_kernels, build_candidate
logging.disable(logging.WARNING)

def points(k):
    pts = [dict(k.default)]
    plain = {o: v for o, v in k.default.items() if o not in ("tensor_cores", "bm", "bn")}
    simt = [((r, c), s) for (r, c) in ((4, 4), (4, 2), (2, 2), (8, 8)) for s in (0, 1)]
    simt += [((r, c), s) for (r, c) in ((4, 4), (4, 2)) for s in (2, 4, 8)]
    for (r, c), s in simt:
        p = {**plain, "rows": r, "cols": c, "splits": s, "block_size": 256}
        if "tensor_cores" in k.space:
            p["tensor_cores"] = False
        if p not in pts:
            pts.append(p)
    if "tensor_cores" in k.space:
        for bm, bn in ((128, 128), (64, 128), (64, 64)):
            p = {**k.default, "tensor_cores": True, "bm": bm, "bn": bn, "splits": 0}
            if p not in pts:
                pts.append(p)
    return pts

def build(text, p, precision, arch):
    return build_candidate(text, p, arch, precision)

if __name__ == "__main__":
    meas = GpuMeasurer(); arch = meas.arch
    pool = ProcessPoolExecutor(16, mp_context=multiprocessing.get_context("spawn"))
    t_end = time.time() + float(os.environ.get("BUDGET_S", 500))
    for spec in sys.argv[1].split():
        if time.time() > t_end:
            break
        seed, cname = spec.split(":")
        (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == cname]
        fn, inputs = case.build("meta")
        prog = capture(fn, *inputs, dtype=torch.float32)
        for k in [k for k in program_kernels(prog.module) if k.cls == "matmul"]:
            pts = points(k)
            outs = [j.result() for j in [pool.submit(build, k.text, p, k.precision, arch) for p in pts]]
            ref = outs[0].get("kernel_ir")
            seen = {}
            for i, (p, o) in enumerate(zip(pts, outs)):
                row = {"case": spec, "kernel": k.name, "point": p, "default": i == 0}
                if "error" in o:
                    row["error"] = o["error"][:200]
                elif o["digest"] in seen:
                    row["us"] = seen[o["digest"]]; row["same"] = True
                else:
                    us, err = meas.measure(k, p, ref, o["kernel_ir"])
                    row["us"] = us; seen[o["digest"]] = us
                    if err:
                        row["error"] = err[:200]
                print(json.dumps(row), flush=True)
    meas.close()
