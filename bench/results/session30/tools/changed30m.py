"""Session 30 (issue 13, host): the sweep programs whose CUDA common30m.select_loads changes
(classes as given), for the A/B of call 4:

    python bench/results/session30/tools/changed30m.py SEEDS [CLASSES] > LIST"""
import sys

import torch

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session30/tools")
import sweep  # noqa: E402
from common30m import select_loads  # noqa: E402
from dpl.backend.cuda_printer import print_cuda  # noqa: E402
from dpl.driver.compile import lower  # noqa: E402
from dpl.driver.tuned import Tuning  # noqa: E402
from dpl.frontend import capture  # noqa: E402

if __name__ == "__main__":
    classes = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    seen: set[str] = set()
    for seed in [int(s) for s in sys.argv[1].split(",")]:
        for c in sweep.all_cases(seed=seed, classes=classes):
            if c.name in seen:
                continue
            seen.add(c.name)
            fn, inputs = c.build("meta")
            m, _ = lower(capture(fn, *inputs, dtype=torch.float32), tuning=Tuning.default(False))
            old = print_cuda(m)
            with select_loads():
                new = print_cuda(m)
            if old != new:
                print(seed, c.name, c.cls, flush=True)
