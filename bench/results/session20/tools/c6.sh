#!/usr/bin/env bash
# call 6: ncu on the channel RMSNorm of 32 x 256 x 56 x 56 (0.74x torch.compile) and the tt bmm
# of seed 0 (0.80x eager), beside eager's kernels
. scripts/gpu-env.sh
M=""
for r in long_scoreboard short_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected lg_throttle no_instruction selected; do M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M=${M#,}
for n in rmsnorm_c_32x256x56x56; do
  timeout 150 ncu --clock-control none --profile-from-start off --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis --metrics $M,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum python3 bench/results/session20/tools/prof20.py 0 $n > $OUT/call6-ncu_$n.txt 2>&1
  echo "== ncu $n rc=$?"
  grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|dram__bytes|inst_executed|No Eligible|Issued Warp|Block Size|Grid Size|Waves Per|stalled_(long|short|barrier|mio|math|wait|not_sel|lg|no_instr)" $OUT/call6-ncu_$n.txt | grep -v "^==PROF" | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{$1=$1};1' | head -60
done
