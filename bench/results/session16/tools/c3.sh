. scripts/gpu-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p /tmp/mv
for s in $(seq 0 26); do python3 .gpu/movedk.py $s > /tmp/mv/$s.txt 2>/dev/null & 
  if [ $((s % 14)) -eq 13 ]; then wait; fi; done; wait
cat /tmp/mv/*.txt > $OUT/moved.txt
grep -c . $OUT/moved.txt; grep -c MOVED $OUT/moved.txt
python3 - $OUT/moved.txt > /tmp/sample.txt <<'PY'
import sys, random
rows = [l.split()[0] for l in open(sys.argv[1]) if " MOVED " in l]
tc = [r for r, l in zip(rows, [l for l in open(sys.argv[1]) if " MOVED " in l]) if "wgmma" in l.split("new=")[1] and "wgmma" not in l.split("new=")[0]]
rest = [r for r in rows if r not in tc]
random.Random(0).shuffle(rest)
print(" ".join(tc + rest))
PY
BUDGET_S=330 timeout 400 python3 .gpu/abk.py suite:qwen2.5-7b_layer_s128 mm:4096:4096:96:nn 19:linear_amax_5056x89to2048 $(cat /tmp/sample.txt) 2>$OUT/abk.err | tee $OUT/abk.txt
echo rc=$?
tail -3 $OUT/abk.err
