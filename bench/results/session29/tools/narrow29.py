"""Session 29 (issue 13, host and device): tensor-core tiles 32 wide where N is at most 32
(`narrow_n`: every wgmma candidate of such a matmul at bn = 32, not padded to 64 or more),
the sweep programs of N <= 32 it changes (`python narrow29.py SEEDS > LIST`), and their A/B
against the tree (`python narrow29.py --ab LIST [JSON]`). Call 5 ran it on the tree before
schedule_mma.NARROW_N, which now gives N < 32 these tiles itself (N = 32 stays 64 wide)."""
import re
import sys
from contextlib import contextmanager
from dataclasses import replace

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session28/tools")
import sweep  # noqa: E402
from common28 import cases_of  # noqa: E402
from dpl.bench.ab import changed, patched, report, time_variants  # noqa: E402
from dpl.dialects import tile  # noqa: E402
from dpl.transforms.tile import schedule as S  # noqa: E402
from dpl.transforms.tile.schedule_mma import mma_shape  # noqa: E402


@contextmanager
def narrow_n():
    """The schedule's tensor-core candidates of a wgmma matmul with N <= 32 at bn = 32."""
    orig = S.mma_candidates

    def wrapped(ctx, kernel, precision, target, sms, scratch):
        cands = orig(ctx, kernel, precision, target, sms, scratch)
        if isinstance(cands, str) or cands[0].layout != "wgmma":
            return cands
        block, _ = scratch(ctx, kernel, "tileify")
        (t,) = [op for op in block.walk() if isinstance(op, tile.TileOp)]
        shape = mma_shape(t)
        if isinstance(shape, str) or shape[1] > 32:
            return cands
        out = []
        for c in cands:
            if (c.bm, 32) not in [(o.bm, o.bn) for o in out]:
                out.append(replace(c, bn=32))
        return out

    with patched(S, "mma_candidates", wrapped):
        yield


def n_of(name: str) -> int | None:
    m = re.search(r"to(\d+)$", name) or re.search(r"x(\d+)x\d+$", name)
    return int(m.group(1)) if m else None


if __name__ == "__main__":
    if sys.argv[1] == "--ab":
        cases = cases_of(sys.argv[2])
        variants = {"tree": None, "narrow": narrow_n}
        rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
        report(rows, list(variants), "eager", 34, sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        seen: set[str] = set()
        for seed in [int(s) for s in sys.argv[1].split(",")]:
            cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
                     if c.name not in seen and (n_of(c.name) or 99) <= 32]  # fmt: skip
            seen.update(c.name for c in cases)
            for c in changed(cases, narrow_n):
                print(seed, c.name, c.cls, flush=True)
