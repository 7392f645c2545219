#!/usr/bin/env bash
# call 2: the canary; this session's kernels under memcheck and racecheck; collapse-matmul-axes'
# prologue factors A/B on the programs it changes; GPU parity of the new frontend ops
. scripts/gpu-env.sh
T=bench/results/session38/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize38.py > $OUT/call2-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call2-memcheck.txt | tail -12
timeout 80 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize38.py > $OUT/call2-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call2-racecheck.txt | tail -4
timeout 60 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -p no:cacheprovider \
  -k "masked_scatter or bilinear or int_division or rrelu" > $OUT/call2-parity.txt 2>&1; echo "parity rc=$?"; tail -2 $OUT/call2-parity.txt
timeout 300 python3 $T/ab38b.py --eager-only --cases "^(rmsnorm_linear|layernorm_linear|scaled_linear|encoder_8x128|se_16x256|mbconv_8x40|tdecoder|encoder_layer|gcn_4096|mel_16x400|shuffle_unit|nerf|ssim|masked_conv|convlstm|tcn|srgan|coord_attn|weightnorm)" $OUT/call2-ab38b.json > $OUT/call2-ab38b.txt 2>&1; echo "ab38b rc=$?"
grep -v Warning $OUT/call2-ab38b.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean|^case" | tail -48
