"""Session 43 (issue 13, device): the seventh batch of ordinary programs (ordinary43.py) against
eager and torch.compile in the same process, or fuse-loops' copy rule against copying every
shared producer as before (`copies`), on any sweep case by name from earlier batches too:

    python3 bench/results/session43/tools/ab43.py [--cases REGEX] [--variants rule,copies] [--earlier] [--eager-only] [JSON]"""
import importlib
import re
import sys

from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.loop import fuse_loops as FL  # noqa: E402

BATCHES = [(32, "ordinary32"), (33, "ordinary33"), (33, "ordinary33b"), (34, "ordinary34"), (34, "ordinary34b"),
           (38, "ordinary38"), (40, "ordinary40"), (42, "ordinary42"), (43, "ordinary43")]
VARIANTS = {
    "rule": None,
    "copies": lambda: patched(FL, "copy_reads", lambda producer: 0),
}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["rule"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--variants")]
modes = ("eager",) if "--eager-only" in args else ("eager", "compile")
cases, seen = [], set()
for session, module in BATCHES if "--earlier" in args else BATCHES[-1:]:
    sys.path.insert(0, f"bench/results/session{session}/tools")
    for c in importlib.import_module(module).CASES:
        if c.name not in seen and re.search(pat, c.name):
            seen.add(c.name)
            cases.append(c)
rows = time_variants(cases, {k: VARIANTS[k] for k in names}, "eager", 20.0, 34, modes=modes)
report(rows, names, "eager", 34, rest[0] if rest else None)
if "compile" in modes:
    report(rows, names, "compile", 34, None)
