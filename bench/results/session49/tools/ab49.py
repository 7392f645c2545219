"""Session 49 (device): the tenth batch of ordinary programs (ordinary49.py) against
eager and torch.compile in the same process (`dpl.bench.batch`'s ab):

    python3 bench/results/session49/tools/ab49.py [--cases REGEX] [JSON]"""
import sys

sys.path.insert(0, "bench/results/session49/tools")
from ordinary49 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["ab", *sys.argv[1:]])
