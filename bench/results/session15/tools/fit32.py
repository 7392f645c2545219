"""Which A/B programs pick SIMT 32 x 32 as the 32 x 32 tile's shared-SM trip cost varies (no GPU):
python fit32.py TRIP,.. SEED:NAME.."""
import dataclasses, logging, os, re, sys, io
sys.path.insert(0, "bench")
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
buf = io.StringIO(); h = logging.StreamHandler(buf); logging.getLogger("dpl.passes").addHandler(h); logging.getLogger("dpl.passes").setLevel(logging.INFO)
S.SMALL_32_GRID = 1e9
base = SC.MATMUL_TILES
trips = [float(t) for t in sys.argv[1].split(",")]
for spec in sys.argv[2:]:
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("meta")
    prog = capture(fn, *inputs, dtype=torch.float32)
    res = []
    for t in trips:
        tiles = tuple(dataclasses.replace(c, trip_us=t) if c.rows == 2 else c for c in base)
        S.MATMUL_TILES = SC.MATMUL_TILES = tiles
        buf.seek(0); buf.truncate()
        lower(prog, verbose=False)
        picks = re.findall(r"schedule: @\S+ is matmul, (SIMT \d+ x \d+|wgmma|operands repacked|epilogue split off)", buf.getvalue())
        res.append("32" if picks and picks[-1] == "SIMT 32 x 32" else "no")
    print(spec, " ".join(f"{t}:{r}" for t, r in zip(trips, res)), flush=True)
