"""Short packed rows: lanes per row (blockify_launch.row_lanes) against the GPU, in one process.

    python bench/results/session14/tools/lanes.py [REGEX] [--long]

(--long: rows of 33..768, lanes auto / 8 / 16 / 32.)

Per program: dpl's median (harness.benchmark: CUDA graphs, inputs rotated past L2) with row_lanes
forced to each of LANES ('auto': the tree's own choice), its output poisoned with NaN first and
checked against float64, and eager's median. Prints us and x eager per variant."""
import math
import re
import sys

import torch

sys.path.insert(0, "bench")
from dpl.bench import harness as B  # noqa: E402
from dpl.driver.compile import compile as dpl_compile  # noqa: E402
from dpl.frontend.check import rel_err  # noqa: E402
import dpl.transforms.tile.blockify_launch as bl  # noqa: E402

F = torch.nn.functional
LANES = ("auto", 1, 2, 4, 8)
CASES = {
    "softmax_64x128x384x5": (lambda x: x.softmax(-1), [(64, 128, 384, 5)]),
    "softmax_320x3x277x5": (lambda x: x.softmax(-1), [(320, 3, 277, 5)]),
    "softmax_4096x7": (lambda x: x.softmax(-1), [(4096, 7)]),
    "softmax_256x9x193x9": (lambda x: x.softmax(-1), [(256, 9, 193, 9)]),
    "rmsnorm_77777x9": (lambda x, w: F.rms_norm(x, (9,), w), [(77777, 9), (9,)]),
    "softmax_100003x12": (lambda x: x.softmax(-1), [(100003, 12)]),
    "softmax_2000000x13": (lambda x: x.softmax(-1), [(2000000, 13)]),
    "softmax_81x11x64x21": (lambda x: x.softmax(-1), [(81, 11, 64, 21)]),
    "layernorm_65536x24": (lambda x: F.layer_norm(x, (24,)), [(65536, 24)]),
    "layernorm_1000000x17": (lambda x: F.layer_norm(x, (17,)), [(1000000, 17)]),
    "softmax_64x128x5x29": (lambda x: x.softmax(-1), [(64, 128, 5, 29)]),
    "layernorm_81x8x128x32": (lambda x: F.layer_norm(x, (32,)), [(81, 8, 128, 32)]),
    "softmax_500000x40": (lambda x: x.softmax(-1), [(500000, 40)]),
    "softmax_1157x17x64": (lambda x: x.softmax(-1), [(1157, 17, 64)]),
    "rmsnorm_300000x64": (lambda x, w: F.rms_norm(x, (64,), w), [(300000, 64), (64,)]),
}
LONG = {
    "softmax_64x64x29x53": (lambda x: x.softmax(-1), [(64, 64, 29, 53)]),
    "softmax_200000x37": (lambda x: x.softmax(-1), [(200000, 37)]),
    "layernorm_100000x48": (lambda x: F.layer_norm(x, (48,)), [(100000, 48)]),
    "softmax_100000x64": (lambda x: x.softmax(-1), [(100000, 64)]),
    "rmsnorm_65536x96": (lambda x, w: F.rms_norm(x, (96,), w), [(65536, 96), (96,)]),
    "softmax_50000x100": (lambda x: x.softmax(-1), [(50000, 100)]),
    "layernorm_40000x150": (lambda x: F.layer_norm(x, (150,)), [(40000, 150)]),
    "softmax_30000x200": (lambda x: x.softmax(-1), [(30000, 200)]),
    "softmax_4000x77": (lambda x: x.softmax(-1), [(4000, 77)]),
    "layernorm_20000x301": (lambda x: F.layer_norm(x, (301,)), [(20000, 301)]),
}
auto = bl.row_lanes


def main(argv):
    global LANES, CASES
    if "--long" in argv:
        argv = [a for a in argv if a != "--long"]
        LANES, CASES = ("auto", 8, 16, 32), LONG
    pick = re.compile(argv[0] if argv else "")
    print(f"{'program':24s} {'eager us':>9s} " + " ".join(f"{str(v):>14s}" for v in LANES), flush=True)
    for name, (fn, shapes) in CASES.items():
        if not pick.search(name):
            continue
        torch.manual_seed(0)
        xs = [torch.randn(*s, device="cuda") * 3 for s in shapes]
        ref = fn(*[x.double() for x in xs])
        eager = B.benchmark(name, fn, xs, modes=("eager",), dpl=False, ceilings=False, target_ms=60.0)
        e_us = eager["variants"]["eager"]["median_ms"] * 1000
        cells = []
        for lanes in LANES:
            rows = math.prod(shapes[0][:-1])
            if lanes == auto(shapes[0][-1], rows, 132):  # the same kernel as auto's
                cells.append(f"{'(auto)':>14s}")
                continue
            bl.row_lanes = auto if lanes == "auto" else (lambda *a, lanes=lanes: lanes)
            try:
                c = dpl_compile(fn, *xs, tune_cache=False)
                out = c(*xs, poison=True)
                err = rel_err(out, ref)
                ok = bool(torch.isfinite(out).all()) and err < 1e-5
                res = B.benchmark(name, fn, xs, modes=(), dpl=c, check=False, ceilings=False, target_ms=60.0)
                us = res["variants"]["dpl"]["median_ms"] * 1000
                grid = [k["grid"] for k in res.get("kernels", [])]
                cells.append(f"{us:7.1f} {e_us / us:4.2f}{'' if ok else '!'}")
                print(f"  {name} lanes={lanes}: {us:.2f} us err {err:.1e} grid {grid}", flush=True)
            except Exception as ex:  # noqa: BLE001
                cells.append(f"{'error':>14s}")
                print(f"  {name} lanes={lanes}: {type(ex).__name__}: {str(ex)[:200]}", flush=True)
        bl.row_lanes = auto
        print(f"{name:24s} {e_us:9.1f} " + " ".join(f"{c:>14s}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
