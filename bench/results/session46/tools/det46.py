"""Session 46 (device): chase session 45's GPU-only parity failure of linalg_inv_det_solve with
det written as the product over its stacked pivots (a0cbffd's form). Runs the program launch by
launch on the GPU and on the kernel-level CPU executor side by side, and after every launch
compares every live buffer; then the whole program with no workspace sharing.

    python3 bench/results/session46/tools/det46.py [CASE] [--running] [--fmad-false]

`--fmad-false` compiles every kernel with NVRTC's --fmad=false (no multiply-add contracted):
the test of call 2's diagnosis (ext, the max, is computed from a product recomputed inline, an
fmaf; the index search reads the product from a buffer, rounded, then subtracts)."""
import sys

import numpy as np
import torch

sys.path.insert(0, "tests")
from frontend_ops import OPS, compare, flat_outputs, make_inputs, module_of  # noqa: E402

from dpl.dialects import kernel as K  # noqa: E402
from dpl.driver import host as H  # noqa: E402
from dpl.driver.compile import compile_program  # noqa: E402
from dpl.frontend import capture, export_rewrites as R  # noqa: E402
from dpl.interpreters import exec_kernel as EK  # noqa: E402
from xdsl.dialects import func  # noqa: E402
from xdsl.dialects.builtin import MemRefType  # noqa: E402


def det_stacked(a):
    """a0cbffd's det: the product over the stacked pivots, negated per swap."""
    pivots, swaps = R._lu_pivots(a)
    return torch.where(swaps, -pivots, pivots).prod(-1)


STACKED = "--running" not in sys.argv
if "--fmad-false" in sys.argv:
    from dpl.backend import runtime

    runtime.compile_cuda.__defaults__ = tuple(
        (*d, "--fmad=false") if isinstance(d, tuple) and "--std=c++17" in d else d for d in runtime.compile_cuda.__defaults__)
if STACKED:
    for f in (torch.linalg.det, torch.det, torch.Tensor.det):
        R._LINALG[f] = det_stacked
name = next((a for a in sys.argv[1:] if not a.startswith("--")), "linalg_inv_det_solve")
fn, specs = OPS[name]
module = module_of(fn)
prog = capture(module, *make_inputs(specs, torch.float32, seed=0), dtype=torch.float32)
inputs = make_inputs(specs, torch.float32, seed=1)
with torch.no_grad():
    ref = flat_outputs(module.double()(*[x.double() for x in inputs]))[0].numpy()


def columns(out, label):
    err = np.abs(out - ref) / max(np.abs(ref).max(), 1e-30)
    print(f"{label}: error {compare(out, ref):.2e}; worst column {int(err.max(0).argmax())}"
          f" ({err.max(0).max():.2e}); per row max {np.array2string(err.max(1), precision=1)}", flush=True)


c = compile_program(prog)
print(f"{name} ({'stacked det' if STACKED else 'running det'}): {c.num_kernels} launches, "
      f"workspace {c.host.plan.workspace_bytes} B in {len(c.host.plan.slot_bytes)} slots", flush=True)
for trial in range(3):
    out = c(*[x.cuda() for x in inputs], poison=True).cpu().numpy()
    columns(out, f"GPU run {trial}")

# launch by launch against the kernel executor
hp = c.host
args = c._args([x.cuda() for x in inputs])
tensors = hp.bind(args, poison=True)
calls = hp.launchers(tensors)
main = next(op for op in c.module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
launch_ops = [op for op in main.body.block.ops if isinstance(op, K.LaunchOp)]
cpu = [None] * len(hp.values)
for i in range(hp.num_args):
    cpu[i] = args[i].cpu().numpy().copy()
for v in range(hp.num_args, len(hp.values)):
    t = hp.types[v]
    cpu[v] = EK._poisoned(tuple(t.get_shape()), EK.numpy_dtype(t.element_type))
index = {v: i for i, v in enumerate(hp.values)}
first, last = {}, {}
for i, l in enumerate(hp.launches):
    for b in l.buffers:
        first.setdefault(b, i)
        last[b] = i
reported = 0
for i, ((kname, call), op) in enumerate(zip(calls, launch_ops)):
    call()
    torch.cuda.synchronize()
    kf = op.kernel_func()
    EK.run_kernel(kf, [EK._as_param(cpu[index[a]], p.type) for a, p in zip(op.args, kf.args)], check_races=False)
    written = set(hp.launches[i].buffers)
    for b in sorted(first):
        if not (first[b] <= i <= last[b]) or b < hp.num_args:
            continue
        g = tensors[b].cpu().numpy()
        h = cpu[b]
        if g.dtype == np.bool_ or h.dtype == np.bool_ or np.issubdtype(h.dtype, np.integer):
            bad = g != h
        else:
            bad = ~(np.isclose(g, h, rtol=1e-4, atol=1e-5) | (np.isnan(g) & np.isnan(h)))
        if bad.any() and reported < 12:
            reported += 1
            where = np.argwhere(bad)[:4].tolist()
            print(f"  after launch {i} ({kname[:60]}): {hp.values[b].name_hint or b} "
                  f"{'written' if b in written else 'NOT in this launch'} slot {hp.plan.slot_of.get(b)}: "
                  f"{int(bad.sum())}/{bad.size} differ, e.g. at {where}: gpu {g[tuple(where[0])]} cpu {h[tuple(where[0])]}", flush=True)
print(f"launch by launch: {reported} buffer mismatches reported", flush=True)
columns(tensors[hp.results[0]].cpu().numpy(), "launch by launch GPU")
columns(cpu[hp.results[0]], "kernel executor (CPU)")

# no workspace sharing
H.plan_buffers = lambda sizes, first, last: H.Plan({v: i for i, v in enumerate(sizes)}, list(sizes.values()))
c2 = compile_program(prog)
columns(c2(*[x.cuda() for x in inputs], poison=True).cpu().numpy(), "GPU, no workspace sharing")
