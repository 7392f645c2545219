"""Every matmul pick of sweep programs at the committed MATMUL_TILES and with 32 x 32's trip at
2.18 (before session 15): python picks32.py SEED:NAME.."""
import dataclasses, logging, re, sys, io
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
buf = io.StringIO(); h = logging.StreamHandler(buf); logging.getLogger("dpl.passes").addHandler(h); logging.getLogger("dpl.passes").setLevel(logging.INFO)
new = SC.MATMUL_TILES
old = tuple(dataclasses.replace(c, trip_us=2.18) if c.rows == 2 else c for c in new)
for spec in sys.argv[1:]:
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("meta")
    prog = capture(fn, *inputs, dtype=torch.float32)
    out = []
    for tiles in (old, new):
        S.MATMUL_TILES = SC.MATMUL_TILES = tiles
        buf.seek(0); buf.truncate()
        lower(prog, verbose=False)
        out.append(re.findall(r"schedule: @(\S+) is matmul, ([^(]*?) \(modeled", buf.getvalue()))
    print(spec, "MOVED" if out[0] != out[1] else "same", "old", out[0], "new", out[1], flush=True)
