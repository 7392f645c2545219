"""Local: which column-like sweep cases (reduce / norm / softmax, not over the last dim) change
their tile IR under column-trips=64 (against 0)."""
import sys
sys.path.insert(0, "bench")
import sweep
from dpl.frontend import capture
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule_classes as SC
from dpl.dialects import tile

NEW = SC.PIPELINES["row reduction"]
OLD = NEW.replace("column-trips=64", "column-trips=0")
seen = set()
for s in [int(a) for a in sys.argv[1].split(",")]:
    for c in sweep.all_cases(seed=s):
        if c.cls not in ("reduce", "norm", "softmax") or c.name in seen or "_d-1" in c.name:
            continue
        seen.add(c.name)
        fn, inputs = c.build("meta")
        try:
            prog = capture(fn, *inputs)
        except Exception as e:
            print(s, c.name, "capture failed", str(e)[:80]); continue
        lanes = {}
        for label, pipe in (("old", OLD), ("new", NEW)):
            SC.PIPELINES["row reduction"] = pipe
            m = prog.module.clone()
            run_pipeline(m, IR_PIPELINES["tile"])
            lanes[label] = [(k.sym_name.data, [e for v, e, kd in k.tile.axes if kd == tile.AxisKind.THREAD])
                            for k in m.walk() if isinstance(k, tile.KernelOp)]
        SC.PIPELINES["row reduction"] = NEW
        if lanes["old"] != lanes["new"]:
            print(s, c.name, c.shapes, lanes["old"], "->", lanes["new"], flush=True)
