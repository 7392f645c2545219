"""Session 42: compile the long-row sorts on the host (nvcc), their kernels and compile times:

    python3 bench/results/session42/tools/host42.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session42/tools")
from ordinary42 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["host", *sys.argv[1:]])
