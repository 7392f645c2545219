"""Session 49 (device): per-kernel times of the tenth batch's slow cases (`bench/batch.py`'s prof):

    python3 bench/results/session49/tools/prof49.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session49/tools")
from ordinary49 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["prof", *sys.argv[1:]])
