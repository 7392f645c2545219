"""Session 27 (issue 13, device): short packed rows (4-32 elements, many rows) on the fewest
lanes whose lane slots tie the fewest (more elements a thread, more loads in flight) against the
tree's most (a row of 8 on 8 lanes, one element a thread), over the sweep programs of seeds 0
and 41-130 with such rows (shortrows.txt), eager and torch.compile in the same process:

    python3 bench/results/session27/tools/ab27r.py LIST [JSON]"""
import sys

sys.path.insert(0, "bench/results/session27/tools")
from common27 import cases_of  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch as bl  # noqa: E402


def fewest_row_lanes(n: int, rows: int, sms: int) -> int:
    """bl.row_lanes with the fewest lanes, not the most, among those within the slack."""
    if n > bl.EIGHT_LANE_ROW_MAX:
        return tree_row_lanes(n, rows, sms)
    fill = bl.FILL_WAVES * sms * bl.SM_THREADS
    choices = [lanes for lanes in (2, 4, 8)
               if (n == lanes or 2 <= -(-n // lanes) <= bl.SHORT_ROW_PASSES) and rows * lanes >= fill]  # fmt: skip
    if not choices:
        return 8
    slots = {lanes: -(-n // lanes) * lanes for lanes in choices}
    least = min(slots.values())
    return min(lanes for lanes, s in slots.items() if s <= least * bl.ROW_SLOTS_SLACK)


tree_row_lanes = bl.row_lanes
listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing)
variants = {"most": None, "fewest": lambda: patched(bl, "row_lanes", fewest_row_lanes)}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, list(variants), "eager", 34, out)
report(rows, list(variants), "compile", 34, None)
