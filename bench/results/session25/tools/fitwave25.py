"""Session 25 (issue 13, host): fit the wave model (schedule_mma.wave_us) to the measured wgmma
candidates of calls 1 and 2, and check how it picks with each program left out of the fit.

    python bench/results/session25/tools/fitwave25.py

Per candidate (tile bm x bn, its blocks, K trips of 32 a block, splits): n = ceil(blocks / 132)
blocks on the busiest SM, in ceil(n / blocks_per_sm) waves of c at once;
    us = L + waves (F_tile + trips (step_tile(c) P^padded + c (A bm [A's rows misaligned]
         + B bn [B's rows misaligned]) / 128)) + S (splits - 1) outputs / 1e6,
    step_tile(c) = l_tile + (c - 1) s_tile,
fitted by Adam on the squared log error. Then, per program, the fit without it picks among the
schedule's tiles (128 x 128, 64 x 128, 64 x 64, each at split-matmul-k's automatic split) where
its margin over the default pick is at least each of a few thresholds (WAVE_MARGIN)."""
import json
import math
import re
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from dpl.transforms.tile.schedule_mma import blocks_per_sm  # noqa: E402
from dpl.transforms.tile.target import DEFAULT_ARCH, arch_smem  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
SMS = 132
TILES = [(128, 128), (128, 64), (64, 128), (64, 64)]
SCHED = [(128, 128), (64, 128), (64, 64)]


def shape(spec):
    name = spec.split(":")[1]
    m = re.search(r"_b(\d+)_", name)
    batch = int(m.group(1)) if m else 1
    if name.startswith("linear"):
        M, K, N = map(int, re.search(r"(\d+)x(\d+)to(\d+)", name).groups())
        return M, N, K, batch, "nt"
    M, N, K = map(int, re.search(r"(\d+)x(\d+)x(\d+)$", name).groups())
    return M, N, K, batch, re.search(r"_(nn|nt|tn|tt)_", name).group(1)


def rows():
    smem = arch_smem(DEFAULT_ARCH)
    out = []
    for s in [x for f in ("call1-cands.json", "call2-cands.json") for x in json.load(open(HERE / f))]:
        M, N, K, batch, lay = shape(s["spec"])
        autos = {(r["point"].split(" s=")[0], r.get("blocks"), r.get("trips"))
                 for r in s["rows"] if r["point"].endswith("s=auto") or r["default"]}
        seen = set()
        for r in s["rows"]:
            if not r.get("us") or "blocks" not in r:
                continue
            bm, bn = map(int, re.search(r"(\d+)x(\d+)", r["point"]).groups())
            key = (bm, bn, r["blocks"], r["trips"])
            if key in seen:
                continue
            seen.add(key)
            splits = round(r["blocks"] / (-(-M // bm) * -(-N // bn) * batch))
            a_row = M if lay in ("tn", "tt") else K  # the contiguous dim of each operand's rows
            b_row = N if lay in ("nn", "tn") else K
            out.append(dict(spec=s["spec"], bm=bm, bn=bn, blocks=r["blocks"], trips=r["trips"], splits=splits,
                            padded=bool(M % bm or N % bn or K % 32 or M % 64 or N % 32), amis=a_row % 4 != 0,
                            bmis=b_row % 4 != 0, us=r["us"], default=r["default"], eager=s["eager_us"],
                            auto=(r["point"].split(" s=")[0], r["blocks"], r["trips"]) in autos,
                            bps=blocks_per_sm(bm, bn, "3xtf32", "wgmma", smem)))
    return out


def tensors(rs):
    f = lambda key: torch.tensor([float(r[key]) for r in rs], dtype=torch.float64)  # noqa: E731
    n = torch.tensor([-(-r["blocks"] // SMS) for r in rs], dtype=torch.float64)
    waves = torch.ceil(n / f("bps"))
    return dict(t=torch.tensor([TILES.index((r["bm"], r["bn"])) for r in rs]), waves=waves, c=n / waves,
                trips=f("trips"), pad=f("padded"), amis=f("amis"), bmis=f("bmis"), bm=f("bm"), bn=f("bn"),
                split=torch.tensor([(r["splits"] - 1) * r["blocks"] / r["splits"] * r["bm"] * r["bn"] / 1e6 for r in rs],
                                   dtype=torch.float64), us=f("us"))  # fmt: skip


def predict(p, x):
    F, l, s = (p[k].exp()[x["t"]] for k in ("F", "l", "s"))
    step = (l + (x["c"] - 1) * s) * torch.exp(p["P"] * x["pad"])
    fill = x["c"] * (p["A"].exp() * x["amis"] * x["bm"] + p["B"].exp() * x["bmis"] * x["bn"]) / 128
    return p["L"].exp() + x["waves"] * (F + x["trips"] * (step + fill)) + p["S"].exp() * x["split"]


def fit(rs, iters=3000):
    x = tensors(rs)
    p = {"F": torch.full((4,), math.log(3.0)), "l": torch.zeros(4), "s": torch.full((4,), math.log(0.5)),
         "P": torch.tensor(0.0), "A": torch.tensor(math.log(0.1)), "B": torch.tensor(math.log(0.1)),
         "L": torch.tensor(math.log(3.0)), "S": torch.tensor(0.0)}
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
    print(f"{len(R)} candidates of {len(set(r['spec'] for r in R))} programs; rms log error {math.sqrt(loss):.3f}")
    for k, v in p.items():
        print(f"  {k}: {[round(x, 3) for x in v.detach().exp().reshape(-1).tolist()]}  (tiles {TILES})")
    res = []
    for sp in dict.fromkeys(r["spec"] for r in R):
        test = [r for r in R if r["spec"] == sp and (r["bm"], r["bn"]) in SCHED and r["auto"]]
        d = next((j for j, r in enumerate(test) if r["default"]), None)
        if d is None:
            continue
        q, _ = fit([r for r in R if r["spec"] != sp], 1500)
        with torch.no_grad():
            pred = predict(q, tensors(test)).tolist()
        i = min(range(len(test)), key=lambda i: pred[i])
        res.append((sp, test[d]["us"], test[i]["us"], pred[d] / pred[i]))
        print(f"  {sp:<36} default {test[d]['us']:7.1f} us, the fit's pick {test[i]['us']:7.1f} us, margin {pred[d] / pred[i]:.2f}",
              flush=True)
    for th in (1.0, 1.05, 1.1, 1.15, 1.2):
        logs = [math.log(du / (pu if margin >= th else du)) for _, du, pu, margin in res]
        print(f"margin {th}: geomean {math.exp(sum(logs) / len(logs)):.3f} over the default, worst "
              f"{min(math.exp(v) for v in logs):.2f}, {sum(1 for v in logs if v != 0)} moved")


if __name__ == "__main__":
    main()
