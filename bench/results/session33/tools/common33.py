"""Session 33 (issue 13): variants of the tree for the A/Bs (`dpl.bench.ab`):
`select_limit(n)`: fuse-loops' max-select-reads set to n (a padded window's select fuses into a
reader that reads each padded value at most n times; 10**9: always, the tree before session 33)."""
from contextlib import contextmanager

from dpl.bench.ab import patched
from dpl.transforms.loop import fuse_loops


def select_limit(n: int):
    @contextmanager
    def within():
        old = fuse_loops.FuseLoops.__post_init__

        def post(self):
            old(self)
            object.__setattr__(self, "max_select_reads", n)

        with patched(fuse_loops.FuseLoops, "__post_init__", post):
            yield
    return within
