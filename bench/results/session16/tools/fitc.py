"""Fit the matmul model's per-block costs on .gpu cands.jsonl (no GPU): each candidate point
scheduled once, modeled_us re-evaluated under each variant; regret = measured(pick) / best.
python3 .gpu/fitc.py CANDS.jsonl VARIANT..  (VARIANT: name:bt44=..,bt88=..,bt42=..,bt22=..,lone22=..,pad64=..,f64=..,f64128=..,f128=..)"""
import json, logging, sys, math, collections, dataclasses, pickle, os
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu")
logging.disable(logging.WARNING)
import torch
from shortk import case_of
from xdsl.dialects import func
from dpl.frontend import capture
from dpl.driver.tune import program_kernels
from dpl.transforms.tile.schedule import POINT, point_attr
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module
from dpl.transforms.pipelines import run_pipeline
from dpl.transforms.tile.target import arch_smem, DEFAULT_ARCH
from dpl.dialects import loop
import dpl.transforms.tile.schedule_mma as SM
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
from dpl.transforms.tile.target import arch_smem
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if r.get("us") and not r.get("error"): by[(r["case"], r["kernel"])].append(r)
PK = "/tmp/fitc_blocks.pkl"
EAGER = {r["case"]: r["eager_us"] for r in rows}
SPEED, LOW = [], []
sched = "schedule"
blocks = {}
if os.path.exists(PK):
    blocks = pickle.load(open(PK, "rb"))
for (spec, kname), rs in by.items():
    if (spec, kname) in blocks: continue
    fn, inputs = case_of(spec).build("meta")
    ks = {k.name: k for k in program_kernels(capture(fn, *inputs, dtype=torch.float32).module) if k.cls == "matmul"}
    k = ks[kname]; got = []
    for r in rs:
        m = parse_module(make_context(), k.text, "<c>")
        for lk in [o for o in m.walk() if isinstance(o, loop.KernelOp)]:
            lk.attributes[POINT] = point_attr(r["point"])
        run_pipeline(m, "schedule")
        got.append((r["label"], r["us"], str(m)))
    blocks[(spec, kname)] = got
    print("scheduled", spec, kname, len(got), file=sys.stderr, flush=True)
pickle.dump(blocks, open(PK, "wb"))
BASE = SC.MATMUL_TILES
SMEM = arch_smem(DEFAULT_ARCH)
ctx = make_context()
parsed = {key: [(l, us, parse_module(ctx, txt, "<c>")) for l, us, txt in got] for key, got in blocks.items()}
def evaluate(kv):
    tiles = []
    for c in BASE:
        key = f"{c.rows}{c.cols}"
        c = dataclasses.replace(c, block_trips=kv.get("bt" + key, c.block_trips))
        if key == "22":
            c = dataclasses.replace(c, lone_us=kv.get("lone22", c.lone_us), trip_us=kv.get("trip22", c.trip_us))
        tiles.append(c)
    S.MATMUL_TILES = SC.MATMUL_TILES = tuple(tiles)
    SM.PADDED_FULL_STEPS = {(64, 64): kv.get("pad64", 2.5)}
    SM.FULL_BLOCK_STEPS = {(64, 64): kv.get("f64", 1.5), (64, 128): kv.get("f64128", 2.8), (128, 128): kv.get("f128", 4.1)}
    regrets = []; lines = []; SPEED.clear(); LOW.clear()
    for key, got in parsed.items():
        cand = []
        for l, us, m in got:
            if l in ("new", "old"): continue
            if kv.get("no22") and l.startswith("s22"): continue
            if kv.get("notc") and l.startswith("tc"): continue
            main = next(o for o in m.walk() if isinstance(o, func.FuncOp))
            cand.append((S.modeled_us(main.body.block, 132, SMEM), us, l))
        best = min(us for _, us, _ in cand)
        mu, us, l = min(cand)
        d = {l2: u2 for l2, u2, _ in got}
        eg = EAGER[key[0]]
        SPEED.append(d.get("old", us) / us); LOW.append(eg / us < 0.8)
        regrets.append(us / best); lines.append(f"{key[0]:34s} pick {l:9s} {us:6.1f} best {best:6.1f} x{us/best:.2f}")
    g = math.exp(sum(map(math.log, regrets)) / len(regrets))
    lines.append(f"speed over old {math.exp(sum(map(math.log, SPEED)) / len(SPEED)):.3f} min {min(SPEED):.2f}, below 0.8x eager {sum(LOW)}")
    return g, max(regrets), lines
for lab in ("old", "new"):
    rs = []
    for key, got in parsed.items():
        d = {l: us for l, us, _ in got}
        best = min(us for l, us, _ in got if l not in ("new", "old"))
        if lab in d: rs.append(d[lab] / best); LOW.append(EAGER[key[0]] / d[lab] < 0.8)
    print(f"measured {lab} default: regret geomean {math.exp(sum(map(math.log, rs)) / len(rs)):.3f} worst {max(rs):.2f} below 0.8x eager {sum(LOW)}"); LOW.clear()
for v in sys.argv[2:]:
    name, _, rest = v.partition(":")
    kv = {k: float(x) for k, x in (p.split("=") for p in rest.split(",") if p)}
    g, worst, lines = evaluate(kv)
    print(f"{name} {kv}: regret geomean {g:.3f} worst {worst:.2f}; {lines[-1]}", flush=True)
    if os.environ.get("V"): print("\n".join(lines))
