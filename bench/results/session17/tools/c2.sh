. scripts/gpu-env.sh
BUDGET_S=430 timeout 520 python3 .gpu/s17/rows_ab.py 2>&1 | grep -v -i warn
