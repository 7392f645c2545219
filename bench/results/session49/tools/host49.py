"""Session 49: every ordinary49 program compiled on the host (CPU device; nvcc), no GPU:

    python3 bench/results/session49/tools/host49.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session49/tools")
from ordinary49 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["host", *sys.argv[1:]])
