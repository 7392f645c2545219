#!/usr/bin/env bash
# call 2: three matmul cliffs (dpl's kernels and eager's) under Nsight Compute; unseen seed 68
# on the tree (every class)
. scripts/gpu-env.sh
D=bench/results/session28
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 200 $ncu --profile-from-start off --clock-control none --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
  python3 $D/tools/prof28.py > $OUT/call2-ncu.txt 2>&1
echo "ncu rc=$?"; grep -E "^  [a-z_]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|done" $OUT/call2-ncu.txt | head -120
timeout 200 python3 bench/sweep.py --seed 68 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s28-seed68.json --out $OUT > $OUT/call2-sweep68.txt 2>&1
echo "sweep 68 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call2-sweep68.txt
rm -f $OUT/*.png
