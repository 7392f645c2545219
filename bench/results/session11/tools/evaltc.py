import json, math, collections
import os
D=os.environ.get('DATA', '.gpu/data') + '/'
rows=[json.loads(l) for f in ('f0.jsonl','f1.jsonl') for l in open(D+f)]
tc={ (r['case'],r['kernel'],json.dumps(r['point'],sort_keys=True)): r for f in ('t0.jsonl','t1.jsonl') for l in open(D+f) for r in [json.loads(l)]}
def pdesc(p): return f"tc{p['bm']}x{p['bn']}" if p.get("tensor_cores") else f"{p['rows']}x{p['cols']}/s{p['splits']}"
by=collections.defaultdict(list)
for r in rows: by[(r['case'],r['kernel'])].append(r)
def gated(rs):
    tcs=any(r["point"].get("tensor_cores") for r in rs)
    g=[r for r in rs if not r["point"].get("tensor_cores") and (r["point"]["rows"],r["point"]["cols"],r["point"]["splits"])==(4,4,1)]
    grid=g[0]["tiles"][0]["blocks"] if g else 10**9
    out=[]
    for r in rs:
        p=r["point"]
        if p.get("tensor_cores"): out.append(r); continue
        if p["splits"] not in (0,1): continue
        c=(p["rows"],p["cols"])
        if c==(4,2) and grid>13.2: continue
        if c==(2,2) and (tcs or grid>=132): continue
        out.append(r)
    return out
import itertools
for v, EF in itertools.product(("5.0","3.0","2.0","1.0","0.0"), (1.6, 1.3, 1.1, 1.0)):
    rat=[]
    for k,rs in by.items():
        cs=gated(rs)
        def m(r, v=v):
            if r["point"].get("tensor_cores"):
                t=tc[(r['case'],r['kernel'],json.dumps(r['point'],sort_keys=True))]['tiles'][0]
                return t['alt'][v]*(EF if t['element'] else 1.0)
            return r["model_us"]
        old=min(cs,key=lambda r:r["model_us"]); new=min(cs,key=m)
        rat.append(old["us"]/new["us"])
        if (v, EF) in (("5.0", 1.1), ("2.0", 1.6), ("0.0", 1.6)) and abs(math.log(old["us"]/new["us"]))>0.03:
            print(f"  {v} {k[0]:40s} old {pdesc(old['point']):9s} {old['us']:7.1f} new {pdesc(new['point']):9s} {new['us']:7.1f} x{old['us']/new['us']:.2f}")
    g=math.exp(sum(map(math.log,rat))/len(rat))
    print(v, EF, "geomean old/new", round(g,3), "min", round(min(rat),2), "moved", sum(abs(math.log(x))>0.03 for x in rat))
