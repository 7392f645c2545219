"""Session 40 (device): per-kernel times of the sixth batch's slow cases, which kernels the time
goes to (`bench/batch.py`'s prof):

    python3 bench/results/session40/tools/prof40.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session40/tools")
from ordinary40 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["prof", *sys.argv[1:]])
