"""Which sweep matmuls the small-tensor-core-grid rule moves (no GPU): python moved.py SEED.."""
import logging, os, re, sys, io
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule as S
buf = io.StringIO(); h = logging.StreamHandler(buf); logging.getLogger("dpl.passes").addHandler(h); logging.getLogger("dpl.passes").setLevel(logging.INFO)
def picks(fn, inputs):
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    return re.findall(r"schedule: @(\S+) is matmul, ([^(]*?)(?: \(modeled|$| at )", buf.getvalue(), re.M)
for seed in map(int, sys.argv[1:]):
    for c in sweep.all_cases(seed):
        if not re.match(r"(matmul|bmm|linear)", c.name): continue
        fn, inputs = c.build("meta")
        try:
            S.SMALL_TC_GRID = 0.5; new = picks(fn, inputs)
            S.SMALL_TC_GRID = 0.0; old = picks(fn, inputs)
        except Exception as e:
            print(f"{seed}:{c.name} ERR {e}", flush=True); continue
        if new != old: print(f"{seed}:{c.name} MOVED old={old} new={new}", flush=True)
