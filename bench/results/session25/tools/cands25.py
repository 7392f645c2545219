"""Session 25: every candidate of some sweep programs' matmul kernels, modeled and measured.

    python3 bench/results/session25/tools/cands25.py SEED:NAME ...   # GPU; --compile-only on the host

For each program: its matmul kernel as the tuner lists it (driver.tune.program_kernels), scheduled
at the default point, the tensor-core tiles 128x128, 128x64, 64x128, 64x64 x splits auto/1/2/4, and
SIMT (default tile, and k_tile 64 with 4 buffers) split auto and unsplit (not with --tc-only;
with --simt-all also each of the schedule's SIMT tiles, 4x4, 8x8, 4x2 and 2x2, split auto and unsplit; with
--repack (session 26) also each point at its automatic split with repack-operands' copies flipped, where the
kernel has that choice); each built like a tuner
candidate (bench/mma_candidates.build: NVRTC, the model's time) and measured like one (the tuner's
GpuMeasurer: checked against the default's output, CUDA graph, L2 flushed, median). Prints per
program: point, grid, modeled us, measured us; and eager's time of the whole program.
"""
import json
import multiprocessing
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, "bench")
import mma_candidates as mc  # noqa: E402
import sweep  # noqa: E402
import torch  # noqa: E402

from dpl.backend.timing import time_launches  # noqa: E402
from dpl.driver.tune import GpuMeasurer, program_kernels  # noqa: E402
from dpl.frontend import capture  # noqa: E402

TILES = ((128, 128), (128, 64), (64, 128), (64, 64))


def points(k, simt_too=True, simt_all=False, repack=False):
    d = dict(k.default)
    pts = [d]
    simt = {**d, "tensor_cores": False} if "tensor_cores" in k.space else dict(d)
    for extra in ({}, {"k_tile": 64, "buffers": 4}) if simt_too else ():
        for s in (0, 1):
            pts.append({**simt, **extra, "splits": s})
    for rows, cols in ((4, 4), (8, 8), (4, 2), (2, 2)) if simt_all else ():  # schedule_classes.MATMUL_TILES
        for s in (0, 1):
            pts.append({**simt, "rows": rows, "cols": cols, "splits": s})
    if "tensor_cores" in k.space:
        for bm, bn in TILES:
            for s in (0, 1, 2, 4):
                pts.append({**d, "tensor_cores": True, "bm": bm, "bn": bn, "splits": s})
    if repack and "repack" in k.space:  # each tile at its automatic split with the copies flipped
        pts += [{**p, "repack": not d["repack"]} for p in list(pts) if p.get("splits") == 0]
    out = []
    for p in pts:
        if p not in out:
            out.append(p)
    return out


def describe(p):
    copies = " repacked" if p.get("repack") else ""
    if p.get("tensor_cores"):
        return f"tc {p['bm']}x{p['bn']} s={p['splits'] or 'auto'}{copies}"
    return f"simt {p['rows']}x{p['cols']} k{p['k_tile']} b{p['buffers']} s={p['splits'] or 'auto'}{copies}"


def main():
    gpu = "--compile-only" not in sys.argv
    specs = [a for a in sys.argv[1:] if not a.startswith("--") and not a.endswith(".json")]
    measurer = GpuMeasurer() if gpu else None
    arch = measurer.arch if gpu else None
    results = []
    with ProcessPoolExecutor(16 if gpu else 2, mp_context=multiprocessing.get_context("spawn")) as pool:
        for spec in specs:
            seed, name = spec.split(":")
            case = next(c for c in sweep.all_cases(seed=int(seed)) if c.name == name)
            fn, inputs = case.build("meta")
            (k,) = [k for k in program_kernels(capture(fn, *inputs, dtype=torch.float32).module) if k.cls == "matmul"][:1]
            pts = points(k, "--tc-only" not in sys.argv, "--simt-all" in sys.argv, "--repack" in sys.argv)
            jobs = [pool.submit(mc.build, k.text, p, k.precision, arch, False) for p in pts]
            rows = [{"point": describe(p), "default": i == 0, **j.result()} for i, (p, j) in enumerate(zip(pts, jobs))]
            eager = None
            if gpu:
                ref = rows[0].get("kernel_ir")
                seen = {}
                for p, r in zip(pts, rows):
                    if "kernel_ir" in r and r["digest"] in seen:  # the same kernel as an earlier point
                        r["us"], r["merr"] = seen[r["digest"]]
                    elif "kernel_ir" in r:
                        seen[r["digest"]] = measurer.measure(k, p, ref, r["kernel_ir"])
                        r["us"], r["merr"] = seen[r["digest"]]
                fn, inputs = case.build("cuda")
                with torch.no_grad():
                    eager = statistics.median(time_launches(lambda: fn(*inputs))) * 1e3
            print(f"\n## {seed}:{name}  eager {eager and round(eager, 1)} us")
            for r in sorted(rows, key=lambda r: r.get("us") or r.get("model_us") or 1e9):
                r.pop("kernel_ir", None)
                r.pop("digest", None)
                star = "*" if r["default"] else " "
                what = r.get("error") or r.get("merr") or ""
                print(f"{star} {r['point']:<28} {str(r.get('grids', '')):<40} model {r.get('model_us', 0):8.1f}"
                      f"  meas {r.get('us') or 0:8.1f}  blocks {r.get('blocks', '-')} trips {r.get('trips', '-')} {what[:80]}", flush=True)
            results.append({"spec": spec, "eager_us": eager, "rows": rows})
    if measurer:
        measurer.close()
    json.dump(results, open(sys.argv[-1] if sys.argv[-1].endswith(".json") else "/dev/null", "w"), indent=1)


if __name__ == "__main__":
    main()
