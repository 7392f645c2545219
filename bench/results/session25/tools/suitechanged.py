"""Session 25 (host): the tile each projection of the suite's linear cases and of both decoder layers
(TinyLlama, Qwen2.5-7B; seq 128, 512, 2048) gets, with the wave pick and without it (WAVE_MARGIN
infinite): suitechanged.txt."""
import math, logging
from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule_mma
from dpl.dialects import mma, tile

def pick(expr):
    mod = capture_expression(expr).module
    run_pipeline(mod, IR_PIPELINES["loop"] + ",split-nests,schedule")
    for t in mod.walk():
        if isinstance(t, tile.TileOp):
            d = next((o for o in t.walk() if isinstance(o, mma.DotOp)), None)
            if d is not None:
                return (d.a.owner.rows, d.b.owner.rows, next((e for v, e, _ in t.axes if v.name_hint == "ks"), 1))
    return "simt"

shapes = set()
for s in (128, 512, 2048):
    shapes |= {(s, 3584, 3584), (s, 3584, 512)}
for s in (128, 512):
    shapes |= {(s, 2048, 2048), (s, 2048, 256), (s, 2048, 5632), (s, 5632, 2048),
               (s, 3584, 3584), (s, 3584, 512), (s, 3584, 18944), (s, 18944, 3584)}
for s, k, n in sorted(shapes):
    e = f"torch.nn.functional.linear(torch.randn({s},{k}), torch.randn({n},{k}))"
    new = pick(e)
    old_margin = schedule_mma.WAVE_MARGIN
    schedule_mma.WAVE_MARGIN = math.inf
    old = pick(e)
    schedule_mma.WAVE_MARGIN = old_margin
    print(s, k, n, "old", old, "new", new, "CHANGED" if old != new else "", flush=True)
