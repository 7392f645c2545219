. scripts/gpu-env.sh
export XDG_CACHE_HOME=/tmp/cache3
timeout 200 python3 -m pytest -q -m gpu tests/test_tune_gpu.py tests/test_repack_gpu.py 2>&1 | tail -3
T() { echo "== $1"; timeout $2 python3 -m dpl.tools.dpl tune -c "$1" --trials $3 --budget-s $4 2>&1 | grep -v -i "warn" | tail -8; }
T "torch.bmm(torch.randn(3,1023,4099), torch.randn(3,1025,4099).transpose(1,2))" 150 8 90
T "torch.relu(torch.nn.functional.linear(torch.randn(2679,201), torch.randn(64,201)))" 100 24 60
T "torch.randn(137,64).T @ torch.randn(137,3389)" 100 24 60
echo "== second run (cache)"; timeout 60 python3 -m dpl.tools.dpl tune -c "torch.randn(137,64).T @ torch.randn(137,3389)" --trials 24 --budget-s 60 2>&1 | tail -3
