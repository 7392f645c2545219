"""The schedule's picks and modeled candidates for specs (no GPU): python3 .gpu/pick.py SPEC.."""
import logging, os, re, sys, io
sys.path.insert(0, ".gpu"); sys.path.insert(0, "bench")
import torch
from shortk import case_of
logging.disable(logging.NOTSET)
from dpl.frontend import capture
from dpl.driver.compile import lower
buf = io.StringIO(); h = logging.StreamHandler(buf); lg = logging.getLogger("dpl.passes"); lg.addHandler(h); lg.setLevel(logging.INFO)
for spec in sys.argv[1:]:
    fn, inputs = case_of(spec).build("meta")
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    for name, what, modeled in re.findall(r"schedule: @(\S+) is matmul, (.*?) \(modeled (.*?us)\): ", buf.getvalue()):
        print(f"{spec} @{name} pick={what} :: {modeled}", flush=True)
