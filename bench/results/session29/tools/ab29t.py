"""Session 29 (issue 13, device; not run: no device time was left): the suite's decoder layers
(bench/suite.py CASES matching PATTERN, default `_layer_`) on session 28's split rule (common29.old:
sparse splits only on a quarter of the SMs, nothing displaced weighed) against the tree, eager in
the same process. `cuda_snapshot.py` found TinyLlama's layer at seq 128 changed by section 1 (its
k/v projection split 32 ways rather than 8); this is the check the notes ask of the next session:

    python3 bench/results/session29/tools/ab29t.py [PATTERN [JSON]]"""
import sys
from typing import NamedTuple

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session29/tools")
import suite  # noqa: E402
from common29 import old  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402


class SuiteCase(NamedTuple):
    """A suite case as time_variants reads a sweep case (`name`, `build(device)`)."""

    name: str
    case: suite.Case

    def build(self, device: str):
        return self.case.make()


pattern = sys.argv[1] if len(sys.argv) > 1 else "_layer_"
cases = [SuiteCase(c.name, c) for c in suite.select(pattern)]
variants = {"old": old, "new": None}
rows = time_variants(cases, variants, "eager", 100.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, sys.argv[2] if len(sys.argv) > 2 else None)
