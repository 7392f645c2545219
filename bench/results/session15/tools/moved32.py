"""Sweep matmul programs whose pick SMALL_32_GRID moves (no GPU): python moved32.py SEED.."""
import logging, os, re, sys, io, math
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule as S
buf = io.StringIO(); h = logging.StreamHandler(buf); logging.getLogger("dpl.passes").addHandler(h); logging.getLogger("dpl.passes").setLevel(logging.INFO)
def picks(fn, inputs):
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    return re.findall(r"schedule: @(\S+) is matmul, ([^(]*?)(?: \(modeled|$| at )", buf.getvalue(), re.M), buf.getvalue()
def small(name):
    m = re.match(r"(matmul|bmm)_\w\w_(?:b(\d+)_)?(\d+)x(\d+)x(\d+)$", name)
    l = re.match(r"linear_\w+_(\d+)x(\d+)to(\d+)$", name)
    if m: return int(m[2] or 1) * math.ceil(int(m[3]) / 64) * math.ceil(int(m[4]) / 64) < 132
    if l: return math.ceil(int(l[1]) / 64) * math.ceil(int(l[3]) / 64) < 132
    return False
NEW = S.SMALL_32_GRID
for seed in map(int, sys.argv[1:]):
    for c in sweep.all_cases(seed):
        if not small(c.name): continue
        fn, inputs = c.build("meta")
        try:
            S.SMALL_32_GRID = NEW; new, log = picks(fn, inputs)
            S.SMALL_32_GRID = 1e9; old, _ = picks(fn, inputs)
        except Exception as e:
            print(f"{seed}:{c.name} ERR {e}", flush=True); continue
        full = re.findall(r"SIMT 32 x 32 not tried \(an estimated cost; the first tile.s (\d+) blocks hold ([\d.]+) blocks", log)
        if new != old: print(f"{seed}:{c.name} MOVED old={old} new={new} grid={full[:1]}", flush=True)
