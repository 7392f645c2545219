"""Session 48: every ordinary48 program compiled on the host (CPU device; nvcc), no GPU:

    python3 bench/results/session48/tools/host48.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session48/tools")
from ordinary48 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["host", *sys.argv[1:]])
