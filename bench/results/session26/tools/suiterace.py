"""Session 26 (host): whether the wave-model race (schedule.RACE_MARGIN) changes the tile of any
projection of the suite's linear cases and of both decoder layers (TinyLlama, Qwen2.5-7B; seq
128, 512, 2048) or of the suite's small matmul (relu_matmul 16 x 64 x 16): suiterace.txt."""
from dpl.bench.ab import patched
from dpl.dialects import mma, tile
from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule


def pick(expr):
    mod = capture_expression(expr).module
    run_pipeline(mod, IR_PIPELINES["loop"] + ",split-nests,schedule")
    return str(mod)


shapes = set()
for s in (128, 512, 2048):
    shapes |= {(s, 3584, 3584), (s, 3584, 512)}
for s in (128, 512):
    shapes |= {(s, 2048, 2048), (s, 2048, 256), (s, 2048, 5632), (s, 5632, 2048),
               (s, 3584, 3584), (s, 3584, 512), (s, 3584, 18944), (s, 18944, 3584)}
exprs = [f"torch.nn.functional.linear(torch.randn({s},{k}), torch.randn({n},{k}))" for s, k, n in sorted(shapes)]
exprs.append("torch.relu(torch.randn(16,64) + torch.randn(64)) @ torch.randn(64,16)")
for e in exprs:
    new = pick(e)
    with patched(schedule, "RACE_MARGIN", None):
        old = pick(e)
    print("CHANGED" if old != new else "same   ", e, flush=True)
