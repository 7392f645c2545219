"""Session 48 (device): the radix top-k's digit width (`aten.TOPK_RADIX_BITS`) on CenterNet's top
100 of 16 x 1310720, and on two other long rows the default way (blocks) against the radix
forced at each width: each compiled, checked against torch.topk (values and indices equal) and
timed by the harness (CUDA-graph replays) beside eager:

    python3 bench/results/session48/tools/topk48b.py [BITS,...]"""
import sys
import time

import torch

from dpl.bench import harness as B
from dpl.driver.compile import compile as dc
from dpl.frontend import aten

widths = [int(b) for b in (sys.argv[1] if len(sys.argv) > 1 else "1,2,4").split(",")]
default_way = aten._topk_way
cases = [((16, 1310720), 100, True), ((4, 1000000), 50, False), ((64, 65536), 64, True)]
for shape, k, largest in cases:
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0)).cuda()
    f = lambda x, k=k, largest=largest: x.topk(k, largest=largest)  # noqa: E731
    rv, ri = f(x)
    radix = default_way(shape[0], shape[1], k, 32) == "radix"
    for bits in widths if radix else [0, *widths]:
        aten.TOPK_RADIX_BITS = max(bits, 1)
        aten._topk_way = default_way if bits == 0 else (lambda *a: "radix")
        t = time.time()
        c = dc(f, x, tune_cache=False)
        comp = time.time() - t
        v, i = c(x)
        same = torch.equal(v, rv) and torch.equal(i, ri)
        r = B.benchmark(f"topk{k} {shape} b{bits}", f, (x,), dpl=c, modes=("eager",), target_ms=20.0, check=False)
        med = {m: r["variants"][m].get("median_ms") for m in r["variants"]}
        print(f"{shape} k={k} largest={largest} bits={bits}: compile {comp:.1f} s, {c.num_kernels} kernels, "
              f"equal {same}, dpl {med.get('dpl'):.4f} ms, eager {med.get('eager'):.4f} ms", flush=True)
