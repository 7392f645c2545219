"""Session 26 (issue 13, host): the sweep matmul programs whose matmul kernel schedule's default
point is SIMT (no tensor cores), per seed: the programs whose SIMT times the H200 has not yet
measured against the tensor-core candidates.

    python bench/results/session26/tools/simtdefaults.py 0,41,...,61 > simtdefaults.txt
"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
import torch  # noqa: E402

from dpl.driver.tune import program_kernels  # noqa: E402
from dpl.frontend import capture  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"]):
        if c.name in seen:
            continue
        seen.add(c.name)
        fn, inputs = c.build("meta")
        for k in program_kernels(capture(fn, *inputs, dtype=torch.float32).module):
            if k.cls == "matmul" and not k.default.get("tensor_cores", False):
                print(seed, c.name, k.default, flush=True)
