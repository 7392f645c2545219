. scripts/gpu-env.sh
export SWEEP_DIR=$PWD/bench
A="$(cat .gpu/m2moved.txt)"
timeout 170 .gpu/br.sh base python3 $PWD/.gpu/abcases.py "$A" --eager > $OUT/ab3_base.jsonl 2>$OUT/ab3_base.err
timeout 150 python3 .gpu/abcases.py "$A" > $OUT/ab3_m2.jsonl 2>$OUT/ab3_m2.err
timeout 150 .gpu/br.sh base python3 $PWD/.gpu/abcases.py "$A" > $OUT/ab3_base2.jsonl 2>$OUT/ab3_base2.err
timeout 120 python3 .gpu/abcases.py "$A" > $OUT/ab3_m2b.jsonl 2>$OUT/ab3_m2b.err
tail -n 2 $OUT/*.err | grep -v -i warn
python3 - <<'PY'
import json, math, os
O=os.environ["OUT"]
def load(f):
    d={}
    for l in open(f"{O}/{f}"):
        if l.startswith("{"):
            r=json.loads(l); d[r["case"]]=r
    return d
b,n,b2,n2=(load(f) for f in ("ab3_base.jsonl","ab3_m2.jsonl","ab3_base2.jsonl","ab3_m2b.jsonl"))
rat=[]
for c in b:
    ts=[x.get(c,{}).get("dpl_ms") for x in (b,n,b2,n2)]
    if None in ts[:2]: print(c, "missing", ts, n.get(c,{}).get("error")); continue
    bb=min(t for t in (ts[0],ts[2]) if t); nn=min(t for t in (ts[1],ts[3]) if t)
    r=bb/nn; rat.append(r); e=b[c].get("eager_ms")
    print(f"{c:42s} base {ts[0]*1e3:7.1f} {(ts[2] or 0)*1e3:7.1f}  m2 {ts[1]*1e3:7.1f} {(ts[3] or 0)*1e3:7.1f}  x{r:.2f}  eager {e*1e3:7.1f} m2/eager {e/nn:.2f} base/eager {e/bb:.2f} err {n[c].get('err')}")
print("geomean m2 over base (best of two each)", math.exp(sum(map(math.log,rat))/len(rat)), len(rat), "faster>5%", sum(r>1.05 for r in rat), "slower>5%", sum(r<0.95 for r in rat))
PY
