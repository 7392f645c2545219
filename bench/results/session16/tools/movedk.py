"""Sweep matmul programs whose picks the short-K model moves (no GPU): python3 .gpu/movedk.py SEED..
old = MIN_K 128, no per-block steps, 32 x 32 skipped wherever tensor cores were tried."""
import logging, os, re, sys, io
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule_mma as SM
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
import dataclasses
logging.disable(logging.NOTSET)
buf = io.StringIO(); h = logging.StreamHandler(buf); lg = logging.getLogger("dpl.passes"); lg.addHandler(h); lg.setLevel(logging.INFO)
NEW = dict(MIN_K=SM.MIN_K, FULL=dict(SM.FULL_BLOCK_STEPS), BT=SC.MATMUL_TILES, WIN=S.tensor_cores_win)
OLD = dict(MIN_K=128, FULL={}, BT=tuple(dataclasses.replace(c, block_trips=0.0) for c in SC.MATMUL_TILES), WIN=lambda tried, sms, smem: any(isinstance(t[4], SM.MmaChoice) for t in tried))
def setm(m):
    SM.MIN_K = m["MIN_K"]; SM.FULL_BLOCK_STEPS = {k: 0.0 for k in NEW["FULL"]} if not m["FULL"] else m["FULL"]
    S.MATMUL_TILES = SC.MATMUL_TILES = m["BT"]; S.tensor_cores_win = m["WIN"]
def picks(fn, inputs):
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    return re.findall(r"schedule: @(\S+) is matmul, (.*?) \(modeled", buf.getvalue())
MM = ("matmul", "bmm", "linear")
for seed in map(int, sys.argv[1:]):
    for c in sweep.all_cases(seed):
        if not c.name.startswith(MM): continue
        fn, inputs = c.build("meta")
        try:
            setm(OLD); old = picks(fn, inputs)
            setm(NEW); new = picks(fn, inputs)
        except Exception as e:
            print(f"{seed}:{c.name} ERR {e}", flush=True); continue
        print(f"{seed}:{c.name} {'MOVED' if new != old else 'same'} old={old} new={new}", flush=True)
