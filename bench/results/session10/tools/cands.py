"""Every SIMT tile (and the tensor-core tiles) of sweep matmuls, built and timed as the tuner does.
python .gpu/cands.py "seed:name ..." """
import logging, multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.tune import GpuMeasurer, program_kernels
from dpl.transforms.tile.schedule import classify
from dpl.bench.mma_candidates import build, points_of
from dpl.dialects import make_context, loop
from dpl.dialects.parsing import parse_module
logging.disable(logging.WARNING)

def points(k):
    """The default, each SIMT tile split as split-matmul-k chooses and unsplit (mma_candidates'
    points), then the tensor-core tiles with split-K's own choice."""
    pts = points_of(k, 0, 0, 0, [], 4, simt=[(4, 4, 256), (8, 8, 256), (4, 2, 256), (4, 4, 64)])
    if "tensor_cores" in k.space:
        for bm, bn in ((128, 128), (64, 128), (64, 64)):
            p = {**k.default, "tensor_cores": True, "bm": bm, "bn": bn, "splits": 0}
            if p not in pts:
                pts.append(p)
    return pts

def name(p):
    if p.get("tensor_cores"):
        return f"tc{p['bm']}x{p['bn']}"
    side = 8 if p.get("block_size") == 64 else 16
    return f"{p['rows']*side}x{p['cols']*side}{'@64' if side == 8 else ''}{'/1' if p.get('splits') == 1 else ''}"

if __name__ == "__main__":
    meas = GpuMeasurer()
    arch = meas.arch
    pool = ProcessPoolExecutor(16, mp_context=multiprocessing.get_context("spawn"))
    for spec in sys.argv[1].split():
        seed, cname = spec.split(":")
        (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == cname]
        fn, inputs = case.build("meta")
        prog = capture(fn, *inputs, dtype=torch.float32)
        ks = [k for k in program_kernels(prog.module) if k.cls == "matmul"]
        for k in ks:
            pts = points(k)
            jobs = [pool.submit(build, k.text, p, k.precision, arch, False) for p in pts]
            outs = [j.result() for j in jobs]
            ref = outs[0].get("kernel_ir")
            row = []
            for i, (p, o) in enumerate(zip(pts, outs)):
                if "error" in o:
                    row.append(f"{name(p)}{'*' if i == 0 else ''}=ERR")
                    continue
                us, err = meas.measure(k, p, ref, o["kernel_ir"])
                grid = ",".join(g for n, g in o["grids"].items() if not n.endswith("_init"))
                row.append(f"{name(p)}{'*' if i == 0 else ''}={us if us is None else round(us, 1)}/{o['model_us']:.1f}[{grid}]" + (f"!{err[:40]}" if err else ""))
            print(f"{spec} {k.name}: " + "  ".join(row), flush=True)
    meas.close()
