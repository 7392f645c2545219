. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 300 python3 .gpu/s18/kab18.py 2>&1 | grep -v Warning | tee $OUT/kab18.txt | grep -v "^   "
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,lts__t_sectors_srcunit_tex_op_read.sum
for p in "4099 256" "4099 1024" "1500 256" "1500 1024"; do
  set -- $p
  echo "== R=$1 block=$2"
  timeout 60 ncu --clock-control none --profile-from-start off --metrics $M python3 .gpu/s18/profcol.py $1 $2 2>&1 | grep -E "^\s+(gpu__|dram__|lts__|smsp__|sm__|l1tex__)" | awk '{$1=$1};1' | tee -a $OUT/ncu_col.txt
done
