. scripts/gpu-env.sh
timeout 200 python3 tests/test_frontend_ops_gpu.py > $OUT/frontend_ops_gpu.txt 2>&1; echo "frontend ops rc=$?"; tail -4 $OUT/frontend_ops_gpu.txt
python3 -c "import pytest" 2>/dev/null && timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hold_rows.py tests/test_norm_schedule.py 2>&1 | tail -4
