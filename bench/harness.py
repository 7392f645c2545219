"""Benchmark harness: dpl's compiled program against PyTorch eager and torch.compile.

Measured the way DESIGN.md's "Measuring" says, the same way for every variant:

    from dpl.bench.harness import benchmark, format_table
    r = benchmark("rmsnorm", torch.nn.RMSNorm(2048), (torch.randn(1, 32, 2048),), profile=True)
    print(format_table(r))          # r is a JSON-able dict

* each variant is built (dpl: `dpl.driver.compile.compile`; torch.compile default mode and
  max-autotune, `fullgraph=True` where it captures, `dynamic=False`), run once (its compile time is
  recorded; dpl's outputs poisoned with NaN first, so an element it never writes fails) and
  checked against `fn` run in float64 (eager fp32 where that fails; `reference` says which), by
  ‖out − ref‖/‖ref‖ over all outputs (`rel_err`) and per element by |out − ref| / (atol +
  rtol·|ref|) (`elem_err`, <= 1 passes; `elem_bad` elements past it),
  rtol = `tol` (the program's DESIGN.md bar: 1e-5, or 1e-4 with matmul/attention) and atol = tol
  × the output's RMS (`dpl.driver.compile.Parity`); eager gets the same numbers (fp32's own);
* `gpu_time` warms up, captures the calls in one `torch.cuda.CUDAGraph` (falling back to eager
  launches, with a note, when capture fails), times replays with CUDA events and reports the median
  (the loop is backend/timing.py's, the tuner's too);
* the L2 cache is kept out of the numbers (`l2="auto"`): a program whose inputs + parameters +
  outputs already exceed 2× L2 is timed as is; one whose parameters are small gets its inputs
  rotated (several copies, together over 2× L2, called in turn inside one graph; time / calls);
  otherwise (parameters that would stay in L2 between calls, e.g. a 7 MB weight) L2 is flushed by
  reading a 2× L2 buffer before each timed replay (reads, so no dirty lines are written back
  during the timed call);
* the physical floor is max(bytes / measured copy bandwidth, flops / measured cuBLAS fp32 rate),
  bytes and flops from dpl's kernels (`.bytes`, `.flops`); with `profile=True` each dpl kernel is
  timed alone (L2 flushed first) and gets its GB/s, GFLOP/s and fraction of its floor.

On a CPU device (`device="cpu"`, for tests) timing falls back to the host clock, without graphs.
Importing this module needs no GPU.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import gc
import inspect
import json
import math
import re
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch

from dpl.backend.cache import write_atomic
from dpl.backend.timing import flush_l2, l2_bytes, time_replays
from dpl.driver.compile import compare, float64_reference, parity_tolerance
from dpl.driver.compile import compile as dpl_compile
from dpl.frontend.check import rel_err

#: The comparison variants besides dpl, in table order ("dpl-backend": the same program through
#: torch.compile(backend="dpl"), to compare with dpl's own launch of it).
ALL_MODES = ("eager", "compile", "max-autotune", "dpl-backend")
DEFAULT_MODES = ("eager", "compile", "max-autotune")
SCHEMA = "dpl-bench/1"

# ----------------------------------------------------------------------------- small helpers


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0][:300] if text else type(e).__name__


def _tensors(x: Any) -> list[torch.Tensor]:
    """The tensors in a (nested) tuple/list/dict output, in order."""
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for y in x for t in _tensors(y)]
    if isinstance(x, dict):
        return [t for y in x.values() for t in _tensors(y)]
    return []


def nbytes(x: Any) -> int:
    return sum(t.numel() * t.element_size() for t in _tensors(x))


def param_bytes(fn: Any) -> int:
    """Bytes of an nn.Module's parameters and buffers (0 for plain callables), each counted once."""
    if not isinstance(fn, torch.nn.Module):
        return 0
    seen: dict[int, int] = {}
    for t in list(fn.parameters()) + list(fn.buffers()):
        seen[t.data_ptr()] = t.numel() * t.element_size()
    return sum(seen.values())


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the positive finite values (None when there are none)."""
    vals = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def device_slug(name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'h100-80gb-hbm3'."""
    s = re.sub(r"^nvidia\s+", "", name.strip(), flags=re.I).lower()
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-") or "device"


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _percentile(sorted_vals: Sequence[float], q: float) -> float:
    if not sorted_vals:
        return math.nan
    k = (len(sorted_vals) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def _stats(per_call_ms: list[float]) -> dict[str, float]:
    s = sorted(per_call_ms)
    return {
        "median_ms": statistics.median(s),
        "p10_ms": _percentile(s, 0.10),
        "p90_ms": _percentile(s, 0.90),
        "min_ms": s[0],
        "n": len(s),
    }


# ----------------------------------------------------------------------------- L2 handling


def rotating_sets(inputs: Sequence[Any], total_bytes: int, *, max_copies: int = 512) -> list[tuple]:
    """`inputs` plus clones, enough that all the sets together exceed `total_bytes` (the first set
    is `inputs` itself). Non-tensor arguments are shared."""
    one = nbytes(list(inputs))
    copies = 1 if one <= 0 else min(max_copies, max(1, math.ceil(total_bytes / one)))
    sets = [tuple(inputs)]
    for _ in range(copies - 1):
        sets.append(tuple(x.clone() if isinstance(x, torch.Tensor) else x for x in inputs))
    return sets


# ----------------------------------------------------------------------------- timing


def gpu_time(
    fn: Callable[..., Any],
    arg_sets: Sequence[Sequence[Any]],
    *,
    replays: int | None = None,
    warmup: int = 2,
    graph: bool = True,
    flush: bool = False,
    target_ms: float = 200.0,
    max_replays: int = 1000,
    min_replays: int = 10,
) -> dict[str, Any]:
    """GPU time of one call of `fn`.

    One replay calls `fn(*args)` once for each set in `arg_sets` (rotation: pass copies so that
    they exceed 2× L2 together), captured in one CUDA graph when `graph` (eager launches, with a
    `note`, when capture fails). Each replay is bracketed by CUDA events; the per-call time of a
    replay is its event time / len(arg_sets). With `flush`, L2 is flushed before every timed
    replay (outside the events). `replays=None` picks enough replays for about `target_ms`.

    Returns {median_ms, p10_ms, p90_ms, min_ms, n (replays), calls_per_replay, graph (whether
    timed replays were graph replays), flush, note?}. On a CPU device it times with the host clock.
    """
    arg_sets = [tuple(a) for a in arg_sets] or [()]
    calls = len(arg_sets)
    devs = [t.device for a in arg_sets for t in _tensors(list(a))]
    device = devs[0] if devs else torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def run_all() -> None:
        for a in arg_sets:
            fn(*a)

    if device.type != "cuda":
        for _ in range(warmup):
            run_all()
        n = replays or min_replays
        per = []
        for _ in range(n):
            t0 = time.perf_counter()
            run_all()
            per.append((time.perf_counter() - t0) * 1e3 / calls)
        return {**_stats(per), "calls_per_replay": calls, "graph": False, "flush": False,
                "note": "host clock (no GPU)"}

    t = time_replays(run_all, replays, warmup=warmup, graph=graph, flush=flush, target_ms=target_ms,
                     min_reps=min_replays, max_reps=max_replays, device=device)  # fmt: skip
    out = {**_stats([ms / calls for ms in t.ms]), "calls_per_replay": calls, "graph": t.graph, "flush": flush}
    if t.note:
        out["note"] = t.note
    return out


_CACHE: dict[tuple, float] = {}


def _private_generator(dev: torch.device) -> torch.Generator:
    """A CUDA generator of our own for the ceilings' random operands: a graph capture that
    failed in this process (gpu_time's eager fallback) leaves torch's default CUDA generator
    registered with that capture, and drawing from it then raises 'Offset increment outside
    graph capture'."""
    return torch.Generator(device=dev).manual_seed(0)


def measure_copy_bandwidth(nbytes_: int = 1 << 30, device: int | None = None) -> float:
    """Device-to-device copy bandwidth in bytes/s, counting bytes read + written (cached)."""
    idx = torch.cuda.current_device() if device is None else device
    key = ("copy", idx, nbytes_)
    if key not in _CACHE:
        dev = torch.device("cuda", idx)
        src = torch.randn(nbytes_ // 4, device=dev, generator=_private_generator(dev))
        dst = torch.empty_like(src)
        t = gpu_time(lambda: dst.copy_(src), [()], replays=30, warmup=3)
        _CACHE[key] = 2 * src.numel() * 4 / (t["median_ms"] * 1e-3)
        del src, dst
    return _CACHE[key]


def measure_cublas_fp32(n: int = 8192, device: int | None = None) -> float:
    """torch.matmul n×n×n fp32 with TF32 off, in FLOP/s (2n³ / median time; cached)."""
    idx = torch.cuda.current_device() if device is None else device
    key = ("cublas", idx, n)
    if key not in _CACHE:
        dev = torch.device("cuda", idx)
        gen = _private_generator(dev)
        a, b = (torch.randn(n, n, device=dev, generator=gen) for _ in range(2))
        c = torch.empty(n, n, device=dev)
        prev = torch.backends.cuda.matmul.allow_tf32
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.backends.cuda.matmul.allow_tf32 = False
            t = gpu_time(lambda: torch.matmul(a, b, out=c), [()], replays=10, warmup=2, graph=False)
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.backends.cuda.matmul.allow_tf32 = prev
        _CACHE[key] = 2.0 * n**3 / (t["median_ms"] * 1e-3)
        del a, b, c
    return _CACHE[key]


def environment(device: int | None = None, *, ceilings: bool = True) -> dict[str, Any]:
    """Device, software and measured ceilings, for the top of a results file."""
    env: dict[str, Any] = {
        "schema": SCHEMA,
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
    }
    with contextlib.suppress(Exception):
        import triton

        env["triton"] = triton.__version__
    if not torch.cuda.is_available():
        env.update(device="cpu", device_slug="cpu")
        return env
    idx = torch.cuda.current_device() if device is None else device
    p = torch.cuda.get_device_properties(idx)
    env.update(
        device=p.name,
        device_slug=device_slug(p.name),
        capability=f"{p.major}.{p.minor}",
        sms=p.multi_processor_count,
        l2_bytes=l2_bytes(idx),
        memory_bytes=p.total_memory,
        cuda=torch.version.cuda,
        tf32_matmul=bool(torch.backends.cuda.matmul.allow_tf32),
    )
    if ceilings:
        env["copy_gbs"] = measure_copy_bandwidth(device=idx) / 1e9
        env["cublas_fp32_gflops"] = measure_cublas_fp32(device=idx) / 1e9
    return env


# ----------------------------------------------------------------------------- variants


def _reference64(fn: Any, inputs: Sequence[Any]) -> list[torch.Tensor] | None:
    """`fn` in float64 on the inputs' device, or None where it cannot run so."""
    try:
        return float64_reference(fn, [x for x in inputs])
    except Exception:  # noqa: BLE001 - a callable holding fp32 tensors, or out of memory
        return None


def _torch_compile(fn: Callable[..., Any], mode: str, inputs: Sequence[Any]) -> tuple[Any, Any, dict]:
    """torch.compile `fn` (fullgraph if it captures whole) and run it once: (compiled, out, info).

    max-autotune uses "max-autotune-no-cudagraphs": gpu_time captures its own CUDA graph around
    every variant alike, and inductor's cudagraph trees cannot be captured inside another graph.
    """
    if mode == "dpl-backend":
        from dpl.driver.dynamo import register

        register()
        kw: dict[str, Any] = {"backend": "dpl"}
    else:
        kw = {"mode": {"compile": "default", "max-autotune": "max-autotune-no-cudagraphs"}[mode]}
    info: dict[str, Any] = {"torch_compile_" + k: v for k, v in kw.items()}
    torch._dynamo.reset()
    try:
        c = torch.compile(fn, **kw, fullgraph=True, dynamic=False)
        out = c(*inputs)
        info["fullgraph"] = True
    except Exception as e:  # noqa: BLE001 - graph breaks: compile with them, say so
        torch._dynamo.reset()
        info["fullgraph"] = False
        info["fullgraph_error"] = _one_line(e)
        c = torch.compile(fn, **kw, fullgraph=False, dynamic=False)
        out = c(*inputs)
    return c, out, info


def _kernel_info(k: Any) -> dict[str, Any]:
    def plain(v: Any) -> Any:
        try:
            return [int(x) for x in v] if isinstance(v, (tuple, list)) else (None if v is None else int(v))
        except (TypeError, ValueError):
            return str(v)

    return {
        "name": str(getattr(k, "name", "?")),
        "grid": plain(getattr(k, "grid", None)),
        "block": plain(getattr(k, "block", None)),
        "bytes": int(getattr(k, "bytes", 0) or 0),
        "flops": float(getattr(k, "flops", 0) or 0),
    }


def floor_ms(nbytes_: float, flops: float, copy_bps: float | None, flops_ps: float | None) -> float | None:
    """max(bytes / copy bandwidth, flops / matmul rate) in ms (None without the ceilings)."""
    terms = []
    if copy_bps:
        terms.append(nbytes_ / copy_bps)
    if flops_ps:
        terms.append(flops / flops_ps)
    return max(terms) * 1e3 if terms else None


def benchmark(
    name: str,
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    *,
    dpl: Any = None,
    modes: Sequence[str] | str = DEFAULT_MODES,
    profile: bool = False,
    check: bool = True,
    replays: int | None = None,
    warmup: int = 2,
    target_ms: float = 200.0,
    l2: str = "auto",
    device: str | torch.device | None = None,
    ceilings: bool = True,
    verbose: bool = False,
    float64: bool = True,
) -> dict[str, Any]:
    """Time dpl, eager and torch.compile on `fn(*inputs)`; a JSON-able dict (see format_table).

    `dpl`: None compiles `fn` with `dpl.driver.compile.compile`; an already compiled program
    (anything with `.kernels`) is used as is; another callable is used as the compile function
    (`dpl(fn, *inputs)`); False leaves dpl out. `modes`: subset of ALL_MODES (or "a,b").
    `l2`: "auto", "rotate", "flush" or "none" (see the module docstring). A variant that fails to
    build, run or time gets an "error" entry and the rest still run. `float64=False` skips the
    float64 copy of `fn` (a whole 7B model's would not fit beside it: the caller checked it).
    """
    if isinstance(modes, str):
        modes = [m.strip() for m in modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in ALL_MODES]
    if bad:
        raise ValueError(f"unknown benchmark mode '{bad[0]}' (known: {', '.join(ALL_MODES)})")
    if l2 not in ("auto", "rotate", "flush", "none"):
        raise ValueError(f"unknown l2 policy '{l2}' (known: auto, rotate, flush, none)")
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("benchmark: no CUDA GPU available")

    def log(msg: str) -> None:
        if verbose:
            print(f"  [{name}] {msg}", flush=True)

    # dpl compiles first, from CPU copies: dpl.compile captures on the CPU (torch.export).
    dpl_built: Any = None
    dpl_entry: dict[str, Any] = {}
    if dpl is not False:
        if dpl is not None and hasattr(dpl, "kernels") and not isinstance(dpl, type):
            dpl_built = dpl
        else:
            t0 = time.perf_counter()
            try:
                comp = dpl_compile if dpl is None else dpl
                src = fn
                if isinstance(fn, torch.nn.Module) and any(
                    t.device.type != "cpu" for t in list(fn.parameters()) + list(fn.buffers())
                ):
                    src = copy.deepcopy(fn).cpu()
                cpu_inputs = [x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in inputs]
                dpl_built = comp(src, *cpu_inputs)
                dpl_entry["compile_s"] = time.perf_counter() - t0
                log(f"dpl: compiled in {dpl_entry['compile_s']:.1f} s")
            except Exception as e:  # noqa: BLE001 - recorded; the other variants still run
                dpl_entry["error"] = _one_line(e)
                log(f"dpl: compile error: {dpl_entry['error']}")

    if isinstance(fn, torch.nn.Module):
        fn = fn.to(dev)
        try:
            fn.eval()
        except NotImplementedError:  # torch.export's module has no train/eval switch
            pass
    inputs = tuple(x.to(dev) if isinstance(x, torch.Tensor) else x for x in inputs)

    res: dict[str, Any] = {
        "name": name,
        "inputs": [list(x.shape) for x in inputs if isinstance(x, torch.Tensor)],
        "dtypes": sorted({str(x.dtype).replace("torch.", "") for x in _tensors(list(inputs))}),
        "input_bytes": nbytes(list(inputs)),
        "param_bytes": param_bytes(fn),
        "variants": {},
    }
    copy_bps = flops_ps = None
    if dev.type == "cuda" and ceilings:
        copy_bps, flops_ps = measure_copy_bandwidth(), measure_cublas_fp32()
        res["copy_gbs"], res["cublas_fp32_gflops"] = copy_bps / 1e9, flops_ps / 1e9

    with torch.no_grad():
        ref = fn(*inputs)
        _sync(dev)
        ref64 = _reference64(fn, inputs) if float64 else None
        res["reference"] = "float64" if ref64 is not None else "eager fp32"
        program = getattr(dpl_built, "program", None)
        res["tol"] = parity_tolerance(program) if hasattr(program, "module") else 1e-4

        def check_output(entry: dict[str, Any], out: Any) -> None:
            if ref64 is None:
                entry["rel_err"] = rel_err(_tensors(out), _tensors(ref))
                return
            try:
                p = compare(_tensors(out), _tensors(ref64), res["tol"])
            except ValueError:  # a different number or shape of outputs
                entry["rel_err"] = math.inf
                return
            entry["rel_err"], entry["elem_err"], entry["elem_bad"] = p.rel_err, p.elem_err, p.bad
        res["output_bytes"] = nbytes(ref)
        total = res["input_bytes"] + res["param_bytes"] + res["output_bytes"]
        cache = 2 * l2_bytes(dev) if dev.type == "cuda" else 0

        policy = l2
        if policy == "auto":
            if dev.type != "cuda" or total >= cache:
                policy = "none"
            elif res["param_bytes"] <= cache // 16:
                policy = "rotate"
            else:
                policy = "flush"
        arg_sets = rotating_sets(inputs, cache) if policy == "rotate" else [inputs]
        res["l2"] = {"policy": policy, "sets": len(arg_sets), "l2_bytes": cache // 2}

        def timed(call: Callable[..., Any]) -> dict[str, Any]:
            return gpu_time(call, arg_sets, replays=replays, warmup=warmup,
                            flush=policy == "flush", target_ms=target_ms)

        compiled = None
        variants = (["dpl"] if dpl is not False else []) + list(modes)
        for mode in variants:
            entry: dict[str, Any] = dict(dpl_entry) if mode == "dpl" else {}
            res["variants"][mode] = entry
            if "error" in entry:
                continue
            call = None
            try:
                t0 = time.perf_counter()
                if mode == "dpl":
                    call = compiled = dpl_built
                    # its outputs start as NaN, so an element it never writes fails the check
                    # (not last run's answer left in a reused buffer)
                    poison = "poison" in inspect.signature(call).parameters
                    out = call(*inputs, poison=True) if poison else call(*inputs)
                    entry["first_call_s"] = time.perf_counter() - t0  # NVRTC + module load
                elif mode == "eager":
                    call, out = fn, ref
                else:
                    call, out, info = _torch_compile(fn, mode, inputs)
                    entry.update(info)
                _sync(dev)
                if mode in ("compile", "max-autotune", "dpl-backend"):
                    entry["compile_s"] = time.perf_counter() - t0
                    log(f"{mode}: built in {entry['compile_s']:.1f} s")
                if (mode != "eager" or ref64 is not None) and (check or mode != "dpl"):
                    check_output(entry, out)
                if ref64 is not None:
                    entry["err64"] = rel_err(out, ref64)
                del out
                entry.update(timed(call))
                log(f"{mode}: {entry['median_ms']:.4f} ms")
            except Exception as e:  # noqa: BLE001 - record and go on with the other variants
                entry["error"] = _one_line(e)
                log(f"{mode}: error: {entry['error']}")
                with contextlib.suppress(Exception):
                    _sync(dev)
            finally:
                if mode in ("compile", "max-autotune", "dpl-backend"):
                    del call
                    torch._dynamo.reset()

        # dpl's kernels, floor and per-kernel times
        if compiled is not None:
            res["precision"] = getattr(compiled, "precision", None)
            _dpl_kernels(res, compiled, inputs, profile, copy_bps, flops_ps, dev, log)

    _ratios(res)
    gc.collect()
    if dev.type == "cuda":
        torch.cuda.empty_cache()
    return res


def _dpl_kernels(res, compiled, inputs, profile, copy_bps, flops_ps, dev, log) -> None:
    d = res["variants"]["dpl"]
    try:
        kernels = [_kernel_info(k) for k in compiled.kernels()]
    except Exception as e:  # noqa: BLE001
        d["kernels_error"] = _one_line(e)
        return
    res["num_kernels"] = int(getattr(compiled, "num_kernels", len(kernels)))
    res["bytes"] = sum(k["bytes"] for k in kernels)
    res["flops"] = sum(k["flops"] for k in kernels)
    # Program floor: its inputs, parameters and outputs cross memory once; all kernels' flops.
    io = res["input_bytes"] + res["param_bytes"] + res["output_bytes"]
    res["floor_ms"] = floor_ms(io, res["flops"], copy_bps, flops_ps)
    if res["floor_ms"] and d.get("median_ms"):
        d["floor_frac"] = res["floor_ms"] / d["median_ms"]
    for k in kernels:
        k["floor_ms"] = floor_ms(k["bytes"], k["flops"], copy_bps, flops_ps)
    res["kernels"] = kernels
    if not profile:
        return
    try:
        launchers = list(compiled.kernel_launchers(*inputs))
    except Exception as e:  # noqa: BLE001
        res["profile_error"] = _one_line(e)
        return
    by_name: dict[str, list[dict]] = {}
    for k in kernels:
        by_name.setdefault(k["name"], []).append(k)
    rows = []
    for i, (kname, launch) in enumerate(launchers):
        cands = by_name.get(kname) or []
        row = dict(cands.pop(0)) if cands else (dict(kernels[i]) if i < len(kernels) else {"name": kname})
        try:
            t = gpu_time(launch, [()], flush=dev.type == "cuda", target_ms=50.0)
            row.update(median_ms=t["median_ms"], p10_ms=t["p10_ms"], p90_ms=t["p90_ms"],
                       graph=t["graph"])
            s = t["median_ms"] * 1e-3
            row["gbs"] = row.get("bytes", 0) / s / 1e9
            row["gflops"] = row.get("flops", 0) / s / 1e9
            if row.get("floor_ms"):
                row["floor_frac"] = row["floor_ms"] / t["median_ms"]
        except Exception as e:  # noqa: BLE001
            row["error"] = _one_line(e)
        rows.append(row)
        log(f"kernel {kname}: {row.get('median_ms', float('nan')):.4f} ms")
    res["profile"] = rows
    res["kernel_sum_ms"] = sum(r.get("median_ms", 0.0) for r in rows)


def _ratios(res: dict[str, Any]) -> None:
    """speedup[mode] = mode time / dpl time (> 1: dpl is faster); err_ratio = dpl's error
    against float64 over eager's (DESIGN.md: a faster path keeps it <= 2)."""
    v = res["variants"]
    d64, e64 = v.get("dpl", {}).get("err64"), v.get("eager", {}).get("err64")
    res["err_ratio"] = d64 / e64 if d64 is not None and e64 else None
    dpl_ms = v.get("dpl", {}).get("median_ms")
    res["speedup"] = {}
    for mode in ALL_MODES:
        ms = v.get(mode, {}).get("median_ms")
        if mode in v:
            res["speedup"][mode] = ms / dpl_ms if ms and dpl_ms else None


# ----------------------------------------------------------------------------- formatting


def _fmt(v: Any, spec: str = ".4f", none: str = "-") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return none
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return format(v, spec)


def _size(n: float | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def _grid(v: Any) -> str:
    return "x".join(str(x) for x in v) if isinstance(v, (list, tuple)) else str(v)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def format_table(res: dict[str, Any]) -> str:
    """A text table of one benchmark result: each variant, the dpl floor, the kernels."""
    l2 = res.get("l2", {})
    head = (f"{res['name']}: inputs {' '.join('x'.join(map(str, s)) for s in res.get('inputs', []))}"
            f" ({_size(res.get('input_bytes'))}), params {_size(res.get('param_bytes'))},"
            f" outputs {_size(res.get('output_bytes'))}; L2 {l2.get('policy', '?')}"
            + (f" ({l2['sets']} input sets)" if l2.get("policy") == "rotate" else ""))
    if res.get("precision"):
        head += f"; dpl matmuls in {res['precision']}"
    lines = [head]
    dpl_ms = res["variants"].get("dpl", {}).get("median_ms")
    rows = []
    for mode, e in res["variants"].items():
        if "error" in e and "median_ms" not in e:
            rows.append([mode, "error"] + [""] * 7 + [e["error"][:80]])
            continue
        ratio = e["median_ms"] / dpl_ms if dpl_ms and mode != "dpl" else None
        note = []
        if not e.get("graph", True):
            note.append("no graph")
        if e.get("fullgraph") is False:
            note.append("graph breaks")
        if e.get("note") and "graph capture failed" in e["note"]:
            note[-1:] = [e["note"][:80]]
        rows.append([
            mode, _fmt(e.get("median_ms")), _fmt(e.get("p10_ms")), _fmt(e.get("p90_ms")),
            _fmt(ratio, ".2f") + ("x" if ratio else ""), _fmt(e.get("rel_err"), ".1e"),
            _fmt(e.get("err64"), ".1e"), _fmt(e.get("elem_err"), ".2g"), _fmt(e.get("compile_s"), ".1f"),
            "; ".join(note),
        ])
    lines += _table(["variant", "median ms", "p10", "p90", f"{'mode/dpl':>8}", "rel err",
                     "err64", "elem/bound", "build s", "note"], rows)
    if res.get("num_kernels") is not None:
        fl = res.get("floor_ms")
        frac = res["variants"].get("dpl", {}).get("floor_frac")
        lines.append(
            f"dpl: {res['num_kernels']} kernels, {_size(res.get('bytes'))} kernel buffers,"
            f" {res.get('flops', 0) / 1e9:.3f} GFLOP; floor {_fmt(fl, '.4f')} ms"
            + (f" (dpl at {100 * frac:.1f}% of floor)" if frac else "")
        )
    if res.get("profile"):
        krows = []
        for k in res["profile"]:
            krows.append([
                k.get("name", "?"), _grid(k.get("grid")), _grid(k.get("block")),
                _fmt(k.get("median_ms")), _size(k.get("bytes")), _fmt(k.get("gbs"), ".0f"),
                _fmt(k.get("gflops"), ".0f"),
                _fmt(100 * k["floor_frac"], ".1f") + "%" if k.get("floor_frac") else "-",
            ])
        lines.append("")
        lines += _table(["kernel", "grid", "block", "ms", "bytes", "GB/s", "GFLOP/s", "of floor"], krows)
        if dpl_ms:
            lines.append(f"sum of kernels {res.get('kernel_sum_ms', 0):.4f} ms (each alone, L2 flushed)"
                         f" vs program {dpl_ms:.4f} ms")
    if res.get("profile_error"):
        lines.append(f"profile: {res['profile_error']}")
    return "\n".join(lines)


def summary_rows(cases: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-case summary (one row per case)."""
    header = ["case", "precision", "dpl ms", "eager ms", "compile ms", "max-at ms", "eager/dpl",
              "compile/dpl", "max-at/dpl", "rel err", "err64 dpl/eager", "kernels"]
    backend = any("dpl-backend" in c.get("variants", {}) for c in cases)
    if backend:
        header += ["backend ms", "backend/dpl"]
    rows = []
    for c in cases:
        v = c.get("variants", {})
        sp = c.get("speedup", {})
        ms = lambda m: _fmt(v.get(m, {}).get("median_ms"), ".4f", "err" if "error" in v.get(m, {}) else "-")  # noqa: E731
        x = lambda m: (_fmt(sp.get(m), ".2f") + "x") if sp.get(m) else "-"  # noqa: E731
        e64 = lambda m: _fmt(v.get(m, {}).get("err64"), ".1e")  # noqa: E731
        rows.append([
            c["name"] + (" (skipped)" if c.get("skipped") else ""), str(c.get("precision") or "-"),
            ms("dpl"), ms("eager"), ms("compile"), ms("max-autotune"), x("eager"), x("compile"),
            x("max-autotune"), _fmt(v.get("dpl", {}).get("rel_err"), ".1e"),
            f"{e64('dpl')} / {e64('eager')}" + (f" ({c['err_ratio']:.2f})" if c.get("err_ratio") else ""),
            str(c.get("num_kernels", "-")),
        ] + ([ms("dpl-backend"), (_fmt(sp.get("dpl-backend"), ".3f") + "x") if sp.get("dpl-backend") else "-"]
             if backend else []))
    return header, rows


def geomeans(cases: list[dict[str, Any]]) -> dict[str, float | None]:
    """Geometric mean speedup of dpl over each mode, over the cases that have both times."""
    return {m: geomean(c.get("speedup", {}).get(m) for c in cases) for m in ALL_MODES}


def format_summary(doc: dict[str, Any]) -> str:
    """The suite's table: one row per case, then geometric means."""
    cases = doc.get("cases", [])
    header, rows = summary_rows(cases)
    lines = []
    if doc.get("device"):
        lines.append(
            f"{doc['device']}, torch {doc.get('torch', '?')}, {doc.get('date', '?')}:"
            f" copy {_fmt(doc.get('copy_gbs'), '.0f')} GB/s,"
            f" cuBLAS fp32 {_fmt((doc.get('cublas_fp32_gflops') or 0) / 1e3, '.1f')} TFLOP/s"
        )
    lines += _table(header, rows)
    gm = doc.get("geomean") or geomeans(cases)
    parts = [f"vs {m} {gm[m]:.2f}x" for m in ALL_MODES if gm.get(m) is not None]
    lines.append("geomean speedup of dpl: " + (", ".join(parts) if parts else "-"))
    return "\n".join(lines)


def write_json(path: str, doc: dict[str, Any]) -> None:
    """Write `doc` (NaN/inf as null) atomically: the text is made first, then written to a
    temporary file renamed over `path`, so a failure leaves the old results as they were."""

    def clean(x: Any) -> Any:
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    write_atomic(path, json.dumps(clean(doc), indent=1) + "\n")
