"""SDPA through dpl's flash kernel against PyTorch eager (fp32 SDPA: its memory-efficient kernel;
flash-attention proper needs fp16/bf16) and torch.compile, on the GPU: 32 heads, seq
128/512/2048/4096 (batch 8/4/2/1), head dim 64/128, causal and not. Each row: dpl's kernel count
(1: the flash kernel was taken), median ms of dpl / eager / torch.compile (CUDA graphs, bench/
harness.gpu_time), dpl's speed-up over eager, and the relative error against float64 of dpl and
eager. Runs in about 2 minutes on an H100; torch.compile is left out ("-") past 150 s.

    python3 bench/attention.py            # the whole table
    python3 bench/attention.py --quick    # seq 128 and 512 only
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
import torch.nn.functional as F

from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile

SHAPES = [(8, 128), (4, 512), (2, 2048), (1, 4096)]
HEADS = 32


class Sdpa(torch.nn.Module):
    def __init__(self, causal: bool):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)


def rel(a: torch.Tensor, ref: torch.Tensor) -> float:
    return float((a.double() - ref).norm() / ref.norm())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="seq 128 and 512 only")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("bench/attention.py: needs an NVIDIA GPU", file=sys.stderr)
        return 1
    start = time.time()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, heads {HEADS}")
    print(f"{'batch':>5} {'seq':>5} {'d':>4} {'causal':>6} {'kern':>4} {'dpl ms':>8} {'eager ms':>8} "
          f"{'tc ms':>8} {'x eager':>7} {'err dpl':>8} {'err eager':>9}")  # fmt: skip
    failed = 0
    shapes = SHAPES[:2] if args.quick else SHAPES
    for b, seq in shapes:
        for d in (64, 128):
            for causal in (False, True):
                mod = Sdpa(causal)
                g = torch.Generator().manual_seed(seq + d)
                xs = [torch.randn(b, HEADS, seq, d, generator=g) for _ in range(3)]
                gs = [x.cuda() for x in xs]
                ref = mod(*(x.double() for x in gs))
                row = f"{b:>5} {seq:>5} {d:>4} {str(causal):>6}"
                try:
                    c = dpl_compile(mod, *xs)
                    out = c(*gs, poison=True)
                    err = rel(out, ref)
                    ms = gpu_time(c, [gs])["median_ms"]
                    kern = c.num_kernels
                except Exception as e:  # noqa: BLE001 - one line per failed case, go on
                    print(f"{row} dpl failed: {str(e).splitlines()[0][:120]}", flush=True)
                    failed += 1
                    continue
                eager_err = rel(mod(*gs), ref)
                eager_ms = gpu_time(mod, [gs])["median_ms"]
                tc = "-"
                if time.time() - start < 150:
                    torch._dynamo.reset()
                    comp = torch.compile(mod, dynamic=False)
                    comp(*gs)
                    tc = f"{gpu_time(comp, [gs])['median_ms']:8.3f}"
                del ref
                print(f"{row} {kern:>4} {ms:8.3f} {eager_ms:8.3f} {tc:>8} {eager_ms / ms:7.2f} "
                      f"{err:8.1e} {eager_err:9.1e}", flush=True)  # fmt: skip
                if kern != 1 or err > max(2 * eager_err, 2e-6):
                    failed += 1
    print(f"# {time.time() - start:.0f} s; {failed} case(s) failed (more than one kernel, or an error "
          "over 2x eager's)")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
