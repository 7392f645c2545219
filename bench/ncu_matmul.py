"""Run one matmul (y = x @ w.T, fp32) under a variant of bench/matmul_variants.py a few times, for
Nsight Compute to profile:

    ncu --clock-control none -k regex:k_linear -c 1 --section WarpStateStats ... \\
        python3 bench/ncu_matmul.py 512x3584x3584 pad4aip
"""

from __future__ import annotations

import sys

import torch

from matmul_variants import VARIANTS  # noqa: E402  (run from bench/ or with it on sys.path)

from dpl.driver.compile import compile as dpl_compile


def main() -> int:
    m, n, k = map(int, sys.argv[1].split("x"))
    x, w = torch.randn(1, m, k), torch.randn(n, k) / k**0.5
    c = dpl_compile(lambda x, w: torch.nn.functional.linear(x, w), x, w, pipeline=VARIANTS[sys.argv[2]])
    xg, wg = x.cuda(), w.cuda()
    for _ in range(3):
        c(xg, wg)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
