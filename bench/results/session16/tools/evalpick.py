"""The schedule's picks on the cands programs, looked up in the measured candidates (no GPU).
python3 .gpu/evalpick.py CANDS.jsonl [pad64=X]"""
import json, logging, os, re, sys, io, math, collections
sys.path.insert(0, ".gpu"); sys.path.insert(0, "bench")
import torch
from shortk import case_of
logging.disable(logging.NOTSET)
from dpl.frontend import capture
from dpl.driver.compile import lower
import dpl.transforms.tile.schedule_mma as SM
buf = io.StringIO(); h = logging.StreamHandler(buf); lg = logging.getLogger("dpl.passes"); lg.addHandler(h); lg.setLevel(logging.INFO)
kv = dict(a.split("=") for a in sys.argv[2:])
import dataclasses
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
S.MATMUL_TILES = SC.MATMUL_TILES = tuple(dataclasses.replace(c, block_trips=float(kv.get(f"bt{c.rows}{c.cols}", c.block_trips))) for c in SC.MATMUL_TILES)
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(dict); eager = {}
for r in rows:
    if r.get("us") and not r.get("error"): by[(r["case"], r["kernel"])][r["label"]] = r["us"]; eager[r["case"]] = r["eager_us"]
def label(what):
    m = re.match(r"SIMT (\d+) x (\d+)(, split \d+)?$", what)
    if m: return [f"s{int(m[1])//16}{int(m[2])//16}" + ("" if m[3] else "u"), f"s{int(m[1])//16}{int(m[2])//16}"]
    m = re.match(r"wgmma (\d+) x (\d+) \(3xtf32(, padded)?\)(, split \d+)?$", what)
    if m: return [f"tc{m[1]}x{m[2]}"]
    return []
rs = []
for spec in dict.fromkeys(c for c, _ in by):
    fn, inputs = case_of(spec).build("meta")
    buf.seek(0); buf.truncate()
    lower(capture(fn, *inputs, dtype=torch.float32), verbose=False)
    got = dict(re.findall(r"schedule: @(\S+) is matmul, (.*?) \(modeled", buf.getvalue()))
    for (c, k), d in by.items():
        if c != spec: continue
        what = got.get(k, "?")
        labs = [l for l in label(what) if l in d]
        t = d[labs[0]] if labs else None
        if t is None and what == "operands repacked": t = None
        best = min(v for l, v in d.items() if l not in ("new", "old"))
        old = d.get("old")
        if t is None:
            print(f"{spec:34s} @{k:8s} pick {what:40s} UNMEASURED old {old}"); continue
        rs.append((old / t, eager[spec] / t, t / best))
        print(f"{spec:34s} @{k:8s} pick {what:40s} {t:6.1f} old {old:6.1f} best {best:6.1f} x-eager {eager[spec]/t:.2f} speed {old/t:.2f}", flush=True)
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(f"{kv}: {len(rs)} kernels: speed over old {g([a for a,_,_ in rs]):.3f} (min {min(a for a,_,_ in rs):.2f}), regret {g([c for _,_,c in rs]):.3f}, below 0.8x eager {sum(b < 0.8 for _,b,_ in rs)} (old: {sum(1 for (c,k),d in by.items() if eager[c]/d['old'] < 0.8)})")
