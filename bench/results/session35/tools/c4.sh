#!/usr/bin/env bash
# call 4: Nsight Compute on the 1x1 convolution whose wgmma kernel reads x N-major (PointNet's
# 128 -> 1024 over 32 x 2048 points, 902 us) and the same product with x K-major (a linear over
# 65536 rows, 378 us): where the N-major one loses its time
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
for c in pn_conv1d_128to1024 lin_128to1024_65536 r50_1x1_256to64; do
  timeout 150 $NCU --clock-control none -k regex:k_ -c 1 --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    python3 $T/ncu35.py $c > $OUT/call4-ncu-$c.txt 2>&1
  echo "== $c rc=$?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Compute \(SM\)|Achieved Occupancy|Stall|Warp Cycles Per Issued|Registers Per|Block Limit|Dynamic Shared|Mem Busy|Max Bandwidth|Issued Warp" $OUT/call4-ncu-$c.txt | head -30
done
