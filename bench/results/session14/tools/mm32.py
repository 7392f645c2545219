"""Small SIMT matmul tiles (64 threads: 32 x 32 of 4 x 4 cells, 32 x 64, 64 x 32) against the
default pick, per kernel as the tuner measures (each kernel alone, CUDA events, L2 flushed,
median). One JSON line per point, then a table.

    python bench/results/session14/tools/mm32.py "seed:name ..." > out.jsonl"""
import json, logging, multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.tune import program_kernels, build_candidate, GpuMeasurer
logging.disable(logging.WARNING)

SIMT = [((4, 4), 256, 0), ((4, 2), 256, 0), ((4, 4), 64, 0), ((4, 4), 64, 2), ((4, 4), 64, 4),
        ((4, 8), 64, 0), ((8, 4), 64, 0), ((2, 4), 64, 0), ((4, 2), 64, 0), ((2, 2), 256, 0)]


def points(k):
    pts = [dict(k.default)]
    plain = {o: v for o, v in k.default.items() if o not in ("tensor_cores", "bm", "bn")}
    for (r, c), bs, s in SIMT:
        p = {**plain, "rows": r, "cols": c, "splits": s, "block_size": bs}
        if "tensor_cores" in k.space:
            p["tensor_cores"] = False
        if p not in pts:
            pts.append(p)
    return pts


if __name__ == "__main__":
    meas = GpuMeasurer(); arch = meas.arch
    pool = ProcessPoolExecutor(16, mp_context=multiprocessing.get_context("spawn"))
    t_end = time.time() + float(os.environ.get("BUDGET_S", 200))
    table = []
    for spec in sys.argv[1].split():
        if time.time() > t_end:
            break
        seed, cname = spec.split(":")
        (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == cname]
        fn, inputs = case.build("meta")
        prog = capture(fn, *inputs, dtype=torch.float32)
        for k in [k for k in program_kernels(prog.module) if k.cls == "matmul"]:
            pts = points(k)
            outs = [j.result() for j in [pool.submit(build_candidate, k.text, p, arch, k.precision) for p in pts]]
            ref = outs[0].get("kernel_ir")
            line = []
            for i, (p, o) in enumerate(zip(pts, outs)):
                row = {"case": spec, "kernel": k.name, "point": p, "default": i == 0}
                if "error" in o:
                    row["error"] = o["error"][:200]; line.append("err")
                else:
                    us, err = meas.measure(k, p, ref, o["kernel_ir"])
                    row["us"] = us
                    if err:
                        row["error"] = err[:200]
                    line.append(f"{us:.1f}{'!' if err else ''}")
                print(json.dumps(row), flush=True)
            table.append((spec, k.name, line))
    meas.close()
    head = ["default"] + [f"{r * 8 if bs == 64 else r * 16}x{c * 8 if bs == 64 else c * 16}/{bs}" + (f"s{s}" if s else "") for (r, c), bs, s in SIMT]
    print("# " + " | ".join(["case"] + head))
    for spec, name, line in table:
        print("# " + " | ".join([spec] + line))
