"""GPU runtime: compile printed CUDA with NVRTC, cache cubins on disk, launch on torch tensors.

    prog = Program.from_module(module)                 # kernel IR (every `kernel.func`, in order)
    prog = Program(source, manifest)                   # or CUDA source + `print_manifest` dict
    outs = prog.run(x=x, p_weight=w)                   # {buffer name: torch CUDA tensor}
    graph = prog.capture(x=x, p_weight=w)              # the whole program in one CUDA graph
    outs = graph.replay(x=x2, p_weight=w2)             # copies inputs in, replays, returns outputs

Compilation: `nvrtc` from cuda-python (`cuda.bindings`), options `-arch=sm_XY` (the current
device's compute capability, or the manifest's `arch`: `sm_90a` for wgmma), `--std=c++17`,
`--fmad=false` (no multiply-add is contracted behind the IR's back: a product rounds as written,
whether fusion computes it inline or reads it from another kernel's buffer, as on the CPU
executors; the fused multiply-adds dpl wants are `math.fma` in the IR, written by
contract-accumulations and the attention builders), producing a cubin (SASS for that exact
arch, no PTX JIT at load). Cubins are cached on disk
(`backend/cache.py`: `$DPL_CACHE_DIR`, else the user's cache directory, private; each entry checked
on load, a bad one rebuilt with a warning); the key hashes the source, the arch, the options and
the NVRTC version. Loading is `cuModuleLoadData`
in the current (torch's primary) context; launches are `cuLaunchKernel` on the current torch
stream, so they order with torch work and are captured by `torch.cuda.graph`. Kernels whose
static + dynamic shared memory exceeds 48 KiB get `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.

Buffers: kernel arguments are matched across kernels BY NAME (the manifest's argument names, i.e.
the kernel IR's SSA names); one name is one buffer, whose shape and dtype must agree everywhere
(an argument a kernel takes as a row-major view of its buffer counts with the manifest's
`buffer_shape`, the buffer's own: the kernel reads the same memory under its view's shape).
Program inputs are the buffers whose first use is a read; every other buffer is allocated by the
runtime with one `torch.empty` per buffer per run (no reuse or liveness packing yet). `run`
returns every buffer some kernel writes (inputs written in place included), or only those named
by `outputs=`.

Every CUDA driver / NVRTC call's status is checked; failures raise `CudaRuntimeError`, one line
naming the call and the kernel(s) (NVRTC failures carry the compile log, folded onto that line;
the full log is in `.log`). Nothing here touches CUDA at import time: importing works on a machine
without a GPU, and the first compile/launch there raises a one-line `CudaRuntimeError`.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpl.backend.cache import cache_dir, cache_key, cached  # noqa: F401 - cache_dir for callers

DEFAULT_OPTIONS: tuple[str, ...] = ("--std=c++17", "--fmad=false")
STATIC_SMEM_LIMIT = 48 * 1024


class CudaRuntimeError(RuntimeError):
    """A failed CUDA driver / NVRTC call (or no usable GPU); the message is one line."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log


# ---------------------------------------------------------------------------------------------
# Pure helpers (no CUDA needed; unit-tested on the CPU)


def _status_name(status: Any) -> str:
    name = getattr(status, "name", None)
    value = getattr(status, "value", status)
    return f"{name} ({int(value)})" if name else str(value)


def format_error(call: str, kernels: str | Sequence[str], status: Any, detail: str = "") -> str:
    """`cuLaunchKernel failed for kernel 'k': CUDA_ERROR_X (1): detail` on one line."""
    if isinstance(kernels, str):
        kernels = [kernels]
    names = ", ".join(f"'{k}'" for k in kernels)
    what = f"kernel {names}" if len(kernels) == 1 else f"kernels {names}"
    text = f"{call} failed for {what}: {_status_name(status)}"
    if detail:
        text += ": " + fold_lines(detail)
    return text


def fold_lines(text: str, limit: int = 4000) -> str:
    """A multi-line log as one line (` | ` between lines), cut at `limit` characters."""
    line = " | ".join(s.strip() for s in text.strip().splitlines() if s.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# CUDA plumbing (lazy imports)


def _bindings():
    try:
        from cuda.bindings import driver, nvrtc
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise CudaRuntimeError(f"dpl runtime needs cuda-python (cuda.bindings): {e}") from None
    return driver, nvrtc


def _check_driver(result: Any, call: str, kernels: str | Sequence[str]) -> Any:
    """Unpack a driver call's `(CUresult, *values)`; raise on anything but CUDA_SUCCESS."""
    driver, _ = _bindings()
    status, values = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
    if status != driver.CUresult.CUDA_SUCCESS:
        detail = ""
        try:
            err, text = driver.cuGetErrorString(status)
            if err == driver.CUresult.CUDA_SUCCESS and text:
                detail = text.decode()
        except Exception:  # noqa: BLE001 - the message is best effort
            pass
        raise CudaRuntimeError(format_error(call, kernels, status, detail))
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _check_nvrtc(result: Any, call: str, kernels: Sequence[str], log: str = "") -> Any:
    _, nvrtc = _bindings()
    status, values = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CudaRuntimeError(format_error(call, kernels, status, log), log=log)
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _ensure_context() -> int:
    """Make torch's primary context current on this thread; return the torch device index."""
    import torch

    if not torch.cuda.is_available():
        raise CudaRuntimeError("dpl runtime: no CUDA device available (torch.cuda.is_available() is False)")
    driver, _ = _bindings()
    device = torch.cuda.current_device()
    torch.cuda.init()
    _check_driver(driver.cuInit(0), "cuInit", "<runtime>")
    ctx = _check_driver(driver.cuCtxGetCurrent(), "cuCtxGetCurrent", "<runtime>")
    if ctx is None or int(ctx) == 0:
        dev = _check_driver(driver.cuDeviceGet(device), "cuDeviceGet", "<runtime>")
        ctx = _check_driver(driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain", "<runtime>")
        _check_driver(driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", "<runtime>")
    return device


def device_arch(device: int | None = None) -> str:
    """`sm_XY` of the current (or given) torch CUDA device."""
    import torch

    if not torch.cuda.is_available():
        raise CudaRuntimeError("dpl runtime: no CUDA device available (torch.cuda.is_available() is False)")
    major, minor = torch.cuda.get_device_capability(device)
    return f"sm_{major}{minor}"


def nvrtc_version() -> str:
    _, nvrtc = _bindings()
    major, minor = _check_nvrtc(nvrtc.nvrtcVersion(), "nvrtcVersion", ["<runtime>"])
    return f"{major}.{minor}"


@dataclass
class CompileResult:
    cubin: bytes
    path: Path | None  # the cache entry (None when nothing was cached)
    cache_hit: bool
    arch: str
    options: tuple[str, ...]


def compile_cuda(
    source: str,
    kernels: Sequence[str] = (),
    arch: str | None = None,
    options: Sequence[str] = DEFAULT_OPTIONS,
    use_cache: bool = True,
) -> CompileResult:
    """CUDA C++ -> cubin with NVRTC, through the disk cache. `kernels` only names errors."""
    names = list(kernels) or ["<source>"]
    arch = arch or device_arch()
    opts = (f"-arch={arch}", *options)
    key = cache_key(source, arch, opts, nvrtc_version())
    cubin, path, hit = cached(key, lambda: _nvrtc_compile(source, names, arch, opts), use_cache)
    return CompileResult(cubin, path, hit, arch, opts)


def _nvrtc_compile(source: str, names: Sequence[str], arch: str, opts: Sequence[str]) -> bytes:
    """CUDA C++ -> cubin with NVRTC (no cache)."""
    _, nvrtc = _bindings()
    prog = _check_nvrtc(
        nvrtc.nvrtcCreateProgram(source.encode(), b"dpl_kernels.cu", 0, [], []),
        "nvrtcCreateProgram",
        names,
    )
    try:
        status = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])[0]
        log = ""
        size = _check_nvrtc(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize", names)
        if size > 1:
            buf = b" " * size
            _check_nvrtc(nvrtc.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog", names)
            log = buf.rstrip(b"\x00 ").decode(errors="replace")
        _check_nvrtc((status,), f"nvrtcCompileProgram ({arch})", names, log)
        size = _check_nvrtc(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize", names)
        cubin = b" " * size
        _check_nvrtc(nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN", names)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return cubin


# ---------------------------------------------------------------------------------------------
# Programs

_SCALAR_CTYPES = {
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "int16": ctypes.c_int16,
    "int8": ctypes.c_int8,
    "bool": ctypes.c_bool,
}


def _torch_dtype(name: str):
    import torch

    table = {
        "float32": torch.float32,
        "float64": torch.float64,
        "float16": torch.float16,
        "int32": torch.int32,
        "int64": torch.int64,
        "int16": torch.int16,
        "int8": torch.int8,
        "bool": torch.bool,
    }
    if name not in table:
        raise ValueError(f"dpl runtime: dtype {name} has no torch form")
    return table[name]


@dataclass
class Buffer:
    name: str
    shape: tuple[int, ...]
    dtype: str
    is_input: bool = False
    written: bool = False
    scalar: bool = False


@dataclass
class Kernel:
    name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int
    static_smem_bytes: int
    args: list[str]
    function: Any = None


def load_kernels(
    source: str, kernels: Sequence[Kernel], use_cache: bool = True, arch: str | None = None
) -> tuple[Any, CompileResult]:
    """Compile `source` (through the cache) for `arch` (default: the device's `sm_XY`; `sm_90a`
    for wgmma), load it into the current context and look up each kernel's function (set on
    `kernel.function`). Returns (CUmodule, CompileResult)."""
    driver, _ = _bindings()
    _ensure_context()
    names = [k.name for k in kernels]
    compiled = compile_cuda(source, names, arch=arch, use_cache=use_cache)
    image = ctypes.create_string_buffer(compiled.cubin, len(compiled.cubin))
    module = _check_driver(driver.cuModuleLoadData(ctypes.addressof(image)), "cuModuleLoadData", names)
    for k in kernels:
        k.function = _check_driver(
            driver.cuModuleGetFunction(module, k.name.encode()), "cuModuleGetFunction", k.name
        )
        if k.smem_bytes + k.static_smem_bytes > STATIC_SMEM_LIMIT:
            attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            _check_driver(
                driver.cuFuncSetAttribute(k.function, attr, k.smem_bytes),
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                k.name,
            )
    return module, compiled


def current_stream() -> Any:
    """torch's current CUDA stream as a driver CUstream."""
    import torch

    driver, _ = _bindings()
    return driver.CUstream(torch.cuda.current_stream().cuda_stream)


def scalar_arg(k: Kernel, name: str, dtype: str, value: Any) -> Any:
    """A by-value kernel argument: `value` as the ctypes scalar of `dtype`."""
    ctype = _SCALAR_CTYPES.get(dtype)
    if ctype is None:
        raise ValueError(f"dpl runtime: kernel '{k.name}': scalar {name} of {dtype}")
    return ctype(value)


def launch_kernel(k: Kernel, args: Sequence[Any], stream: Any) -> None:
    """`cuLaunchKernel` of loaded `k` on `stream`; tensors pass their data pointer, ctypes
    scalars pass by value."""
    driver, _ = _bindings()
    holders = [a if isinstance(a, ctypes._SimpleCData) else ctypes.c_void_p(a.data_ptr()) for a in args]
    params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
    _check_driver(
        driver.cuLaunchKernel(
            k.function, *k.grid, *k.block, k.smem_bytes, stream, ctypes.addressof(params), 0
        ),
        "cuLaunchKernel",
        k.name,
    )


@dataclass
class Program:
    """A sequence of kernels over named buffers, compiled and launched on the current GPU."""

    source: str
    manifest: Mapping[str, Any]
    kernels: list[Kernel] = field(init=False)
    buffers: dict[str, Buffer] = field(init=False)
    compiled: CompileResult | None = field(init=False, default=None)
    _module: Any = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.kernels, self.buffers = [], {}
        for k in self.manifest["kernels"]:
            kernel = Kernel(
                name=k["name"],
                grid=tuple(k["grid"]),  # type: ignore[arg-type]
                block=tuple(k["block"]),  # type: ignore[arg-type]
                smem_bytes=int(k.get("smem_bytes", 0)),
                static_smem_bytes=int(k.get("static_smem_bytes", 0)),
                args=[a["name"] for a in k["args"]],
            )
            for a in k["args"]:
                shape = tuple(a.get("buffer_shape", a["shape"]))  # a view's buffer is bound whole
                role = a["role"]
                buf = self.buffers.get(a["name"])
                if buf is None:
                    buf = Buffer(a["name"], shape, a["dtype"], is_input=role in ("in", "inout"),
                                 scalar=not shape and role == "in")  # fmt: skip
                    self.buffers[a["name"]] = buf
                elif (buf.shape, buf.dtype) != (shape, a["dtype"]):
                    raise ValueError(
                        f"dpl runtime: kernel '{kernel.name}': buffer '{a['name']}' is "
                        f"{list(shape)} {a['dtype']} here but {list(buf.shape)} {buf.dtype} "
                        "in an earlier kernel"
                    )
                if role in ("out", "inout"):
                    buf.written = True
            self.kernels.append(kernel)
        if not self.kernels:
            raise ValueError("dpl runtime: the program has no kernels")

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def from_module(cls, module: Any, kernels: Iterable[str] | None = None) -> Program:
        """From kernel IR: every `kernel.func` in order, or only those named in `kernels`."""
        from xdsl.dialects.builtin import ModuleOp

        from dpl.backend.cuda_printer import kernel_funcs, print_cuda, print_manifest

        if kernels is not None:
            wanted = list(kernels)
            funcs = {f.sym_name.data: f for f in kernel_funcs(module)}
            missing = [k for k in wanted if k not in funcs]
            if missing:
                raise ValueError(f"dpl runtime: no kernel.func named {', '.join(missing)}")
            module = ModuleOp([funcs[k].clone() for k in wanted])
        return cls(print_cuda(module), print_manifest(module))

    @classmethod
    def from_text(cls, text: str, name: str = "<string>", kernels: Iterable[str] | None = None) -> Program:
        from dpl.dialects import make_context
        from dpl.dialects.parsing import LocatingParser

        module = LocatingParser(make_context(), text, name).parse_module()
        module.verify()
        return cls.from_module(module, kernels)

    @property
    def inputs(self) -> list[str]:
        return [b.name for b in self.buffers.values() if b.is_input]

    @property
    def outputs(self) -> list[str]:
        return [b.name for b in self.buffers.values() if b.written]

    @property
    def kernel_names(self) -> list[str]:
        return [k.name for k in self.kernels]

    # -- compile and load -------------------------------------------------------------------------

    def load(self, use_cache: bool = True) -> Program:
        """Compile (through the cache) and load the module once; idempotent."""
        if self._module is None:
            self._module, self.compiled = load_kernels(
                self.source, self.kernels, use_cache, arch=self.manifest.get("arch")
            )
        return self

    # -- running ----------------------------------------------------------------------------------

    def allocate(self, inputs: Mapping[str, Any], out: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every buffer: given inputs (checked), given `out` tensors, else one torch.empty each."""
        import torch

        device = torch.device("cuda", torch.cuda.current_device())
        out = dict(out or {})
        unknown = [n for n in [*inputs, *out] if n not in self.buffers]
        if unknown:
            raise ValueError(f"dpl runtime: program has no buffer named {', '.join(unknown)}")
        missing = [n for n in self.inputs if n not in inputs]
        if missing:
            raise ValueError(f"dpl runtime: missing input {', '.join(missing)} for {self.kernel_names}")
        tensors: dict[str, Any] = {}
        for name, buf in self.buffers.items():
            given = inputs.get(name, out.get(name))
            if buf.scalar:
                tensors[name] = given
                continue
            if given is None:
                tensors[name] = torch.empty(buf.shape, dtype=_torch_dtype(buf.dtype), device=device)
                continue
            want = (buf.shape, _torch_dtype(buf.dtype))
            if tuple(given.shape) != buf.shape or given.dtype != want[1]:
                raise ValueError(
                    f"dpl runtime: buffer '{name}' wants {list(buf.shape)} {buf.dtype}, got "
                    f"{list(given.shape)} {given.dtype}"
                )
            if not given.is_cuda or not given.is_contiguous():
                raise ValueError(f"dpl runtime: buffer '{name}' must be a contiguous CUDA tensor")
            tensors[name] = given
        return tensors

    def launch(self, tensors: Mapping[str, Any]) -> None:
        """Launch every kernel, in order, on the current torch stream."""
        self.load()
        stream = current_stream()
        for k in self.kernels:
            launch_kernel(k, [self._arg(k, name, tensors[name]) for name in k.args], stream)

    def _arg(self, k: Kernel, name: str, value: Any) -> Any:
        buf = self.buffers[name]
        return scalar_arg(k, name, buf.dtype, value) if buf.scalar else value

    def run(
        self,
        inputs: Mapping[str, Any] | None = None,
        out: Mapping[str, Any] | None = None,
        outputs: Sequence[str] | None = None,
        **kw: Any,
    ) -> dict[str, Any]:
        """Run once (asynchronously on the current stream); returns {name: tensor} of outputs."""
        tensors = self.allocate({**(inputs or {}), **kw}, out)
        self.launch(tensors)
        return {n: tensors[n] for n in (outputs or self.outputs)}

    def capture(self, inputs: Mapping[str, Any] | None = None, **kw: Any) -> GraphProgram:
        """Capture the whole program (all launches) in one torch.cuda.CUDAGraph."""
        import torch

        self.load()
        given = {**(inputs or {}), **kw}
        static = {n: (v.clone() if hasattr(v, "clone") else v) for n, v in given.items()}
        tensors = self.allocate(static)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside capture, as torch recommends
            self.launch(tensors)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.launch(tensors)
        return GraphProgram(self, graph, tensors)


@dataclass
class GraphProgram:
    """A captured program: static buffers plus a CUDA graph that launches every kernel."""

    program: Program
    graph: Any
    tensors: dict[str, Any]

    def replay(self, inputs: Mapping[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        """Copy any given inputs into the static buffers, replay; returns the static outputs."""
        for name, value in {**(inputs or {}), **kw}.items():
            if name not in self.program.inputs:
                raise ValueError(f"dpl runtime: captured program has no input named {name}")
            if self.program.buffers[name].scalar:
                raise ValueError(f"dpl runtime: scalar input {name} is baked into the graph")
            self.tensors[name].copy_(value)
        self.graph.replay()
        return self.outputs

    @property
    def outputs(self) -> dict[str, Any]:
        return {n: self.tensors[n] for n in self.program.outputs}
