"""Replay a matmul pick rule on session 11's measured candidates (no GPU): for each of the 80 kernels
of bench/results/session11's call-2 points (with `tools/feats.py`'s features: .gpu/data/f0.jsonl,
f1.jsonl), the point of least modeled time among those the rule lets the schedule try, before and
after "SIMT 64 x 32 is also tried where the tensor cores win on a small grid over a short K",
and the measured ratio. python3 evalq.py (from the repository root)"""
import json, math, collections, re
rows = [json.loads(l) for f in ("f0","f1") for l in open(f".gpu/data/{f}.jsonl")]
byk = collections.defaultdict(list)
for r in rows: byk[(r["case"], r["kernel"])].append(r)
def dims(case):
    n = case.split(":")[1]
    m = re.search(r"_b(\d+)_(\d+)x(\d+)x(\d+)", n) or re.search(r"_(\d+)x(\d+)x(\d+)$", n)
    g = [int(x) for x in m.groups()]
    return ([1] + g) if len(g) == 3 else g
def run(frac, label):
    out=[]; 
    for k, rs in byk.items():
        d = [r for r in rs if r["default"]]
        if not d: continue
        tcs = [r for r in rs if r["point"].get("tensor_cores")]
        g44 = [r for r in rs if not r["point"].get("tensor_cores") and (r["point"]["rows"],r["point"]["cols"])==(4,4) and r["point"]["splits"]==1]
        grid = g44[0]["tiles"][0]["blocks"] if g44 else 10**9
        try:
            b,M,N,K = dims(k[0])
        except Exception: b=None
        tcgrid = b*math.ceil(M/128)*math.ceil(N/128) if b else 10**9
        def ok(r, new):
            p=r["point"]
            if p.get("tensor_cores"): return True
            if p["splits"] not in (0,1): return False
            c=(p["rows"],p["cols"])
            if c==(8,8) and False: return False
            if c==(4,2):
                if grid <= 13.2: return True
                return new and tcs and tcgrid <= frac*132 and K <= KMAX
            if c==(2,2) and (tcs or grid>=132): return False
            return True
        old=min([r for r in rs if ok(r,False)], key=lambda r:r["model_us"])
        new=min([r for r in rs if ok(r,True)], key=lambda r:r["model_us"]) if old["point"].get("tensor_cores") else old
        best=min(r["us"] for r in rs)
        out.append((k[0], old["us"], new["us"], d[0]["us"], best))
        if abs(math.log(old["us"]/new["us"]))>0.02:
            print(f"  {label} {k[0]:40s} tcgrid {tcgrid:4d} old {old['us']:7.1f} new {new['us']:7.1f} x{old['us']/new['us']:.2f}  best {best:.1f}")
    g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
    print(label, len(out), "new/old speed geomean", round(g([o/n for _,o,n,_,_ in out]),3), "min", round(min(o/n for _,o,n,_,_ in out),2))
for KMAX in (512,1024,2048,10**9):
  for f in (0.25,): run(f, f"K{KMAX}frac{f}")