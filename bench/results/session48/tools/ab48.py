"""Session 48 (issue 13, device): the ninth batch of ordinary programs (ordinary48.py) against
eager and torch.compile in the same process (`dpl.bench.batch`'s ab):

    python3 bench/results/session48/tools/ab48.py [--cases REGEX] [JSON]"""
import sys

sys.path.insert(0, "bench/results/session48/tools")
from ordinary48 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["ab", *sys.argv[1:]])
