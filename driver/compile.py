"""`dpl.compile`: a PyTorch module or expression -> compiled CUDA program, callable on tensors.

    from dpl.driver.compile import compile as dpl_compile
    c = dpl_compile(torch.nn.RMSNorm(2048), torch.randn(1, 32, 2048))
    y = c(x.cuda())                    # user inputs in, outputs out; parameters bound at compile
    c.kernels()                        # name, grid, block, bytes, flops per kernel
    c.kernel_launchers(x.cuda())       # [(name, launch one kernel)] for per-kernel timing

The program is captured in fp32 (`dpl.frontend.capture`), lowered to loop IR (where count-cost
records each kernel's flops and bytes in the IR), then through the tile schedule and `materialize` to kernel IR, printed as
CUDA and run by `backend.host.HostProgram` (NVRTC, one launch per kernel, planned buffers).
Compiling needs no GPU; calling does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Operation

from dpl.dialects import kernel as K
from dpl.driver.blocks import lower_by_blocks
from dpl.driver.host import HostProgram, nbytes
from dpl.driver.progress import Progress, quiet
from dpl.frontend import capture
from dpl.frontend.check import fresh_inputs, rel_err
from dpl.transforms.kernel.fuse_launches import FUSED_ATTR
from dpl.driver.tuned import Tuning, run_tuned
from dpl.transforms.loop.count_cost import cost
from dpl.dialects import mma
from dpl.transforms.pipelines import IR_PIPELINES, kernel_schedule, run_pipeline, with_target

@dataclass
class KernelInfo:
    name: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    bytes: int  # bytes of the global buffers it reads and writes, each once: a traffic floor
    flops: int  # float operations of its loop nest


def kernel_costs(module: ModuleOp) -> dict[str, tuple[int, int]]:
    """(flops, bytes) of each kernel.func, as count-cost recorded them on its loop kernel (split
    passes divided them, fuse-launches summed them); kernels without a count are left out."""
    costs = {}
    for f in module.walk():
        if isinstance(f, K.KernelFuncOp) and (c := cost(f)) is not None:
            costs[f.sym_name.data] = c
    return costs


def module_precision(module: ModuleOp) -> str:
    """What a kernel-level program's matmuls run in: 3xtf32 / tf32 when some kernel uses the
    tensor cores (three or one MMA per K step), else ieee."""
    for kfunc in [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]:
        ops = [op for op in kfunc.walk() if isinstance(op, mma.WgmmaOp | mma.WgmmaRsOp | mma.MmaSyncOp)]
        if ops:
            return "3xtf32" if any(isinstance(op, mma.Tf32Op) and _is_lo(op) for op in kfunc.walk()) else "tf32"
    return "ieee"


def _is_lo(op: Operation) -> bool:
    """An `mma.tf32` of a residual (x - tf32(x)): the low half of a 3xTF32 split."""
    owner = op.operands[0].owner
    return isinstance(owner, Operation) and owner.name == "arith.subf"


class Compiled:
    """A compiled program, callable like the PyTorch one it came from."""

    def __init__(self, prog: Any, module: ModuleOp, flops: dict[str, int]):
        self.program = prog
        self.module = module
        self.precision = module_precision(module)
        self.host = HostProgram(module)
        self.cuda = self.host.source
        self._flops = flops
        self._bytes = {name: nbytes for name, (_, nbytes) in kernel_costs(module).items()}
        self._single = len(self.host.results) == 1
        self._params = list(prog.args[prog.num_inputs :])
        self._params_cuda: list[torch.Tensor] | None = None

    @property
    def num_kernels(self) -> int:
        return len(self.host.launches)

    def _args(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        if len(inputs) != self.program.num_inputs:
            raise ValueError(f"dpl: the program takes {self.program.num_inputs} inputs, got {len(inputs)}")
        if self._params_cuda is None:
            self._params_cuda = [  # floats in fp32, as captured; integer buffers keep their dtype
                p.detach().to("cuda", torch.float32 if p.is_floating_point() else p.dtype).contiguous()
                for p in self._params
            ]
        ins = [x.detach().to("cuda").contiguous() for x in inputs]
        return [*ins, *self._params_cuda]

    def __call__(self, *inputs: torch.Tensor, poison: bool = False) -> Any:
        outs = self.host(*self._args(inputs), poison=poison)
        return outs[0] if self._single and len(outs) == 1 else tuple(outs)

    def kernels(self) -> list[KernelInfo]:
        infos = []
        for launch in self.host.launches:
            k = launch.kernel
            traffic = self._bytes.get(k.name)
            if traffic is None:  # a kernel nothing counted (a pipeline without count-cost)
                types = [self.host.types[b] for b in set(launch.buffers)]
                traffic = sum(nbytes(t) for t in types if isinstance(t, MemRefType))
            infos.append(KernelInfo(k.name, k.grid, k.block, traffic, self._flops.get(k.name, 0)))
        return infos

    def kernel_launchers(self, *inputs: torch.Tensor) -> list[tuple[str, Callable[[], None]]]:
        tensors = self.host.bind(self._args(inputs))
        calls = self.host.launchers(tensors)
        for _, c in calls:  # one run so every buffer holds real data before timing single kernels
            c()
        return calls

    def capture(self, *inputs: torch.Tensor):
        """The whole program in one CUDA graph (`.replay(*all_args)` -> outputs)."""
        return self.host.capture(*self._args(inputs))


def lower(
    prog: Any,
    pipeline: str | None = None,
    verbose: bool = False,
    precision: str | None = None,
    progress: Progress | None = None,
    tuning: Tuning | None = None,
    target: str | None = None,
) -> tuple[ModuleOp, dict[str, int]]:
    """Torch IR -> kernel IR with the default pipeline (or `pipeline` after loop level; matmuls
    in `precision`: ieee, 3xtf32 or tf32, default 3xtf32 where the target has tensor cores) for
    GPU `target` (sm_80, sm_90, sm_120: the module's #kernel.target; default the passes', sm_90);
    returns the module and each kernel's flops (its `kernel.flops`, counted at loop level by
    count-cost). A repeated block of ops (decoder layers) is lowered once (`driver.blocks`).
    Kernels tuned for this GPU get their tuned schedules (`tuning`, by default the user's tuning
    cache: `driver.tuned`)."""
    if pipeline is not None and precision is not None:
        raise ValueError("dpl: give either a pipeline or a precision, not both")
    progress = progress or quiet()
    tuning = Tuning.default() if tuning is None else tuning
    with progress.stage("passes"):
        return lower_by_blocks(
            prog.module, lambda piece: lower_whole(piece, pipeline, verbose, precision, tuning, target), progress.step
        )


def lower_whole(
    module: ModuleOp, pipeline: str | None = None, verbose: bool = False, precision: str | None = None,
    tuning: Tuning | None = None,
    target: str | None = None,
) -> tuple[ModuleOp, dict[str, int]]:
    """`lower` of a torch-level module as one piece."""
    module = module.clone()
    run_pipeline(module, with_target(IR_PIPELINES["loop"], target), verbose)  # ends in count-cost
    rest = pipeline if pipeline is not None else kernel_schedule(precision)
    run_tuned(module, rest, tuning, verbose)
    return module, {name: flops for name, (flops, _) in kernel_costs(module).items()}


def fused_parts(kfunc: K.KernelFuncOp) -> list[str]:
    """The kernels `fuse-launches` put in `kfunc` (by their names), or just `kfunc`'s own."""
    fused = kfunc.attributes.get(FUSED_ATTR)
    if isinstance(fused, ArrayAttr):
        return [s.data for s in fused.data if isinstance(s, StringAttr)]
    return [kfunc.sym_name.data]


def compile(fn: Any, *example_inputs: torch.Tensor, pipeline: str | None = None, verbose: bool = False,
            precision: str | None = None, tune_cache: bool = True, target: str | None = None) -> Compiled:  # fmt: skip
    """Capture `fn(*example_inputs)` (an nn.Module or a callable) in fp32 and compile it, with the
    tuned schedules of the tuning cache unless `tune_cache=False`.

    `precision` for matmuls: `3xtf32` (tensor cores with the 3xTF32 split: fp32-level accuracy;
    the default where the target has tensor cores), `tf32` (one TF32 pass: faster, about 1e-3
    relative error; the default for a program written in float16 / bfloat16, whose own error is
    larger: `Program.half_source`) or `ieee` (SIMT fp32). `target`: the GPU (sm_80, sm_90,
    sm_120; default sm_90)."""
    module = fn if isinstance(fn, torch.nn.Module) else _Lambda(fn)
    cpu = [x.detach().cpu() for x in example_inputs]
    prog = capture(module, *cpu, dtype=torch.float32)
    if precision is None and pipeline is None and prog.half_source:
        precision = "tf32"
    return compile_program(prog, pipeline, verbose, precision, tune_cache, target)


def compile_program(prog: Any, pipeline: str | None = None, verbose: bool = False,
                    precision: str | None = None, tune_cache: bool = True, target: str | None = None) -> Compiled:  # fmt: skip
    """Compile an already captured `dpl.frontend` Program (e.g. from `capture_expression`)."""
    kmodule, flops = lower(prog, pipeline, verbose, precision, tuning=Tuning.default(tune_cache), target=target)
    return Compiled(prog, kmodule, flops)


def parity_tolerance(prog) -> float:
    """DESIGN.md's bar: 1e-4 for programs with matmul/attention chains, else 1e-5."""
    heavy = {"torch.matmul", "torch.linear", "torch.sdpa", "torch.bmm", "torch.mm"}
    return 1e-4 if any(op.name in heavy for op in prog.module.walk()) else 1e-5


def float64_reference(fn, inputs):
    """`fn` run in float64 (a float64 copy of a module; floating inputs cast), as a list."""
    import copy

    if isinstance(fn, torch.nn.Module):
        fn = copy.deepcopy(fn).to(torch.float64)
    with torch.no_grad():
        res = fn(*[x.to(torch.float64) if x.is_floating_point() else x for x in inputs])
    return list(res) if isinstance(res, (tuple, list)) else [res]


def reference64(prog, inputs):
    """PyTorch's result in float64 on the CPU (a float64 copy of the captured module)."""
    return float64_reference(prog.fn, inputs)


@dataclass
class Parity:
    """How close outputs are to a float64 reference, by the norm ratio and per element.

    `rel_err`: ‖out − ref‖₂ / ‖ref‖₂ of the worst output (`frontend.check.rel_err`). `elem_err`: the largest
    |out − ref| / (atol + rtol·|ref|) over all elements, rtol = `tol` (DESIGN.md's class bar:
    1e-5 elementwise and reductions, 1e-4 matmul/attention) and atol = tol × the output's RMS, so
    an element passes at <= 1 (a NaN where the reference has a number is inf); `bad` counts the
    elements past their bound, `worst` names the worst one. `ok`: rel_err < tol and no bad element.
    """

    rel_err: float
    elem_err: float
    bad: int
    worst: str
    tol: float

    @property
    def ok(self) -> bool:
        return self.rel_err < self.tol and self.bad == 0

    def __str__(self) -> str:
        return (f"relative error {self.rel_err:.2e} (bar {self.tol:.0e}); worst element at "
                f"{self.elem_err:.2g}x its bound {self.tol:.0e}·(RMS + |ref|) ({self.worst}); "
                f"{self.bad} past it")  # fmt: skip


def elementwise_error(
    out: torch.Tensor, ref: torch.Tensor, rtol: float, atol: float
) -> tuple[float, int, int]:
    """Per element |out − ref| / (atol + rtol·|ref|) (equal values, NaN with NaN included, are 0;
    a NaN against a number is inf): (the largest, how many exceed 1, the flat index of the
    largest)."""
    o, r = out.detach().reshape(-1).double(), ref.detach().reshape(-1).double()
    if not o.numel():
        return 0.0, 0, 0
    same = (o == r) | (o.isnan() & r.isnan())
    ratio = (o - r).abs() / (atol + rtol * r.abs())
    ratio = torch.where(same, torch.zeros_like(ratio), ratio.nan_to_num(nan=math.inf))
    worst = int(ratio.argmax())
    return float(ratio[worst]), int((ratio > 1).sum()), worst


def rms(ref: torch.Tensor) -> float:
    """The root mean square of the finite elements of `ref` (1 if none is non-zero)."""
    r = ref.detach().double()
    r = r[r.isfinite()]
    value = float(r.pow(2).mean().sqrt()) if r.numel() else 0.0
    return value or 1.0


def compare(outs, refs, tol: float) -> Parity:
    """Parity of output tensors `outs` against float64 references `refs` (same shapes)."""
    if len(outs) != len(refs):
        raise ValueError(f"dpl gives {len(outs)} outputs, PyTorch {len(refs)}")
    rel, elem, bad, worst = 0.0, -1.0, 0, "-"
    for i, (o, r) in enumerate(zip(outs, refs)):
        if tuple(o.shape) != tuple(r.shape):
            raise ValueError(f"dpl output shape {list(o.shape)} differs from PyTorch's {list(r.shape)}")
        o64, r64 = o.detach().double(), r.detach().double().to(o.device)
        rel = max(rel, rel_err(o64, r64))  # a NaN or inf the reference lacks: inf
        e, n, at = elementwise_error(o64, r64, tol, tol * rms(r64))
        bad += n
        if e > elem:
            index = [int(v) for v in torch.unravel_index(torch.tensor(at), tuple(o.shape))] if o.dim() else []
            got, want = float(o64.reshape(-1)[at]), float(r64.reshape(-1)[at])
            elem, worst = e, f"output #{i} at {index}: {got:.6g} vs {want:.6g}"
    return Parity(rel, max(elem, 0.0), bad, worst, tol)


def check_parity(compiled, prog, seed: int = 1) -> Parity:
    """dpl's outputs (fresh inputs, outputs poisoned) against float64 PyTorch, by the norm ratio
    and per element (see Parity)."""
    inputs = fresh_inputs(prog, seed)
    outs = compiled(*[x.cuda() for x in inputs], poison=True)
    outs = outs if isinstance(outs, tuple) else (outs,)
    refs = reference64(prog, inputs)
    return compare([o.detach().cpu() for o in outs], refs, parity_tolerance(prog))


class _Lambda(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)
