"""Session 47 (device): per-kernel times of the eighth batch's slow cases (`bench/batch.py`'s prof):

    python3 bench/results/session47/tools/prof47.py [REGEX]"""
import sys

sys.path.insert(0, "bench/results/session47/tools")
from ordinary47 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["prof", *sys.argv[1:]])
