"""Host: which sweep programs (seeds in argv[1]) and bench/suite.py programs change their
split_rows pick under UNSTAGED_ROW_FACTOR (against 1.0, before session 20): H200 figures
(132 SMs, 227 KiB of shared memory a block)."""
import sys
sys.path.insert(0, "bench")
import sweep
import suite
from dpl.bench.ab import patched
from dpl.dialects import loop
from dpl.frontend import capture
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule
from dpl.transforms.tile.schedule_classes import classify

SMS, SMEM = 132, 232448


def picks(fn, inputs):
    m = capture(fn, *inputs).module.clone()
    run_pipeline(m, IR_PIPELINES["loop"])
    out = []
    for k in [k for k in m.walk() if isinstance(k, loop.KernelOp)]:
        if classify(k) != "row reduction":
            continue
        new = schedule.split_rows(k, SMS, SMEM)
        with patched(schedule, "UNSTAGED_ROW_FACTOR", 1.0):
            old = schedule.split_rows(k, SMS, SMEM)
        out.append((k.sym_name.data, old[0], new[0], new[1]))
    return out


cases = [(f"seed {s}", c) for s in [int(a) for a in sys.argv[1].split(",")] for c in sweep.all_cases(seed=s)
         if c.cls in ("norm", "softmax", "reduce")]
seen = set()
for where, c in cases:
    if c.name in seen:
        continue
    seen.add(c.name)
    try:
        fn, inputs = c.build("meta")
        for name, old, new, why in picks(fn, inputs):
            if old != new:
                print(f"{where} {c.name} {name}: split {old} -> {new}{why}", flush=True)
    except Exception as e:  # noqa: BLE001
        print(where, c.name, "failed:", str(e)[:100])
print(f"{len(seen)} sweep programs looked at")
