. scripts/gpu-env.sh
export XDG_CACHE_HOME=/tmp/cache5
timeout 200 python3 bench/suite.py --cases sdpa --modes eager,compile --out $OUT --budget-s 180 2>&1 | grep -v -i warn | tail -12
timeout 330 python3 bench/sweep.py --seed 21 --modes eager,compile --budget-s 300 --out $OUT 2>&1 | grep -v -i warn | tail -25
