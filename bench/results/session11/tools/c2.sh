. scripts/gpu-env.sh
BUDGET_S=530 timeout 575 python3 .gpu/cands3.py "$(cat .gpu/setB.txt)" > $OUT/data1.jsonl 2> $OUT/data1.err
wc -l $OUT/data1.jsonl; tail -3 $OUT/data1.err | cut -c1-300; tail -1 $OUT/data1.jsonl | cut -c1-200
