"""Session 27's device tools' shared parts: the sweep cases a listing names, and fuse-loops'
max-column-reduce patched in every IR pipeline."""
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.transforms import pipelines  # noqa: E402


def cases_of(listing: str, limit: int = 10**9) -> list:
    """The sweep cases of the lines `seed name ...` of `listing` (the first `limit`)."""
    found = [(int(s), n) for s, n, *_ in (line.split() for line in open(listing))][:limit]
    by_seed: dict[int, dict] = {}
    cases = []
    for s, n in found:
        if s not in by_seed:
            by_seed[s] = {c.name: c for c in sweep.all_cases(seed=s)}
        cases.append(by_seed[s][n])
    return cases


@contextmanager
def fuse_reach(n: int):
    """Every IR pipeline with fuse-loops{max-column-reduce=n} for the block."""
    old = dict(pipelines.IR_PIPELINES)
    for k, v in old.items():
        pipelines.IR_PIPELINES[k] = v.replace("fuse-loops,", f"fuse-loops{{max-column-reduce={n}}},")
    try:
        yield
    finally:
        pipelines.IR_PIPELINES.update(old)
