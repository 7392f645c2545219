"""Session 29 (issue 13, host): the sweep matmul programs whose tile IR changes when the SIMT
pipeline lets split-matmul-k's sparse splits reach 128 x 128 tiles too (sparse-tile 4096 ->
16384; `big_sparse`, shared with ab29b.py):

    python bench/results/session29/tools/changed29.py 64,65,...  > bench/results/session29/bigchanged.txt"""
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import schedule_classes as sc  # noqa: E402


@contextmanager
def big_sparse():
    """The SIMT matmul pipeline with sparse-tile=16384 (128 x 128 tiles' 16384 elements)."""
    pipes = dict(sc.PIPELINES)
    pipes["matmul"] = pipes["matmul"].replace("sparse-tile=4096", "sparse-tile=16384")
    with patched(sc, "PIPELINES", pipes):
        yield


if __name__ == "__main__":
    seen: set[str] = set()
    for seed in [int(s) for s in sys.argv[1].split(",")]:
        cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
                 if c.name not in seen]  # fmt: skip
        seen.update(c.name for c in cases)
        for c in changed(cases, big_sparse):
            print(seed, c.name, c.cls, flush=True)
