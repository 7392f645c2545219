#!/usr/bin/env bash
# call 3 (the code as landed): the canary; transposed convolutions by phases with the weight
# read as rows (a31aca4) against eager and torch.compile; racecheck and synccheck of this
# session's changes (memcheck ran in call 1), memcheck again for the new weight layout; per-kernel
# times of scans (cummin 0.36x eager in session 43)
. scripts/gpu-env.sh
T=bench/results/session44/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
timeout 150 python3 $T/convt44.py --variants phases $OUT/call3-convt44.json > $OUT/call3-convt44.txt 2>&1; echo "convt44 rc=$?"
grep -v Warning $OUT/call3-convt44.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9]+ |geomean" | tail -11
for e in "torch.nn.ConvTranspose2d(128, 64, 4, 2, 1)(torch.randn(4, 128, 32, 32))" \
         "torch.cummin(torch.randn(64, 8192), 1)[0]" \
         "torch.cumsum(torch.randn(64, 8192), 1)"; do
  echo "== $e"; timeout 50 python3 -c "from dpl.tools.dpl import main; main()" run -c "$e" --bench --profile --modes eager,compile 2>&1 | grep -v -i warn | tail -14
done > $OUT/call3-profile.txt; cat $OUT/call3-profile.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 80 "$cs" --tool $tool $extra --print-limit 20 python3 $T/sanitize44.py > $OUT/call3-$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call3-$tool.txt | tail -7
done
