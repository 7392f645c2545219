. scripts/gpu-env.sh
export XDG_CACHE_HOME=/tmp/cache1
python3 .gpu/s12/nvrtcv.py .gpu/s12/flash_default.cu
nvcc -arch=sm_90 -cubin -Xptxas -v -o /tmp/k.cubin .gpu/s12/flash_default.cu 2>&1 | grep -i "regis\|spill"
python3 -c "import cuda.bindings, sys; print(cuda.bindings.__version__)"; pip list 2>/dev/null | grep -i nvrtc
S="--clock-control none --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section SchedulerStats --section MemoryWorkloadAnalysis"
for c in 13:matmul_tn_613x665x64 16:matmul_tn_64x3389x137 0:matmul_tt_512x2741x79 15:bmm_tn_b27_149x139x79; do
  timeout 60 ncu $S -k regex:"k_|gemm|Kernel2" --launch-count 2 python3 .gpu/s12/one.py $c > $OUT/ncu-${c/:/-}.txt 2>&1; echo "$c $?"
done
