"""Session 40 (issue 13, device): the sixth batch of ordinary programs (ordinary40.py) against
eager and torch.compile in the same process (`bench/batch.py`'s ab):

    python3 bench/results/session40/tools/ab40.py [--cases REGEX] [--eager-only] [JSON]"""
import sys

sys.path.insert(0, "bench/results/session40/tools")
from ordinary40 import CASES  # noqa: E402
from dpl.bench.batch import main  # noqa: E402

main(CASES, ["ab", *sys.argv[1:]])
