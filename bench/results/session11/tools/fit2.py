"""Fit the SIMT matmul model (and a TC scale) to measured points; evaluate picks on held-out kernels."""
import json, math, sys, zlib, collections
import torch
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
rows = [r for r in rows if r["model_us"] < 1e9 and len(r["tiles"]) == 1]
SMS = 132
import os
CENTER = float(os.environ.get("CENTER", 0.8))
CELLS = [16, 64, 8, 4]
BPS = {16: 3, 64: 1, 8: 4, 4: 5}
SM_THREADS = 2048

def pred(r, p):
    t = r["tiles"][0]
    if t["kind"] == "tc":
        us = t["us"] * (1.6 if t["element"] else 1.0)
        return p["tc_a"] * us + p["tc_b"]
    c = t["cells"]
    i = CELLS.index(c)
    at_once = max(1, min(BPS[c] * 256 // t["threads"], SM_THREADS // t["threads"]))
    at_once = min(at_once, max(1, t["fits"]))
    blocks = -(-t["blocks"] // SMS)
    full, rest = divmod(blocks, at_once)
    trip, lone = p["trip"][i], p["lone"][i]
    part = torch.maximum(lone, trip * rest / at_once) if rest else 0.0
    sm = full * trip + part
    trips = t["trips"] + (p["atomic"] if t["splits"] > 1 else 0.0)
    us = trips * sm * (p["elem"] if t["element"] else 1.0) + p["F"][i]
    if t["splits"] > 1:
        us = us + p["Lz"] + t["atomic_bytes"] / 3e6
    return us

def init():
    return {"trip": torch.tensor([2.62, 3.2, 2.45, 2.18]).log(), "lone": torch.tensor([2.62, 3.2, 1.88, 1.3]).log(),
            "F": torch.tensor([1.0, 1.0, 1.0, 1.0]).log(), "elem": torch.tensor(1.6).log(), "atomic": torch.tensor(1.0).log(),
            "Lz": torch.tensor(3.0).log(), "tc_a": torch.tensor(1.0).log(), "tc_b": torch.tensor(1.0).log()}

def fit(train, steps=300):
    q = {k: v.clone().requires_grad_(True) for k, v in init().items()}
    opt = torch.optim.Adam(q.values(), lr=0.08)
    for s in range(steps):
        p = {k: v.exp() for k, v in q.items()}
        res = collections.defaultdict(list)
        for r in train:
            res[key(r)].append(torch.log(pred(r, p)) - math.log(r["us"]))
        loss = 0
        for v in res.values():
            v = torch.stack(v)
            loss = loss + ((v - v.mean()) ** 2).sum() * CENTER + (v ** 2).sum() * (1 - CENTER)
        loss = loss / len(train)
        opt.zero_grad(); loss.backward(); opt.step()
    return {k: v.detach().exp() for k, v in q.items()}, float(loss) ** .5

def key(r): return (r["case"], r["kernel"])
def fold(r): return zlib.crc32(r["case"].encode()) % 2

def cand(r):
    p = r["point"]
    if p.get("tensor_cores"):
        return True
    return p["splits"] in (0, 1)

def evaluate(test, p, label):
    byk = collections.defaultdict(list)
    for r in test: byk[key(r)].append(r)
    ratios_new, ratios_def, ratios_old = [], [], []
    for k, rs in byk.items():
        d = [r for r in rs if r["default"]]
        if not d: continue
        cs = [r for r in rs if cand(r)]
        best = min(r["us"] for r in rs)
        pick = min(cs, key=lambda r: float(pred(r, p)))
        old = min(cs, key=lambda r: r["model_us"])
        ratios_new.append(d[0]["us"] / pick["us"]); ratios_old.append(d[0]["us"] / old["us"])
        ratios_def.append(d[0]["us"] / best)
        if abs(math.log(d[0]["us"] / pick["us"])) > 0.1:
            print(f"   {label} {k[0]:40s} default {d[0]['us']:7.1f} new {pick['us']:7.1f} best {best:7.1f} pick {pdesc(pick['point'])}")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"{label}: n {len(ratios_new)} default/newpick geomean {g(ratios_new):.3f} min {min(ratios_new):.2f}; default/oldmodel-ungated {g(ratios_old):.3f}; default/best {g(ratios_def):.3f}")

def pdesc(p):
    return f"tc{p['bm']}x{p['bn']}" if p.get("tensor_cores") else f"{p['rows']}x{p['cols']}/s{p['splits']}"

if __name__ == "__main__":
    for f in (0, 1):
        train = [r for r in rows if fold(r) != f]; test = [r for r in rows if fold(r) == f]
        p, rms = fit(train)
        print("fold", f, "train rms", round(rms, 3), {k: [round(x, 2) for x in v.reshape(-1).tolist()] for k, v in p.items()})
        tr = [(math.log(float(pred(r, p)) / r["us"])) for r in test]
        print("  test rms", round((sum(x * x for x in tr) / len(tr)) ** .5, 3))
        evaluate(test, p, f"fold{f}")
    p, rms = fit(rows)
    print("all rms", round(rms, 3), {k: [round(x, 3) for x in v.reshape(-1).tolist()] for k, v in p.items()})
    evaluate(rows, p, "all")
