"""Session 44 (issue 13, device): programs of earlier batches by name against eager and
torch.compile in the same process, under fuse-loops' limit on copies of shared producers
(`limit`, max-copied-ops=32) or without it (`nolimit`, every shared producer copied as before):

    python3 bench/results/session44/tools/ab44.py [--cases REGEX] [--variants limit,nolimit] [--eager-only] [JSON]"""
import importlib
import re
import sys

from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.loop import fuse_loops as FL  # noqa: E402

BATCHES = [(32, "ordinary32"), (33, "ordinary33"), (33, "ordinary33b"), (34, "ordinary34"), (34, "ordinary34b"),
           (38, "ordinary38"), (40, "ordinary40"), (42, "ordinary42"), (43, "ordinary43")]
VARIANTS = {
    "limit": None,
    # every kernel's iteration space taken as unbounded: no copy is over the limit
    "nolimit": lambda: patched(FL, "iterations", lambda kernel: 1 << 62),
}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["limit"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--variants")]
modes = ("eager",) if "--eager-only" in args else ("eager", "compile")
cases, seen = [], set()
for session, module in BATCHES:
    sys.path.insert(0, f"bench/results/session{session}/tools")
    for c in importlib.import_module(module).CASES:
        if c.name not in seen and re.search(pat, c.name):
            seen.add(c.name)
            cases.append(c)
rows = time_variants(cases, {k: VARIANTS[k] for k in names}, "eager", 20.0, 34, modes=modes)
report(rows, names, "eager", 34, rest[0] if rest else None)
if "compile" in modes:
    report(rows, names, "compile", 34, None)
