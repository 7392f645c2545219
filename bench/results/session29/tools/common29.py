"""Session 29's device tools' shared part: session 28's split rule (`old`), the tree before
section 1 of the notes, for the A/Bs against it (ab29s.py, ab29t.py)."""
from contextlib import ExitStack, contextmanager

from dpl.bench.ab import patched
from dpl.transforms.tile import schedule as S
from dpl.transforms.tile import split_matmul_k as smk


@contextmanager
def old():
    """Session 28's tree: sparse splits only where the launch is on at most a quarter of the
    SMs, and the schedule weighs no displaced count."""
    with ExitStack() as stack:
        stack.enter_context(patched(smk, "SPARSE_GRID", 4))
        stack.enter_context(patched(S, "_dense_splits", lambda block: 0))
        yield
