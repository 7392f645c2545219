. scripts/gpu-env.sh
export SWEEP_DIR=$PWD/bench
A="$(cat .gpu/setA.txt)"
mkdir -p .gpu/br/base/.gpu
timeout 200 .gpu/br.sh base python3 $PWD/.gpu/abcases.py "$A" --eager > $OUT/ab_base.jsonl 2>$OUT/ab_base.err
timeout 170 python3 .gpu/abcases.py "$A" > $OUT/ab_new.jsonl 2>$OUT/ab_new.err
tail -2 $OUT/ab_base.err $OUT/ab_new.err | grep -v -i warn
timeout 150 python3 .gpu/cands.py "0:bmm_tt_b21_25x1381x101 13:matmul_tn_613x665x64 16:matmul_tn_64x3389x137 15:bmm_tn_b27_149x139x79 0:matmul_tt_512x2741x79 13:bmm_nn_b8_2807x241x41 14:matmul_nn_443x128x2339 16:bmm_tn_b16_16x2333x128" 2>&1 | grep -v -i warn | tee $OUT/cands.txt
timeout 60 python3 bench/mma_candidates.py --tiles "" --simt 4x4,4x4@64 --shapes 768x704x128,768x704x512 --out $OUT/x 2>&1 | grep "SIMT\|^##" | tee $OUT/fixed.txt
python3 - <<'PY'
import json
b={}; n={}
for f,d in (("ab_base.jsonl",b),("ab_new.jsonl",n)):
    for l in open(f"/root/out/{f}" if False else __import__("os").environ["OUT"]+"/"+f):
        if l.startswith("{"):
            r=json.loads(l); d[r["case"]]=r
import math
rat=[]
for c in b:
    if c in n and b[c].get("dpl_ms") and n[c].get("dpl_ms"):
        r=b[c]["dpl_ms"]/n[c]["dpl_ms"]; rat.append(r)
        e=b[c].get("eager_ms")
        print(f"{c:45s} base {b[c]['dpl_ms']*1e3:8.1f} new {n[c]['dpl_ms']*1e3:8.1f} us  x{r:.2f}  eager {e*1e3 if e else 0:8.1f}  new/eager {e/n[c]['dpl_ms'] if e else 0:.2f} base/eager {e/b[c]['dpl_ms'] if e else 0:.2f} {n[c].get('check')}")
print("geomean new over base", math.exp(sum(map(math.log,rat))/len(rat)), len(rat), "faster>5%", sum(r>1.05 for r in rat), "slower>5%", sum(r<0.95 for r in rat))
PY
