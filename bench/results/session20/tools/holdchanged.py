"""Host: which sweep programs (seeds in argv[1]; norm, softmax and reduce classes) hold a column
along a middle dim (hold-rows `at D`, session 20): their kernels' tile.hold ops as printed."""
import sys
sys.path.insert(0, "bench")
import sweep
from dpl.dialects import tile
from dpl.frontend import capture
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

seen = set()
for s in [int(a) for a in sys.argv[1].split(",")]:
    for c in sweep.all_cases(seed=s):
        if c.cls not in ("norm", "softmax", "reduce") or c.name in seen:
            continue
        seen.add(c.name)
        try:
            fn, inputs = c.build("meta")
            m = capture(fn.to("meta"), *inputs).module.clone()
            run_pipeline(m, IR_PIPELINES["tile"])
        except Exception as e:  # noqa: BLE001
            print(s, c.name, "failed:", str(e)[:100])
            continue
        held = [o for o in m.walk() if isinstance(o, tile.HoldOp) and o.dim is not None]
        if held:
            print(f"seed {s} {c.name}: " + "; ".join(f"{h.source.name_hint} {h.count} trips at {h.dim.data}" for h in held), flush=True)
print(f"{len(seen)} programs looked at")
