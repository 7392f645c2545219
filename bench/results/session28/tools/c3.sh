#!/usr/bin/env bash
# call 3: float atomic max/min as one integer atomic against the CAS loops (ab28a.py), the
# exactness GPU test of them, and permute-register-tile's short-k 32 against 64 (ab28k.py)
. scripts/gpu-env.sh
D=bench/results/session28
timeout 100 python3 -m pytest -q -m gpu tests/test_atomic_gpu.py > $OUT/call3-atomic-test.txt 2>&1
echo "atomic test rc=$?"; tail -3 $OUT/call3-atomic-test.txt
timeout 300 python3 $D/tools/ab28a.py $D/atomicchanged.txt $OUT/call3-atomic.json > $OUT/call3-atomic.txt 2>&1
echo "ab atomic rc=$?"; grep geomean $OUT/call3-atomic.txt
timeout 170 python3 $D/tools/ab28k.py $D/shortkchanged.txt $OUT/call3-shortk.json 32 > $OUT/call3-shortk.txt 2>&1
echo "ab shortk rc=$?"; grep geomean $OUT/call3-shortk.txt
