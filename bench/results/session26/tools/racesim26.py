"""Session 26 (issue 13, host): how the schedule would pick between SIMT and the tensor cores on the
33 measured programs if both raced at their wave models: the tensor cores' pick (the old model's
tile unless the wave model finds one WAVE_MARGIN faster) at schedule_mma.wave_us, against each
SIMT tile (k-tile 32, split auto or unsplit) at the SIMT wave model fitted without the program
(fitsimt26.py); the measured time of the pick over the default's.

    python bench/results/session26/tools/racesim26.py"""
import collections
import json
import math
import sys

import torch

sys.path.insert(0, "bench/results/session26/tools")
import fitsimt26 as F  # noqa: E402

def margins(res, margins):
    """Per margin: the race's picks' measured time over the default's (geomean, worst, moved)."""
    for margin in margins:
        logs, moved = [], []
        for prog, d, tc, sm, p in res:
            pick = tc if tc["wave"] <= margin * p else sm
            logs.append(math.log(pick["us"] / d["us"]))
            if abs(logs[-1]) > 0.03:
                moved.append(f"{prog.split(':')[1][:22]} {pick['us'] / d['us']:.2f}")
        print(f"TC if wave <= {margin} x SIMT's: geomean {math.exp(sum(logs) / len(logs)):.3f} of the default; "
              f"worst {max(math.exp(v) for v in logs):.2f}; {', '.join(moved)}")


SCHED_TC = {"tc 128x128 s=auto", "tc 64x128 s=auto", "tc 64x64 s=auto"}
feat = json.load(open("bench/results/session26/racefeat.json"))
progs = collections.OrderedDict()
for r in feat:
    progs.setdefault(r["prog"], []).append(r)
S = F.rows()
res = []
for prog, rs in progs.items():
    default = next(r for r in rs if r["default"])
    T = [r for r in rs if r["tc"] and r["point"] in SCHED_TC and r.get("wave")]
    simt = [r for r in S if r["prog"] == prog]
    if not T or not simt:
        continue
    old = min(T, key=lambda r: r["model"])
    new = min(T, key=lambda r: r["wave"])
    tc = new if old["wave"] > 1.1 * new["wave"] else old
    q, _ = F.fit([r for r in S if r["prog"] != prog], 1500)
    with torch.no_grad():
        pred = F.predict(q, F.tensors(simt)).tolist()
    i = min(range(len(simt)), key=lambda i: pred[i])
    res.append((prog, default, tc, simt[i], pred[i]))
print(f"{'program':38} {'eager':>6} {'default':>16} {'TC pick':>22} {'SIMT pick':>30}")
for prog, d, tc, sm, p in res:
    print(f"{prog:38} {d['eager']:6.1f} {d['us']:6.1f} {d['point'][:9]:9} | {tc['point'][:9]:9} w{tc['wave']:5.1f} m{tc['us']:5.1f} | "
          f"{sm['point'][:16]:16} w{p:5.1f} m{sm['us']:5.1f}")
margins(res, (0.8, 0.9, 1.0, 1.1, 1.2))

print("\nThe SIMT tile the old model picks (the default where it is SIMT), raced at the SIMT wave model:")
res2 = []
for prog, d, tc, sm, p in res:
    simt = [r for r in S if r["prog"] == prog]
    pick = next((r for r in simt if r["point"] == d["point"]), None) if not d["tc"] else None
    pick = pick or min(simt, key=lambda r: r["model"])
    q, _ = F.fit([r for r in S if r["prog"] != prog], 1500)
    with torch.no_grad():
        w = F.predict(q, F.tensors([pick])).item()
    res2.append((prog, d, tc, pick, w))
margins(res2, (0.9, 1.0, 1.1))
