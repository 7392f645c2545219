"""The current code's picks on the call-3 A/B programs, timed where they equal the old or the
call-3 picks (no GPU): python3 .gpu/replay3.py DEV3DIR"""
import ast, logging, os, re, sys, io, math, dataclasses
sys.path.insert(0, ".gpu"); sys.path.insert(0, "bench")
import torch
from shortk import case_of
logging.disable(logging.NOTSET)
from dpl.frontend import capture
from dpl.driver.compile import lower
buf = io.StringIO(); h = logging.StreamHandler(buf); lg = logging.getLogger("dpl.passes"); lg.addHandler(h); lg.setLevel(logging.INFO)
d = sys.argv[1]
moved = {}
for l in open(os.path.join(d, "moved.txt")):
    if " MOVED " in l:
        spec = l.split()[0]
        moved[spec] = (ast.literal_eval(re.search(r"old=(\[.*?\]) new=", l)[1]), ast.literal_eval(re.search(r"new=(\[.*\])", l)[1]))
rs, unk = [], []
for l in open(os.path.join(d, "abk.txt")):
    m = re.match(r"(\S+)\s+eager\s+([\d.]+) old\s+([\d.]+)/\s*([\d.]+) .*? new\s+([\d.]+)", l)
    if not m or m[1] not in moved: continue
    spec = m[1]; e, to, tn = float(m[2]), min(float(m[3]), float(m[4])), float(m[5])
    fn, inputs = case_of(spec).build("meta")
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    now = [tuple(x) for x in re.findall(r"schedule: @(\S+) is matmul, (.*?) \(modeled", buf.getvalue())]
    old, new3 = moved[spec]
    t = to if now == old else tn if now == new3 else None
    if t is None:
        unk.append(spec); print(f"{spec:36s} UNKNOWN now={now[-1][1]} old={old[-1][1]} c3={new3[-1][1]}", flush=True); continue
    rs.append((to / t, e / t, e / to, spec))
    print(f"{spec:36s} {'old' if now == old else 'c3 '} speed {to/t:.2f} x-eager {e/t:.2f} (old {e/to:.2f})", flush=True)
g = math.exp(sum(math.log(a) for a, *_ in rs) / len(rs))
print(f"{len(rs)} known: speed over old {g:.3f}, min {min(rs)[0]:.2f}; below 0.8x eager {sum(b < 0.8 for _, b, _, _ in rs)} (old {sum(c < 0.8 for *_, c, _ in rs)}); unknown {len(unk)}")
