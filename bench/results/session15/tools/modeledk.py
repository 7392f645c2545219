"""The schedule's modeled candidates (MIN_K = 32) for the specs of shortk.py (no GPU)."""
import logging, os, re, sys, io
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, "bench")
import torch
from shortk import case_of
logging.disable(logging.NOTSET)
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule_mma as SM
buf = io.StringIO(); h = logging.StreamHandler(buf); logging.getLogger("dpl.passes").addHandler(h); logging.getLogger("dpl.passes").setLevel(logging.INFO)
SM.MIN_K = int(os.environ.get("MIN_K", 32))
for spec in sys.argv[1].split():
    case = case_of(spec)
    fn, inputs = case.build("meta")
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    for name, what, modeled in re.findall(r"schedule: @(\S+) is matmul, (.*?) \(modeled (.*?us)\): ", buf.getvalue()):
        print(f"{spec} @{name} pick={what} :: {modeled}", flush=True)
