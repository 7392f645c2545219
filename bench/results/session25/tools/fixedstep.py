"""Session 25 (issue 13): a variant of the tensor-core model (schedule_mma.mma_us) in which a
padded tile's fixed PADDED_BLOCK_STEPS per block cost what its masked K steps cost
(padded_step: 1.2 for element-wise stages) rather than unmasked ones. `variant()` is a context
manager for bench.ab; `python fixedstep.py SEEDS` lists the sweep matmuls whose tile IR it changes."""
import contextlib
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402
from dpl.dialects import mma  # noqa: E402
from dpl.transforms.tile import schedule, schedule_mma  # noqa: E402

own = schedule_mma.mma_us


def fixed_by_step(t, sms, smem):
    dot = next((o for o in t.walk() if isinstance(o, mma.DotOp)), None)
    if dot is None or not isinstance(dot.a.owner, mma.StageOp) or not isinstance(dot.b.owner, mma.StageOp):
        return own(t, sms, smem)
    base = schedule_mma.PADDED_BLOCK_STEPS
    schedule_mma.PADDED_BLOCK_STEPS = base * schedule_mma.padded_step(dot)
    try:
        return own(t, sms, smem)
    finally:
        schedule_mma.PADDED_BLOCK_STEPS = base


@contextlib.contextmanager
def variant():
    schedule.mma_us = schedule_mma.mma_us = fixed_by_step
    try:
        yield
    finally:
        schedule.mma_us = schedule_mma.mma_us = own


if __name__ == "__main__":
    seen: set[str] = set()
    for seed in [int(s) for s in sys.argv[1].split(",")]:
        cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
                 if c.name not in seen]
        seen.update(c.name for c in cases)
        for c in changed(cases, variant):
            print(seed, c.name, c.cls, flush=True)
