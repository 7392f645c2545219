#!/usr/bin/env bash
# call 3: variants (S chains, fast exp2, schedule) at seq 1024/2048; ncu of the base kernel
. scripts/gpu-env.sh
T=bench/results/session19/tools
V="s0=SCHED 0;s0c1=SCHED 0,SCHAIN 1;s0fx=SCHED 0,FASTEXP 1;s1c1fx=SCHED 1,SCHAIN 1,FASTEXP 1"
python3 $T/fwg.py --quick "--variants=$V" 2>&1 | tee $OUT/call3-fwg.txt
timeout 300 ncu --clock-control none --profile-from-start off --set full -o $OUT/call3-fwg python3 $T/fwg.py --ncu "--variants=s0=SCHED 0" > $OUT/call3-ncu-log.txt 2>&1
ncu --import $OUT/call3-fwg.ncu-rep --page details > $OUT/call3-ncu.txt 2>&1
ncu --import $OUT/call3-fwg.ncu-rep --page raw --csv --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warp_latency_issue_stalled_barrier,sm__cycles_elapsed.avg > $OUT/call3-ncu-raw.txt 2>&1
grep -i -E "Duration|Throughput|Registers|Stall|Pipe|Shared|Issue|Eligible|Warp Cycles" $OUT/call3-ncu.txt | head -60
