. scripts/gpu-env.sh
BUDGET_S=420 timeout 500 python3 .gpu/s17/rows_ab.py 2>&1 | grep -v -i warn
