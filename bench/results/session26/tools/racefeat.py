"""Session 26 (issue 13, host): per measured candidate of the cands25.py calls (session 25 calls 1-2,
session 26 call 1), the figures a race between SIMT and the tensor cores reads: the point, the
old model's time (modeled_us), the wave model's (schedule_mma.wave_us, tensor-core tiles), the
SIMT tile's launch (blocks, threads, K trips or the extent of a K left whole, splits,
element-staged), and the measured time.

    python bench/results/session26/tools/racefeat.py > bench/results/session26/racefeat.json
    python bench/results/session26/tools/racefeat.py --short-k > bench/results/session26/racefeat-shortk.json
"""
import json
import re
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
import torch  # noqa: E402

from dpl.dialects import make_context, tile  # noqa: E402
from dpl.dialects.parsing import parse_module  # noqa: E402
from dpl.driver.tune import program_kernels  # noqa: E402
from dpl.bench.ab import patched  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.transforms.tile import schedule  # noqa: E402
from dpl.transforms.tile.schedule import classify, element_staged, point_spec, scratch, tile_k  # noqa: E402
from dpl.transforms.tile.schedule_mma import mma_tile, wave_us  # noqa: E402
from dpl.transforms.tile.target import arch_smem  # noqa: E402

TARGET, SMS = "sm_90", 132
FILES = ["bench/results/session25/call1-cands.json", "bench/results/session25/call2-cands.json",
         "bench/results/session26/call1-cands.json"]
SUFFIXED = "--short-k" in sys.argv
if SUFFIXED:  # call 4: 10 short-K matmuls, with repack flipped (racefeat-shortk.json)
    FILES = ["bench/results/session26/call4-cands.json"]


def parse_point(text, default):
    """The point a cands25.py row name stands for (as cands25.points built it)."""
    d = dict(default)
    if SUFFIXED:  # (session 26's cands25.py names a point's copies; before, they were the default's)
        d["repack"], text = text.endswith(" repacked"), text.removesuffix(" repacked")
    m = re.match(r"tc (\d+)x(\d+) s=(\w+)", text)
    if m:
        return {**d, "tensor_cores": True, "bm": int(m[1]), "bn": int(m[2]), "splits": 0 if m[3] == "auto" else int(m[3])}
    m = re.match(r"simt (\d+)x(\d+) k(\d+) b(\d+) s=(\w+)", text)
    p = {**d, "rows": int(m[1]), "cols": int(m[2]), "k_tile": int(m[3]), "buffers": int(m[4]),
         "splits": 0 if m[5] == "auto" else int(m[5])}
    if "tensor_cores" in d:
        p["tensor_cores"] = False
    return p


out = []
ctx = make_context()
race = patched(schedule, "RACE_MARGIN", None)  # the schedule as the candidates were measured
race.__enter__()
smem = arch_smem(TARGET)
for f in FILES:
    for prog in json.load(open(f)):
        seed, name = prog["spec"].split(":")
        case = next(c for c in sweep.all_cases(seed=int(seed)) if c.name == name)
        fn, inputs = case.build("meta")
        (k,) = [k for k in program_kernels(capture(fn, *inputs, dtype=torch.float32).module) if k.cls == "matmul"][:1]
        (kernel,) = [o for o in parse_module(ctx, k.text, "<k>").walk() if type(o).__name__ == "KernelOp"]
        for r in prog["rows"]:
            if not r.get("us"):
                continue
            p = parse_point(r["point"], k.default) if not r["default"] else dict(k.default)
            block, _ = scratch(ctx, kernel, point_spec(classify(kernel), p, TARGET, SMS, k.precision))
            row = {"prog": prog["spec"], "eager": prog["eager_us"], "point": r["point"], "default": r["default"],
                   "model": r.get("model_us"), "us": r["us"], "src": f.split("/")[-2]}
            t = mma_tile(block)
            if t is not None:
                row["wave"] = wave_us(t, SMS, smem)
                row["tc"] = True
            else:
                ts = [t for t in block.walk() if isinstance(t, tile.TileOp)
                      and any(kk == tile.AxisKind.CELL for _, _, kk in t.axes)]
                row["tc"] = False
                if ts:
                    t = ts[0]
                    A = tile.AxisKind
                    trips, splits = tile_k(t)
                    whole = next((o.extent.data for o in t.body.block.ops
                                  if type(o).__name__ == "ForOp" and o.is_reduce), None)
                    row.update(k_extent=whole, blocks=eval("*".join(str(e) for _, e, kk in t.axes if kk == A.BLOCK) or "1"),
                               threads=eval("*".join(str(e) for _, e, kk in t.axes if kk == A.THREAD) or "1"),
                               cells=eval("*".join(str(e) for _, e, kk in t.axes if kk == A.CELL) or "1"),
                               trips=trips, splits=splits, element=element_staged(t),
                               kernels=sum(1 for _ in block.walk() if type(_).__name__ == "KernelOp"))
            out.append(row)
        print(prog["spec"], file=sys.stderr, flush=True)
json.dump(out, sys.stdout, indent=0)
