import os
import json, math, sys, collections, os
sys.argv = [sys.argv[0]] + sys.argv[1:]
import importlib.util
spec = importlib.util.spec_from_file_location("fit2", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fit2.py")); F = importlib.util.module_from_spec(spec)
sys_argv = sys.argv; sys.argv = ["x"] + [os.path.join(os.environ.get("DATA", ".gpu/data"), f) for f in ("f0.jsonl", "f1.jsonl")]; spec.loader.exec_module(F); sys.argv = sys_argv
import torch
rows = F.rows
def gated(rs, tc_in_space):
    g = [r for r in rs if not r["point"].get("tensor_cores") and r["point"]["rows"] == 4 and r["point"]["cols"] == 4 and r["point"]["splits"] == 1]
    grid = g[0]["tiles"][0]["blocks"] if g else 10**9
    out = []
    for r in rs:
        p = r["point"]
        if p.get("tensor_cores"): out.append(r); continue
        if p["splits"] not in (0, 1): continue
        c = (p["rows"], p["cols"])
        if c == (4, 2) and grid > 13.2: continue
        if c == (2, 2) and (tc_in_space or grid >= 132): continue
        out.append(r)
    return out
def run(p, label, test, tcfix):
    byk = collections.defaultdict(list)
    for r in test: byk[F.key(r)].append(r)
    rn, ro = [], []
    for k, rs in byk.items():
        d = [r for r in rs if r["default"]]
        if not d: continue
        tcs = any(r["point"].get("tensor_cores") for r in rs)
        cs = gated(rs, tcs)
        def m(r):
            if r["tiles"][0]["kind"] == "tc" and tcfix: return r["model_us"]
            return float(F.pred(r, p))
        pick = min(cs, key=m); old = min(cs, key=lambda r: r["model_us"])
        rn.append(d[0]["us"] / pick["us"]); ro.append(d[0]["us"] / old["us"])
        if abs(math.log(old["us"] / pick["us"])) > 0.05:
            print(f"  {label} {k[0]:40s} oldpick {F.pdesc(old['point']):9s} {old['us']:7.1f} new {F.pdesc(pick['point']):9s} {pick['us']:7.1f} x{old['us']/pick['us']:.2f}")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"{label}: n {len(rn)} new-vs-oldpick geomean {g([a/b for a,b in zip(rn,ro)]):.3f} min {min(a/b for a,b in zip(rn,ro)):.2f}  oldpick/default {g(ro):.3f}")
for f in (0, 1):
    train = [r for r in rows if F.fold(r) != f]; test = [r for r in rows if F.fold(r) == f]
    p, rms = F.fit(train)
    run(p, f"fold{f}-tcold", test, True)
    run(p, f"fold{f}-tcfit", test, False)
