"""Write the CUDA dpl generates for each suite case, to check that a change leaves it alone.

    python bench/snapshot_cuda.py OUT_DIR [--cases PATTERN]    # one OUT_DIR/<case>.cu per case
    diff -r BEFORE_DIR AFTER_DIR                               # byte-identical, or what changed

Runs on the CPU (no GPU needed): each case is built on the CPU and compiled by dpl to CUDA
source only (nothing is compiled by NVRTC or run).
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

from dpl.bench import suite
from dpl.driver.compile import compile_program
from dpl.frontend import capture


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="directory for <case>.cu")
    p.add_argument("--cases", help="comma-separated regexes over suite case names (default: all)")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    suite.DEV = "cpu"  # the cases build their inputs on suite.DEV
    for case in suite.select(args.cases):
        torch.manual_seed(0)
        fn, inputs = case.make()
        prog = capture(fn, *inputs, dtype=torch.float32)
        source = compile_program(prog).cuda
        with open(os.path.join(args.out, case.name + ".cu"), "w") as f:
            f.write(source)
        print(f"{case.name}: {len(source)} bytes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
