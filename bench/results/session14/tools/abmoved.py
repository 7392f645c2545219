"""The sweep programs the short-row lanes rule moves, old (8 lanes) against new, in one process:
python abmoved.py SEED:NAME ... Each variant's output poisoned with NaN first and checked against
float64; medians by harness.benchmark (CUDA graphs, inputs rotated past L2), eager and
torch.compile beside them."""
import copy
import sys
import torch
sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench import harness as B  # noqa: E402
from dpl.driver.compile import compile as dpl_compile  # noqa: E402
from dpl.frontend.check import rel_err  # noqa: E402
import dpl.transforms.tile.blockify_launch as bl  # noqa: E402

new = bl.row_lanes


def old(n, rows, sms):
    """Session 13's rule: 8 lanes up to 32 elements, else of 8, 16 and 32 the most within
    ROW_SLOTS_SLACK of the fewest slots."""
    if n <= bl.EIGHT_LANE_ROW_MAX:
        return 8
    slots = {lanes: -(-n // lanes) * lanes for lanes in (8, 16, 32)}
    return max(lanes for lanes, s in slots.items() if s <= min(slots.values()) * bl.ROW_SLOTS_SLACK)


print(f"{'program':36s} {'eager':>7s} {'compile':>7s} {'old us':>7s} {'new us':>7s} {'new/old':>7s} {'old x':>6s} {'new x':>6s} err", flush=True)
for spec in sys.argv[1:]:
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, xs = case.build("cuda")
    ref = copy.deepcopy(fn).double()(*[x.double() for x in xs])
    base = B.benchmark(name, fn, xs, modes=("eager", "compile"), dpl=False, ceilings=False, target_ms=60.0)
    e_us = base["variants"]["eager"]["median_ms"] * 1000
    c_us = base["variants"]["compile"]["median_ms"] * 1000
    us, errs = {}, []
    for label, fn_lanes in (("old", old), ("new", new)):
        bl.row_lanes = fn_lanes
        c = dpl_compile(copy.deepcopy(fn).cpu(), *[x.cpu() for x in xs], tune_cache=False)
        out = c(*xs, poison=True)
        errs.append(f"{rel_err(out, ref):.1e}{'' if bool(torch.isfinite(out).all()) else ' NONFINITE'}")
        r = B.benchmark(name, fn, xs, modes=(), dpl=c, check=False, ceilings=False, target_ms=60.0)
        us[label] = r["variants"]["dpl"]["median_ms"] * 1000
    bl.row_lanes = new
    print(f"{spec:36s} {e_us:7.1f} {c_us:7.1f} {us['old']:7.1f} {us['new']:7.1f} {us['old'] / us['new']:7.2f} "
          f"{e_us / us['old']:6.2f} {e_us / us['new']:6.2f} {' / '.join(errs)}", flush=True)
