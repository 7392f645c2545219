"""Short-K matmuls (K in [32, 128)) on the tensor cores: every kernel's current default (SIMT:
tensor cores are not tried below K = 128) against its SIMT K steps of 16 and 8 and the padded
wgmma tiles 128x128, 64x128, 64x64 (split-matmul-k's own split), each timed alone as the tuner
times a candidate (checked against the default, CUDA graph, L2 flushed, median); eager per
program timed the same way.   python .gpu/shortk.py "seed:name ..|mm:M:N:K:trans[:batch] .."
One JSON line per point on stdout, a table at the end."""
import json, logging, multiprocessing, os, sys, time, statistics
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, "bench")
logging.disable(logging.WARNING)


def case_of(spec):
    import sweep
    p = spec.split(":")
    if p[0] == "mm":
        m, n, k = map(int, p[1:4])
        return sweep.matmul_case(m, n, k, p[4], int(p[5]) if len(p) > 5 else 0)
    (case,) = [c for c in sweep.all_cases(int(p[0])) if c.name == p[1]]
    return case


def prepare(spec, arch):
    """In a worker: the program's matmul kernels and, per kernel, the built points."""
    import torch
    import dpl.transforms.tile.schedule_mma as SM
    from dpl.frontend import capture
    from dpl.driver.tune import program_kernels, build_candidate
    logging.disable(logging.WARNING)
    case = case_of(spec)
    fn, inputs = case.build("meta")
    prog = capture(fn, *inputs, dtype=torch.float32)
    SM.MIN_K = 128
    old = [k for k in program_kernels(prog.module) if k.cls == "matmul"]
    SM.MIN_K = 32
    new = [k for k in program_kernels(prog.module) if k.cls == "matmul"]
    out = []
    for ko, kn in zip(old, new):
        pts = [("default", 128, dict(ko.default))]
        for kt in (16, 8):
            pts.append((f"simt k{kt}", 128, {**ko.default, "k_tile": kt}))
        if "tensor_cores" in kn.space:
            for bm, bn in ((128, 128), (64, 128), (64, 64)):
                pts.append((f"tc {bm}x{bn}", 32, {**kn.default, "tensor_cores": True, "bm": bm, "bn": bn, "splits": 0}))
                if "repack" in kn.space and bm == bn:
                    pts.append((f"tc {bm}x{bn} repack", 32, {**kn.default, "tensor_cores": True, "bm": bm, "bn": bn, "splits": 0, "repack": True}))
            pts.append(("new default", 32, dict(kn.default)))
        built = []
        for label, mk, p in pts:
            SM.MIN_K = mk
            built.append((label, p, build_candidate(ko.text, p, arch, ko.precision)))
        out.append((ko, built))
    return out


if __name__ == "__main__":
    import torch
    from dpl.driver.tune import GpuMeasurer
    from dpl.backend.timing import time_launches
    meas = GpuMeasurer(); arch = meas.arch
    pool = ProcessPoolExecutor(15, mp_context=multiprocessing.get_context("spawn"))
    t_end = time.time() + float(os.environ.get("BUDGET_S", 300))
    specs = sys.argv[1].split()
    jobs = [(s, pool.submit(prepare, s, arch)) for s in specs]
    table = []
    for spec, job in jobs:
        if time.time() > t_end:
            print(f"# budget: stopped before {spec}", flush=True); break
        try:
            kernels = job.result()
        except Exception as e:
            print(f"# {spec}: prepare failed: {e}", flush=True); continue
        case = case_of(spec)
        fn, inputs = case.build("cuda")
        with torch.no_grad():
            eager = statistics.median(time_launches(lambda: fn(*inputs))) * 1e3
        for k, built in kernels:
            ref = built[0][2].get("kernel_ir")
            seen, cells = {}, {}
            for label, p, o in built:
                row = {"case": spec, "kernel": k.name, "label": label, "point": p, "eager_us": eager}
                if "error" in o:
                    row["error"] = o["error"][:300]; cells[label] = "err"
                elif o["digest"] in seen:
                    row["us"] = seen[o["digest"]]; row["same"] = True; cells[label] = f"={row['us']:.1f}"
                else:
                    us, err = meas.measure(k, p, ref, o["kernel_ir"])
                    row["us"] = us; seen[o["digest"]] = us
                    if err:
                        row["error"] = err[:300]
                    cells[label] = f"{us:.1f}{'!' if err else ''}" if us else "fail"
                print(json.dumps(row), flush=True)
            table.append((spec, k.name, eager, cells))
    meas.close()
    cols = ["default", "simt k16", "simt k8", "tc 128x128", "tc 64x128", "tc 64x64", "tc 128x128 repack", "tc 64x64 repack", "new default"]
    print("# " + " | ".join(["case", "kernel", "eager"] + cols))
    for spec, name, eager, cells in table:
        print("# " + " | ".join([spec, name, f"{eager:.1f}"] + [cells.get(c, "-") for c in cols]))
