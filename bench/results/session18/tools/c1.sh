. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
M=""
for r in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected lg_throttle no_instruction dispatch_stall selected; do M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M=${M#,}
for p in "0 matmul_tt_512x2741x79" "0 bmm_tt_b21_25x1381x101" "0 sum_d1_64x4099x1021" "26 matmul_nt_4096x29x2503"; do
  set -- $p
  timeout 120 ncu --clock-control none --profile-from-start off --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --metrics $M python3 .gpu/s18/prof18.py $1 $2 > $OUT/ncu_$2.txt 2>&1
  echo "== ncu $2 rc=$?"
  grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Th|Memory Throughput|No Eligible|Issued Warp|Block Size|Grid Size|Waves Per|stalled_(long|short|barrier|mio|math|wait|not_sel|lg|no_instr)" $OUT/ncu_$2.txt | grep -v "^==PROF" | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{$1=$1};1' | head -70
done
timeout 330 python3 .gpu/s18/ab18.py default,repack=false,tensor-cores=true,tensor-cores=false 2>&1 | grep -v Warning | tee $OUT/ab18.txt | grep -v "^   "
