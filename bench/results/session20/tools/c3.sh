#!/usr/bin/env bash
# call 3: the reverted tree's attention GPU tests; `dpl tune` on the sweep's slowest programs and
# on causal SDPA at seq 1024 (how far the schedule space's best is from the default pick)
. scripts/gpu-env.sh
python3 -m pytest -q -m gpu tests/test_attention.py tests/test_mma_gpu.py 2>&1 | tail -2 | tee $OUT/call3-pytest.txt
for e in "torch.bmm(torch.randn(21,101,25).transpose(1,2), torch.randn(21,1381,101).transpose(1,2))" \
         "torch.randn(4544,271) @ torch.randn(239,271).t()" \
         "torch.randn(79,512).t() @ torch.randn(2741,79).t()" \
         "torch.randn(3079,257) @ torch.randn(257,4081)" \
         "torch.nn.functional.scaled_dot_product_attention(torch.randn(1,28,1024,128), torch.randn(1,28,1024,128), torch.randn(1,28,1024,128), is_causal=True)"; do
  echo "== $e" | tee -a $OUT/call3-tune.txt
  timeout 110 python3 -m dpl.tools.dpl tune -c "$e" --budget-s 75 --trials 32 2>&1 | grep -v "^\s*$" | tail -8 | tee -a $OUT/call3-tune.txt
done
