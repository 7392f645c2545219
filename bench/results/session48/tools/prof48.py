"""Session 48 (device): per-kernel times of the ninth batch's slow cases (`bench/batch.py`'s prof):

    python3 bench/results/session48/tools/prof48.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session48/tools")
from ordinary48 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["prof", *sys.argv[1:]])
