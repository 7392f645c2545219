"""Session 26 (issue 13, host): fit a wave model of the SIMT matmul tiles to their H200 times
(racefeat.json: session 25 calls 1-2, session 26 call 1; the schedule's own k-tile 32, 2 buffers),
the tensor cores' wave model's form:

    n = ceil(blocks / 132) blocks on the busiest SM, in ceil(n / at_once) waves of c at once,
    us = L + waves (F_tile + trips (l_tile + (c - 1) s_tile) E^element) + S (splits - 1) outputs / 1e6

(at_once: MatmulTile.at_once(threads); trips: K-outer trips, for a K left whole its loop's
extent over 32, as schedule.simt_wave_us reads them),
fitted by Adam on the squared log error; and its error against the old model's.

    python bench/results/session26/tools/fitsimt26.py"""
import json
import math
import re
import sys

import torch

sys.path.insert(0, ".")
from dpl.transforms.tile.schedule_classes import MATMUL_TILES  # noqa: E402

SMS = 132
TILES = [(t.rows, t.cols) for t in MATMUL_TILES]
CELLS = [r * c for r, c in TILES]


def shape(spec):
    name = spec.split(":")[1]
    m = re.search(r"_b(\d+)_", name)
    batch = int(m.group(1)) if m else 1
    if name.startswith("linear"):
        M, K, N = map(int, re.search(r"(\d+)x(\d+)to(\d+)", name).groups())
        return M, N, K, batch
    M, N, K = map(int, re.search(r"(\d+)x(\d+)x(\d+)$", name).groups())
    return M, N, K, batch


def rows(path="bench/results/session26/racefeat.json"):
    out, seen = [], set()
    for r in json.load(open(path)):
        if r["tc"] or not r.get("blocks") or " k32 b2 " not in r["point"] or (r["prog"], r["point"]) in seen:
            continue
        seen.add((r["prog"], r["point"]))
        M, N, K, batch = shape(r["prog"])
        i = CELLS.index(r["cells"])
        trips = r["trips"] if r["trips"] is not None else -(-r["k_extent"] // 32)
        at_once = MATMUL_TILES[i].at_once(r["threads"])
        n = -(-r["blocks"] // SMS)
        waves = -(-n // at_once)
        out.append(dict(r, t=i, trips=trips, waves=waves, c=n / waves,
                        outputs=(r["splits"] - 1) * M * N * batch / 1e6))
    return out


def tensors(rs):
    f = lambda k: torch.tensor([float(r[k]) for r in rs], dtype=torch.float64)  # noqa: E731
    return dict(t=torch.tensor([r["t"] for r in rs]), waves=f("waves"), c=f("c"), trips=f("trips"),
                el=f("element"), out=f("outputs"), us=f("us"), model=f("model"))


def predict(p, x):
    F, l, s = (p[k].exp()[x["t"]] for k in ("F", "l", "s"))
    step = (l + (x["c"] - 1) * s) * torch.exp(p["E"] * x["el"])
    return p["L"].exp() + x["waves"] * (F + x["trips"] * step) + p["S"].exp() * x["out"]


def fit(rs, iters=4000):
    x = tensors(rs)
    p = {"F": torch.full((4,), math.log(2.0)), "l": torch.full((4,), math.log(0.5)), "s": torch.full((4,), math.log(0.3)),
         "E": torch.tensor(0.2), "L": torch.tensor(math.log(5.0)), "S": torch.tensor(0.0)}
    p = {k: v.double().requires_grad_(True) for k, v in p.items()}
    opt = torch.optim.Adam(list(p.values()), lr=0.03)
    for _ in range(iters):
        opt.zero_grad()
        loss = ((torch.log(predict(p, x)) - torch.log(x["us"])) ** 2).mean()
        loss.backward()
        opt.step()
    return p, loss.item()


def main():
    R = rows()
    p, loss = fit(R)
    x = tensors(R)
    old = math.sqrt(((torch.log(x["model"]) - torch.log(x["us"])) ** 2).mean().item())
    print(f"{len(R)} SIMT candidates of {len(set(r['prog'] for r in R))} programs; rms log error {math.sqrt(loss):.3f} "
          f"(the old model's {old:.3f})")
    for k, v in p.items():
        print(f"  {k}: {[round(v, 4) for v in v.detach().exp().reshape(-1).tolist()]}  (tiles {TILES})")
    with torch.no_grad():
        pred = predict(p, x)
    worst = sorted(zip((pred / x["us"]).tolist(), R), key=lambda z: abs(math.log(z[0])))[-8:]
    for ratio, r in worst:
        print(f"  model / measured {ratio:.2f}: {r['prog']} {r['point']} ({r['us']:.1f} us)")
    # left-one-program-out error
    errs = []
    for prog in dict.fromkeys(r["prog"] for r in R):
        q, _ = fit([r for r in R if r["prog"] != prog], 1500)
        test = [r for r in R if r["prog"] == prog]
        with torch.no_grad():
            e = torch.log(predict(q, tensors(test))) - torch.log(tensors(test)["us"])
        errs += e.tolist()
    print(f"left-one-program-out rms log error {math.sqrt(sum(e * e for e in errs) / len(errs)):.3f}")


if __name__ == "__main__":
    main()
