"""Run a kernel-level program (`kernel.func`s plus a host `func.func @main`) on the GPU.

    host = HostProgram(module)              # module after `materialize`
    outs = host(x, p_weight)                # @main's arguments in order -> its results (tensors)
    graph = host.capture(x, p_weight)       # every launch in one CUDA graph
    outs = graph.replay(x2, p_weight2)

@main is straight-line: `memref.alloc` buffers, `kernel.launch @k(buffers...)` in order and a
`func.return`. Each launch passes @main's buffers to the kernel by position.

Kernels: each `kernel.func` is its own CUDA source, compiled by NVRTC (in parallel threads)
and cached on its own (`runtime.compile_cuda`), so a kernel launched once per decoder layer is
compiled once, and a change to one kernel recompiles only that one. `load(progress)` shows each
compile on the progress display.

Buffer plan: @main's arguments are the caller's tensors; a buffer @main returns gets a fresh
`torch.empty` per call (the caller keeps it); every other buffer is an intermediate and lives in
a workspace slot that the program keeps between calls. Slots are assigned in launch order: a
buffer takes the smallest free slot of at least its size (else a new slot) at its first launch,
and its slot is freed after its last launch, so intermediates whose lifetimes do not overlap share
memory. `plan` says which slot each buffer got and the workspace size.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue

from dpl.backend import runtime
from dpl.backend.cuda_mma import WGMMA_ARCH, needs_sm90a
from dpl.backend.cuda_printer import dtype_name, kernel_funcs, print_cuda, print_manifest
from dpl.dialects.types import memref_bytes
from dpl.dialects import kernel as K
from dpl.driver.progress import Progress, quiet


@dataclass
class Launch:
    kernel: runtime.Kernel
    buffers: list[int]  # indices into HostProgram.values


@dataclass
class Plan:
    """Where each intermediate lives: value index -> slot, and each slot's bytes."""

    slot_of: dict[int, int] = field(default_factory=dict)
    slot_bytes: list[int] = field(default_factory=list)

    @property
    def workspace_bytes(self) -> int:
        return sum(self.slot_bytes)


def aligned(t: Any) -> Any:
    """`t`, or a copy of it if its data does not start on a 16-byte boundary: kernels read and
    write whole rows as float4 (a contiguous slice such as `x[1:]` of a row of 3 floats starts
    4 bytes in, and a 16-byte access there faults)."""
    return t if t.data_ptr() % 16 == 0 else t.clone()


nbytes = memref_bytes


def plan_buffers(sizes: dict[int, int], first: dict[int, int], last: dict[int, int]) -> Plan:
    """Assign each value (bytes `sizes[v]`, used by launches first[v]..last[v]) a slot; slots
    are reused once every value in them is past its last launch."""
    plan = Plan()
    free: list[int] = []
    order = sorted(sizes, key=lambda v: (first[v], v))
    ending: dict[int, list[int]] = {}
    step = 0
    for v in order:
        while step < first[v]:  # release what ended before this launch
            free.extend(plan.slot_of[e] for e in ending.pop(step, []))
            step += 1
        fits = [s for s in free if plan.slot_bytes[s] >= sizes[v]]
        if fits:
            slot = min(fits, key=lambda s: plan.slot_bytes[s])
            free.remove(slot)
        else:
            slot = len(plan.slot_bytes)
            plan.slot_bytes.append(sizes[v])
        plan.slot_of[v] = slot
        ending.setdefault(last[v], []).append(v)
    return plan


class HostProgram:
    """A compiled kernel-level program: launches @main's kernels on torch tensors."""

    def __init__(self, module: ModuleOp):
        main = next(
            (op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"),
            None,
        )
        if main is None:
            raise ValueError("dpl runtime: the module has no func.func @main")
        self.source = print_cuda(module)
        #: Each kernel's own translation unit (what NVRTC compiles).
        self.sources = {f.sym_name.data: print_cuda(ModuleOp([f.clone()])) for f in kernel_funcs(module)}
        #: The NVRTC target each kernel needs beyond the device's own (sm_90a for wgmma).
        self.archs = {f.sym_name.data: WGMMA_ARCH if needs_sm90a(f.walk()) else None for f in kernel_funcs(module)}
        self.manifest = print_manifest(module)
        by_name = {k["name"]: k for k in self.manifest["kernels"]}
        self.kernels = {
            f.sym_name.data: runtime.Kernel(
                name=f.sym_name.data,
                grid=tuple(f.grid_extents),  # type: ignore[arg-type]
                block=tuple(f.block_extents),  # type: ignore[arg-type]
                smem_bytes=f.smem.data,
                static_smem_bytes=int(by_name[f.sym_name.data].get("static_smem_bytes", 0)),
                args=[a["name"] for a in by_name[f.sym_name.data]["args"]],
            )
            for f in kernel_funcs(module)
        }
        self.values: list[SSAValue] = list(main.body.block.args)
        self.num_args = len(self.values)
        index: dict[SSAValue, int] = {v: i for i, v in enumerate(self.values)}
        self.launches: list[Launch] = []
        self.results: list[int] = []
        for op in main.body.block.ops:
            if isinstance(op, memref.AllocOp):
                index[op.memref] = len(self.values)
                self.values.append(op.memref)
            elif isinstance(op, K.LaunchOp):
                name = op.callee.string_value()
                self.launches.append(Launch(self.kernels[name], [index[a] for a in op.args]))
            elif isinstance(op, func.ReturnOp):
                self.results = [index[a] for a in op.arguments]
            else:
                raise ValueError(
                    f"dpl runtime: @main may hold only memref.alloc, kernel.launch and func.return, "
                    f"found {op.name}"
                )
        self.types = [v.type for v in self.values]
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for i, launch in enumerate(self.launches):
            for b in launch.buffers:
                first.setdefault(b, i)
                last[b] = i
        self.intermediates = [
            v for v in range(self.num_args, len(self.values))
            if v not in self.results and v in first
        ]  # fmt: skip
        self.plan = plan_buffers(
            {v: nbytes(self.types[v]) for v in self.intermediates},  # type: ignore[arg-type]
            first,
            last,
        )
        self._workspace: list[Any] | None = None
        self._loaded = False
        #: Each kernel's NVRTC result (`cache_hit` says whether it came from the disk cache).
        self.compiled: dict[str, runtime.CompileResult] = {}

    # -- loading and buffers ------------------------------------------------------------------------

    def load(self, progress: Progress | None = None) -> HostProgram:
        """Compile (through the cache) and load every kernel; NVRTC runs in parallel threads."""
        if self._loaded:
            return self
        progress = progress or quiet()
        names = list(self.sources)
        with progress.stage("nvrtc"), ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            jobs = {pool.submit(runtime.compile_cuda, self.sources[n], [n], self.archs[n]): n for n in names}
            for done, job in enumerate(as_completed(jobs), 1):
                self.compiled[jobs[job]] = job.result()
                progress.step("nvrtc", done, len(names), jobs[job])
        for n in names:  # every cubin is in the cache now
            runtime.load_kernels(self.sources[n], [self.kernels[n]], arch=self.archs[n])
        self._loaded = True
        return self

    def _empty(self, v: int, storage: Any = None) -> Any:
        import torch

        t = self.types[v]
        assert isinstance(t, MemRefType)
        dtype = runtime._torch_dtype(dtype_name(t.element_type))
        shape = tuple(t.get_shape())
        if storage is None:
            return torch.empty(shape, dtype=dtype, device="cuda")
        return storage[: nbytes(t)].view(dtype).view(shape)

    def _workspace_views(self) -> dict[int, Any]:
        import torch

        if self._workspace is None:
            self._workspace = [
                torch.empty(n, dtype=torch.uint8, device="cuda") for n in self.plan.slot_bytes
            ]
        return {v: self._empty(v, self._workspace[self.plan.slot_of[v]]) for v in self.intermediates}

    def bind(self, args: Sequence[Any], poison: bool = False) -> list[Any]:
        """Tensors for every value: the given arguments (checked), fresh results, workspace.
        With `poison`, results and workspace start as all-ones bytes (NaN floats), so an element
        no kernel writes shows up in a comparison."""
        import torch

        if len(args) != self.num_args:
            raise ValueError(f"dpl runtime: @main takes {self.num_args} arguments, got {len(args)}")
        tensors: list[Any] = [None] * len(self.values)
        for i, a in enumerate(args):
            t = self.types[i]
            if isinstance(t, MemRefType):
                want = tuple(t.get_shape())
                dtype = runtime._torch_dtype(dtype_name(t.element_type))
                if tuple(a.shape) != want or a.dtype != dtype:
                    raise ValueError(
                        f"dpl runtime: argument {i} ({self.values[i].name_hint}) wants "
                        f"{list(want)} {dtype}, got {list(a.shape)} {a.dtype}"
                    )
                a = aligned(a.to("cuda").contiguous())
            tensors[i] = a
        for v, view in self._workspace_views().items():
            tensors[v] = view
        for v in range(self.num_args, len(self.values)):
            if tensors[v] is None:
                tensors[v] = self._empty(v)
                if poison:
                    tensors[v].view(-1).view(torch.uint8).fill_(255)
        if poison:
            for slot in self._workspace or []:
                slot.fill_(255)
        return tensors

    # -- running ---------------------------------------------------------------------------------

    def launchers(self, tensors: Sequence[Any]) -> list[tuple[str, Any]]:
        """One zero-argument callable per launch, on `tensors` (from `bind`)."""
        self.load()
        out = []
        for launch in self.launches:
            k = launch.kernel
            args = [
                runtime.scalar_arg(k, str(i), dtype_name(self.types[b]), tensors[b])
                if not isinstance(self.types[b], MemRefType)
                else tensors[b]
                for i, b in enumerate(launch.buffers)
            ]
            out.append((k.name, lambda k=k, args=args: runtime.launch_kernel(k, args, runtime.current_stream())))
        return out

    def launch_all(self, tensors: Sequence[Any]) -> None:
        for _, launch in self.launchers(tensors):
            launch()

    def __call__(self, *args: Any, poison: bool = False) -> list[Any]:
        tensors = self.bind(args, poison)
        self.launch_all(tensors)
        return [tensors[r] for r in self.results]

    def capture(self, *args: Any) -> GraphProgram:
        """Copy `args` into static buffers and capture every launch in one CUDA graph."""
        import torch

        self.load()
        static = [a.clone() if hasattr(a, "clone") else a for a in args]
        tensors = self.bind(static)
        calls = self.launchers(tensors)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside capture, as torch recommends
            for _, c in calls:
                c()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _, c in calls:
                c()
        return GraphProgram(self, graph, tensors)


@dataclass
class GraphProgram:
    host: HostProgram
    graph: Any
    tensors: list[Any]

    def replay(self, *args: Any) -> list[Any]:
        """Copy any given arguments into the static buffers, replay; returns static results."""
        for i, a in enumerate(args):
            if a is not None and hasattr(a, "copy_"):
                self.tensors[i].copy_(a)
        self.graph.replay()
        return [self.tensors[r] for r in self.host.results]
