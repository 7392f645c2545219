import os
import sys, math, collections, importlib.util, os
spec = importlib.util.spec_from_file_location("fit2", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fit2.py")); F = importlib.util.module_from_spec(spec)
sys.argv = ["x"] + [os.path.join(os.environ.get("DATA", ".gpu/data"), f) for f in ("f0.jsonl", "f1.jsonl")]; spec.loader.exec_module(F)
rows = F.rows
p, rms = F.fit(rows, steps=300)
print({k: [round(x, 2) for x in v.reshape(-1).tolist()] for k, v in p.items()})
g = collections.defaultdict(list)
for r in rows:
    t = r["tiles"][0]
    e = math.log(float(F.pred(r, p)) / r["us"])
    if t["kind"] == "tc":
        g[("tc", "el" if t["element"] else "al")].append(e); continue
    bps = t["blocks"] / 132
    b = "<0.25" if bps < .25 else "<1" if bps <= 1 else "<3" if bps <= 3 else "<8" if bps <= 8 else ">8"
    g[(t["cells"], "split" if t["splits"] > 1 else "one", b)].append(e)
    g[(t["cells"], "el" if t["element"] else "al")].append(e)
    g[("trips", "<=2" if t["trips"] <= 2 else "<=8" if t["trips"] <= 8 else "<=32" if t["trips"] <= 32 else ">32")].append(e)
for k in sorted(g, key=str):
    v = g[k]
    print(k, len(v), "mean", round(sum(v) / len(v), 2), "sd", round((sum((x - sum(v) / len(v)) ** 2 for x in v) / len(v)) ** .5, 2))
