"""A/B of the row pipeline (session 17): old = rows staged in shared memory first (stage-inputs,
hold-rows{max-trips=24}; 256 lanes a row; fill loops with a remainder as a strided loop), new = as
committed (blockify-launch row-trips=12, hold-rows (32 trips) before stage-inputs, counted fills),
new16 / new8 = row-trips 16 / 8.   python3 rows_ab.py [NAME..]; VARIANTS=old,new,...
Each variant timed through the bench harness (checked against float64, CUDA graph); eager once."""
import sys, os, json, time
sys.path.insert(0, "bench")
import torch
from xdsl.ir import Block, Region
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
import dpl.transforms.tile.schedule_classes as SC
import dpl.transforms.kernel.stage_fills as SF
from dpl.dialects import kernel as K
F = torch.nn.functional
NEW_ROW = SC.PIPELINES["row reduction"]
OLD_ROW = ("collapse-loops,tileify,pad-columns,blockify-launch{{sms={sms} row-trips=0}},cooperative-reduce,"
           "split-reduce{{sms={sms}}},stage-inputs,hold-rows{{max-trips=24}},mark-unroll{{max-extent=24}}")
new_fill = SF.StageFills.fill_loop

def old_fill(self, count, body_fn, name):
    T = max(self.T, 1)
    tid = self.tid if self.tid is not None else self.const(0)
    if count <= T:
        return new_fill(self, count, body_fn, name)
    body = Block(arg_types=[IndexType()])
    if count % T == 0 and count // T <= SF.FILL_UNROLL_TRIPS:
        return new_fill(self, count, body_fn, name)
    body.args[0].name_hint = f"{name}_flat"
    with self.at(body):
        body_fn(body.args[0])
        self.emit(K.YieldOp())
    self.emit(K.ForOp(tid, count, T, body, []))

VARIANTS = {"old": (OLD_ROW, old_fill), "new": (NEW_ROW, new_fill),
            "new16": (NEW_ROW.replace("row-trips=12", "row-trips=16"), new_fill),
            "new8": (NEW_ROW.replace("row-trips=12", "row-trips=8"), new_fill),
            "newoldfill": (NEW_ROW, old_fill), "oldnewfill": (OLD_ROW, new_fill)}

def use(variant):
    row, fill = VARIANTS[variant]
    SC.PIPELINES["row reduction"] = row
    SF.StageFills.fill_loop = fill

def lse(x): return torch.logsumexp(x, -1)
CASES = {
    "softmax_1597x64x1117": (lambda x: torch.softmax(x, -1), [(1597, 64, 1117)]),
    "softmax_131072x700": (lambda x: torch.softmax(x, -1), [(131072, 700)]),
    "softmax_32768x2999": (lambda x: torch.softmax(x, -1), [(32768, 2999)]),
    "layernorm_65536x1500": (lambda x, w, b: F.layer_norm(x, (1500,), w, b), [(65536, 1500), (1500,), (1500,)]),
    "rmsnorm_100000x1117": (lambda x, w: F.rms_norm(x, (1117,), w), [(100000, 1117), (1117,)]),
    "softmax_4096x8192": (lambda x: torch.softmax(x, -1), [(4096, 8192)]),
    "layernorm_8192x4096": (lambda x, w, b: F.layer_norm(x, (4096,), w, b), [(8192, 4096), (4096,), (4096,)]),
    "logsumexp_50000x1000": (lse, [(50000, 1000)]),
    "softmax_2048x1025": (lambda x: torch.softmax(x, -1), [(2048, 1025)]),
    "rmsnorm_4096x4096": (lambda x, w: F.rms_norm(x, (4096,), w), [(4096, 4096), (4096,)]),
    "softmax_1991x2267": (lambda x: torch.softmax(x, -1), [(1991, 2267)]),
    "softmax_607x21911": (lambda x: torch.softmax(x, -1), [(607, 21911)]),
    "softmax_4096x32000": (lambda x: torch.softmax(x, -1), [(4096, 32000)]),
    "rmsnorm_8x4099x4096": (lambda x, w: F.rms_norm(x, (4096,), w), [(8, 4099, 4096), (4096,)]),
    "var_40000x3000": (lambda x: torch.var(x, -1), [(40000, 3000)]),
    "layernorm_300x5000": (lambda x, w, b: F.layer_norm(x, (5000,), w, b), [(300, 5000), (5000,), (5000,)]),
    "softmax_20000x1537": (lambda x: torch.softmax(x, -1), [(20000, 1537)]),
    "sum_d1_64x4099x1021": (lambda x: x.sum(1), [(64, 4099, 1021)]),
    "mean_d0_8192x3000": (lambda x: x.mean(0), [(8192, 3000)]),
    "sum_d1_32x2000x777": (lambda x: x.sum(1), [(32, 2000, 777)]),
    "rmsnorm_30000x2048": (lambda x, w: F.rms_norm(x, (2048,), w), [(30000, 2048), (2048,)]),
    "rmsnorm_30000x2304": (lambda x, w: F.rms_norm(x, (2304,), w), [(30000, 2304), (2304,)]),
    "rmsnorm_30000x2560": (lambda x, w: F.rms_norm(x, (2560,), w), [(30000, 2560), (2560,)]),
    "rmsnorm_2048x3584": (lambda x, w: F.rms_norm(x, (3584,), w), [(2048, 3584), (3584,)]),
    "rmsnorm_128x4096": (lambda x, w: F.rms_norm(x, (4096,), w), [(128, 4096), (4096,)]),
    "softmax_8192x1024": (lambda x: torch.softmax(x, -1), [(8192, 1024)]),
    "layernorm_4096x2560": (lambda x, w, b: F.layer_norm(x, (2560,), w, b), [(4096, 2560), (2560,), (2560,)]),
    "softmax_30000x3333": (lambda x: torch.softmax(x, -1), [(30000, 3333)]),
    "rmsnorm_16384x5120": (lambda x, w: F.rms_norm(x, (5120,), w), [(16384, 5120), (5120,)]),
    "layernorm_32x1024": (lambda x, w, b: F.layer_norm(x, (1024,), w, b), [(32, 1024), (1024,), (1024,)]),
    "logsoftmax_65536x999": (lambda x: torch.log_softmax(x, -1), [(65536, 999)]),
    "suite_rmsnorm_1x2048x4096": (lambda x, w: F.rms_norm(x, (4096,), w), [(1, 2048, 4096), (4096,)]),
    "suite_softmax_1x28x2048x2048": (lambda x: torch.softmax(x, -1), [(1, 28, 2048, 2048)]),
    "rmsnorm_26560x2176": (lambda x, w: F.rms_norm(x, (2176,), w), [(26560, 2176), (2176,)]),
}
names = [a for a in sys.argv[1:] if a in CASES] or list(CASES)
variants = os.environ.get("VARIANTS", "old,new,new16").split(",")
t_end = time.time() + float(os.environ.get("BUDGET_S", 400))
rows = []
print(f"{'case':26s} {'eager':>8s} " + " ".join(f"{v:>9s}" for v in variants), flush=True)
for name in names:
    if time.time() > t_end:
        print(f"# budget: stopped before {name}", flush=True); break
    fn, shapes = CASES[name]
    torch.manual_seed(0)
    inputs = [torch.randn(s, device="cuda") for s in shapes]
    r = {"case": name}
    for i, v in enumerate(variants):
        use(v)
        try:
            res = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=25.0,
                              dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
        finally:
            use("old")
        if "eager" in res["variants"]:
            r["eager"] = res["variants"]["eager"].get("median_ms")
        d = res["variants"]["dpl"]
        r[v] = d.get("median_ms"); r[v + "_err"] = d.get("rel_err"); r[v + "_error"] = d.get("error")
    rows.append(r)
    e = r.get("eager") or 0
    cell = lambda v: f"{r[v]*1e3:6.1f}/{e/r[v]:4.2f}" if r.get(v) else "     fail"
    print(f"{name:26s} {e*1e3:8.1f} " + " ".join(f"{cell(v):>9s}" for v in variants)
          + "  " + " ".join(str(r.get(v + '_error'))[:60] for v in variants if r.get(v + '_error')), flush=True)
out = os.environ.get("OUT")
if out:
    json.dump(rows, open(os.path.join(out, "rows_ab.json"), "w"), indent=1)
