"""Session 28 (host): the sweep programs whose CUDA folds floats by atomic max / min (the
printer's dpl_atomic_max / dpl_atomic_min), one `seed name class` line each:

    python bench/results/session28/tools/atomiclist28.py 0,41,...,130 > LIST"""
import sys

import torch

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.backend.cuda_printer import print_cuda  # noqa: E402
from dpl.driver.compile import lower  # noqa: E402
from dpl.frontend import capture  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    for c in sweep.all_cases(seed=seed, classes=["reduce", "linear_reduce", "norm", "softmax"]):
        if c.name in seen or not any(w in c.name for w in ("amax", "amin", "max", "min")):
            continue
        seen.add(c.name)
        fn, inputs = c.build("meta")
        module = lower(capture(fn, *inputs, dtype=torch.float32))[0]
        if "dpl_atomic_m" in print_cuda(module):
            print(seed, c.name, c.cls, flush=True)
