"""Session 47: every ordinary47 program compiled on the host (CPU device; nvcc), no GPU:

    python3 bench/results/session47/tools/host47.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session47/tools")
from ordinary47 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["host", *sys.argv[1:]])
