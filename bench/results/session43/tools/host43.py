"""Session 43: every ordinary43 program compiled on the host (on the CPU device: buffers drawn at
random need values; nvcc), no GPU (`bench/batch.py`'s host):

    python3 bench/results/session43/tools/host43.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session43/tools")
from ordinary43 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["host", *sys.argv[1:]])
