. scripts/gpu-env.sh
export XDG_CACHE_HOME=/tmp/cache1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 330 python3 .gpu/s12/att1.py 2>&1 | grep -v -i warn | tee $OUT/att1.txt
S="--clock-control none --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section SchedulerStats --section MemoryWorkloadAnalysis"
timeout 60 ncu $S -k regex:k_ --launch-count 1 python3 .gpu/s12/sdpa1.py 2048 > $OUT/ncu-sdpa2048.txt 2>&1; tail -5 $OUT/ncu-sdpa2048.txt
for c in 13:matmul_tn_613x665x64 16:matmul_tn_64x3389x137 0:matmul_tt_512x2741x79 15:bmm_tn_b27_149x139x79; do
  timeout 60 ncu $S -k regex:"k_|gemm|Kernel2" --launch-count 2 python3 .gpu/s12/one.py $c > $OUT/ncu-$c.txt 2>&1; echo "$c $?"
done
