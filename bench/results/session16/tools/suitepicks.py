"""Which bench/suite.py cases' matmul picks the short-K model moves (no GPU)."""
import logging, re, sys, io, dataclasses
sys.path.insert(0, "bench")
import torch, suite
suite.DEV = "cpu"
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule_mma as SM
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
logging.disable(logging.NOTSET)
buf = io.StringIO(); h = logging.StreamHandler(buf); lg = logging.getLogger("dpl.passes"); lg.addHandler(h); lg.setLevel(logging.INFO)
NEW = dict(MIN_K=SM.MIN_K, FULL=dict(SM.FULL_BLOCK_STEPS), BT=SC.MATMUL_TILES, WIN=S.tensor_cores_win)
OLD = dict(MIN_K=128, FULL={k: 0.0 for k in SM.FULL_BLOCK_STEPS}, BT=tuple(dataclasses.replace(c, block_trips=0.0) for c in SC.MATMUL_TILES),
           WIN=lambda tried, sms, smem: any(isinstance(t[4], SM.MmaChoice) for t in tried))
def setm(m):
    SM.MIN_K = m["MIN_K"]; SM.FULL_BLOCK_STEPS = m["FULL"]; S.MATMUL_TILES = SC.MATMUL_TILES = m["BT"]; S.tensor_cores_win = m["WIN"]
def picks(prog):
    buf.seek(0); buf.truncate()
    lower(prog, verbose=False)
    return re.findall(r"schedule: @(\S+) is (?:matmul|flash attention), (.*?)(?: \(modeled|: )", buf.getvalue())
for c in suite.CASES:
    if len(sys.argv) > 1 and not re.search(sys.argv[1], c.name): continue
    fn, inputs = c.make()
    prog = capture(fn, *inputs, dtype=torch.float32)
    setm(OLD); old = picks(prog)
    setm(NEW); new = picks(prog)
    print(f"{c.name} {'MOVED' if old != new else 'same'} {len(old)} picks", flush=True)
    if old != new:
        for a, b in zip(old, new):
            if a != b: print(f"   {a} -> {b}")
