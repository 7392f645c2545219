"""Session 30 (issue 13): the tree with this session's two changes undone, for the A/Bs
(`dpl.bench.ab` variants): `old_collapse` (collapse-pointwise keeps no leading axes), `old_chunk`
(split rows' variances read the row twice: no chunk-variance), `old` (both)."""
from contextlib import ExitStack, contextmanager

from dpl.bench.ab import patched
from dpl.transforms.tile import collapse_pointwise, order_blocks, schedule


@contextmanager
def old_collapse():
    with patched(collapse_pointwise, "_keep_leading", lambda *args: None):
        yield


@contextmanager
def old_chunk():
    with patched(schedule, "VARIANCE_CHUNK", 0):
        yield


@contextmanager
def chunk(n: int):
    """chunk-variance's max-chunk at `n` (the tree: schedule.VARIANCE_CHUNK)."""
    with patched(schedule, "VARIANCE_CHUNK", n):
        yield


@contextmanager
def old():
    with ExitStack() as stack:
        stack.enter_context(old_collapse())
        stack.enter_context(old_chunk())
        yield


@contextmanager
def old_order():
    """order-blocks leaving every tile as it is (the tree before it)."""
    with patched(order_blocks, "order_blocks", lambda t, min_bytes: "off"):
        yield
