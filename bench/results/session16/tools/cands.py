"""Every SIMT tile (auto split and unsplit) and wgmma tile of each matmul kernel, with the old
and new defaults, each timed alone as the tuner times a candidate (checked against the new
default, CUDA graph, L2 flushed, median). python3 .gpu/cands.py SPEC..   One JSON line a point."""
import json, logging, multiprocessing, os, sys, time, statistics, dataclasses
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu")
logging.disable(logging.WARNING)
from shortk import case_of


def prepare(spec, arch):
    import torch
    import dpl.transforms.tile.schedule_mma as SM
    import dpl.transforms.tile.schedule as S
    import dpl.transforms.tile.schedule_classes as SC
    from dpl.frontend import capture
    from dpl.driver.tune import program_kernels, build_candidate
    logging.disable(logging.WARNING)
    fn, inputs = case_of(spec).build("meta")
    prog = capture(fn, *inputs, dtype=torch.float32)
    new = dict(MIN_K=SM.MIN_K, FULL=dict(SM.FULL_BLOCK_STEPS), BT=SC.MATMUL_TILES, WIN=S.tensor_cores_win)
    old = dict(MIN_K=128, FULL={k: 0.0 for k in SM.FULL_BLOCK_STEPS},
               BT=tuple(dataclasses.replace(c, block_trips=0.0) for c in SC.MATMUL_TILES),
               WIN=lambda tried, sms, smem: any(isinstance(t[4], SM.MmaChoice) for t in tried))
    def setm(m):
        SM.MIN_K = m["MIN_K"]; SM.FULL_BLOCK_STEPS = m["FULL"]
        S.MATMUL_TILES = SC.MATMUL_TILES = m["BT"]; S.tensor_cores_win = m["WIN"]
    setm(old); ko = [k for k in program_kernels(prog.module) if k.cls == "matmul"]
    setm(new); kn = [k for k in program_kernels(prog.module) if k.cls == "matmul"]
    out = []
    for o, n in zip(ko, kn):
        pts = [("new", dict(n.default)), ("old", dict(o.default))]
        base = {**n.default, "repack": False} if "repack" in n.space else dict(n.default)
        if "split_epilogue" in n.space:
            base["split_epilogue"] = False
        simt = {**base, "tensor_cores": False} if "tensor_cores" in n.space else base
        for r, c in ((4, 4), (8, 8), (4, 2), (2, 2)):
            for sp in (0, 1):
                pts.append((f"s{r}{c}{'u' if sp else ''}", {**simt, "rows": r, "cols": c, "splits": sp}))
        if "tensor_cores" in n.space:
            for bm, bn in ((64, 64), (64, 128), (128, 128)):
                pts.append((f"tc{bm}x{bn}", {**base, "tensor_cores": True, "bm": bm, "bn": bn, "splits": 0}))
        built = [(label, p, build_candidate(n.text, p, arch, n.precision)) for label, p in pts]
        out.append((n, built))
    return out


if __name__ == "__main__":
    import torch
    from dpl.driver.tune import GpuMeasurer
    from dpl.backend.timing import time_launches
    meas = GpuMeasurer(); arch = meas.arch
    pool = ProcessPoolExecutor(15, mp_context=multiprocessing.get_context("spawn"))
    t_end = time.time() + float(os.environ.get("BUDGET_S", 300))
    specs = sys.argv[1:]
    jobs = [(s, pool.submit(prepare, s, arch)) for s in specs]
    for spec, job in jobs:
        if time.time() > t_end:
            print(f"# budget: stopped before {spec}", flush=True); break
        try:
            kernels = job.result()
        except Exception as e:
            print(f"# {spec}: prepare failed: {e}", flush=True); continue
        fn, inputs = case_of(spec).build("cuda")
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
            print(f"# {spec} @{k.name} eager {eager:.1f} " + " ".join(f"{l}={v}" for l, v in cells.items()), flush=True)
    meas.close()
