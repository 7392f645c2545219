"""Which sweep programs the short-row lanes rule moves (no GPU): python moved_lanes.py SEED.."""
import logging, os, sys
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
from dpl.backend.cuda_printer import print_cuda
import dpl.transforms.tile.blockify_launch as bl
logging.disable(logging.WARNING)
new = bl.row_lanes
def old(n, rows, sms):
    """Session 13's rule: 8 lanes up to 32 elements, else of 8, 16 and 32 the most within
    ROW_SLOTS_SLACK of the fewest slots."""
    if n <= bl.EIGHT_LANE_ROW_MAX:
        return 8
    slots = {lanes: -(-n // lanes) * lanes for lanes in (8, 16, 32)}
    return max(lanes for lanes, s in slots.items() if s <= min(slots.values()) * bl.ROW_SLOTS_SLACK)
def cuda(fn, inputs):
    return print_cuda(lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)[0])
for seed in map(int, sys.argv[1:]):
    for c in sweep.all_cases(seed):
        if c.cls in ("matmul", "linear_epilogue", "linear_reduce") or c.name.startswith(("matmul", "bmm", "linear")):
            continue
        fn, inputs = c.build("meta")
        try:
            bl.row_lanes = new; a = cuda(fn, inputs)
            bl.row_lanes = old; b = cuda(fn, inputs)
        except Exception as e:
            print(f"{seed}:{c.name} ERR {type(e).__name__} {e}", flush=True); continue
        if a != b:
            lanes = [l.split("%")[1].strip(" ;") for l in a.splitlines() if "int lane = tid %" in l]
            print(f"{seed}:{c.name} MOVED lanes {lanes}", flush=True)
