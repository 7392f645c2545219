"""The schedule's pick per matmul kernel of sweep cases: python picks.py "seed:name ..." > out"""
import logging, os, re, sys
sys.path.insert(0, os.environ.get("SWEEP_DIR", "bench"))
import torch, sweep
from dpl.driver.compile import compile_program
from dpl.frontend import capture
h = sweep._Records(); lg = logging.getLogger("dpl.passes"); lg.addHandler(h); lg.setLevel(logging.INFO)
by = {}
for spec in sys.argv[1].split():
    seed, name = spec.split(":")
    if seed not in by:
        by[seed] = {c.name: c for c in sweep.all_cases(int(seed))}
    h.lines.clear()
    fn, inputs = by[seed][name].build("meta")
    compile_program(capture(fn, *inputs, dtype=torch.float32))
    picks = {}
    for ln in h.lines:
        m = re.match(r"schedule: @(\S+) is matmul, ([^(]+?) \(modeled", ln)
        if m:
            picks[m.group(1)] = m.group(2)
    print(spec, "|", "; ".join(f"{k}: {v}" for k, v in picks.items()), flush=True)
