"""Session 34 (device): the suite's four decoder layers with this session's tree against the tree
whose contraction nests keep their unused index operands where no side collapses (the o_proj
then stayed off the tensor cores), and against eager, in one process. It patches
`collapse_matmul_axes.compact_accesses`, which the review merged into nest's
`drop_unused_indices` after the call: run it on 9123f8d, the tree it measured.

    python3 bench/results/session34/tools/ab34l.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import suite  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.loop import collapse_matmul_axes  # noqa: E402


class Case:
    def __init__(self, c):
        self.name, self._make = c.name, c.make

    def build(self, device):
        return self._make()


cases = [Case(c) for c in suite.CASES if "layer" in c.name]
variants = {"tree": None, "uncompacted": lambda: patched(collapse_matmul_axes, "compact_accesses", lambda top: None)}
rows = time_variants(cases, variants, "eager", 100.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
