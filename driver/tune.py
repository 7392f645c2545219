"""`dpl tune`: search each kernel's schedule space on the GPU and keep the fastest in the cache.

    kernels = program_kernels(prog.module)            # the distinct loop kernels, each alone
    results = tune(kernels, TuneCache(), GpuMeasurer(), budget_s=300)

What is searched. A kernel is a `loop.kernel` as `schedule` sees it (after split-nests), copied
into a scratch @main of its buffers; equal kernels (`tuned.kernel_key`) are tuned once. Its space
is `schedule.kernel_space`: the tunable options of its class's passes. A point is scheduled by
`schedule` at that point (`tile.point`) and lowered by the rest of the kernel pipeline, exactly as
`dpl compile` would with the point in the cache. A point that a pass rejects, that does not
compile or whose output differs from the default schedule's is ruled out with its reason (never by
a rule of the tuner's own). Points that lower to the same CUDA and launches are measured once;
such a repeat counts as 1 / `REPEATS_PER_TRIAL` of a trial, so that a kernel whose points mostly
lower alike (a small softmax: 95 of 98 built points repeated three) ends its search instead of
building repeats until the budget runs out.

How. Candidates are compiled in parallel on the host (`workers` processes: schedule, materialize,
CUDA, NVRTC into the kernel cache), and measured one at a time by `GpuMeasurer`, a process of its
own (a candidate that crashes the GPU context or hangs costs that process, not the run): the
kernel's launches alone on random inputs (integer buffers zero), checked against the default
schedule's outputs (outputs poisoned with NaN first), then timed: CUDA graph, L2 flushed before
each replay, CUDA events, median (`backend.timing`). The search (`tune_search`: `evolve` by
default, or `random`) proposes points kernel by kernel in turn, so every kernel gets its share
of the budget. Each result is written to the cache as it comes (a killed run keeps it, and the
next run goes on from there without measuring those points again; a point whose measurement was
cut short by a crash is not tried again); the best point so far is the kernel's pick from its
first improvement on. When a kernel's search ends, its best points are measured again against
the default, in turns, and the pick is confirmed: the fastest, if it beats the default by
`MARGIN`, else the default. Kernels with a confirmed pick are served from the cache (no
measurement) unless `retune`.

`--budget-s` bounds the search's time (the confirmations take its end: `CONFIRM_S` a kernel,
between a tenth and 30%); on a terminal a progress line shows the kernel just measured and its
best time so far.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Protocol

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from dpl.backend import runtime
from dpl.backend.timing import time_launches
from dpl.dialects import loop, make_context
from dpl.dialects.parsing import parse_module
from dpl.driver.blocks import find_repeats, split
from dpl.driver.host import HostProgram
from dpl.driver.progress import Progress, quiet
from dpl.driver.tune_cache import MEASURING, TuneCache, canonical
from dpl.driver.tune_search import Point, Space, make_search
from dpl.driver.tuned import kernel_key, split_at_schedule
from dpl.frontend.check import rel_err
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline, with_precision
from dpl.transforms.tile.schedule import (
    MATMUL_TILES,
    POINT,
    SPLIT_EPILOGUE,
    TENSOR_CORES,
    Schedule,
    classify,
    kernel_space,
    point_attr,
    scratch_module,
    unused_options,
)
from dpl.transforms.tile.schedule_mma import check_precision

#: A tuned point is kept only if its confirmed time beats the default's by this fraction.
MARGIN = 0.03
#: The best points re-measured against the default when a kernel's search ends.
CONFIRM_TOP = 3
#: Seconds a kernel's confirmation takes (its best points and the default measured in turns):
#: the search stops that much before the budget's end for each kernel still searching.
CONFIRM_S = 0.6
#: Points of one kernel in flight at once (proposed, not yet measured): the search learns from
#: results as they come, and on synthetic costs it finds the best points with 4 to 8 in flight
#: (1 is too greedy, 30 nearly random).
IN_FLIGHT = 6
#: Points that lower to the CUDA of a point measured before, counted as one trial.
REPEATS_PER_TRIAL = 4
#: Relative error (‖candidate − default‖ / ‖default‖) a candidate may have: DESIGN.md's bars.
TOLERANCE = {"matmul": 1e-4, "attention": 1e-4}
DEFAULT_TOLERANCE = 1e-5


def _cut() -> tuple[str, str]:
    cut = split_at_schedule(IR_PIPELINES["kernel"])
    assert cut is not None, "the kernel pipeline has no schedule"
    return cut


#: torch IR -> the loop kernels `schedule` sees; `schedule` and the rest, to kernel IR.
BEFORE_SCHEDULE, FROM_SCHEDULE = _cut()


# ------------------------------------------------------------------------------------------------
# The kernels of a program


@dataclass
class Kernel:
    """A loop kernel to tune, alone in a scratch module."""

    key: str
    name: str
    cls: str
    text: str  # the scratch module (loop IR) holding the kernel alone
    space: dict[str, tuple[Any, ...]]
    default: Point
    seeds: list[Point]
    outs: list[int]  # positions of the scratch @main's arguments that the kernel writes
    poison: list[int]  # those of them it does not read: NaN before a checked run
    uses: int = 1  # how many kernels of the programs share this key
    precision: str = "3xtf32"  # the matmuls' precision it is tuned at (the schedule's, resolved)

    @property
    def tolerance(self) -> float:
        return TOLERANCE.get(self.cls, DEFAULT_TOLERANCE)

    def normalize(self, point: Point) -> Point:
        """`point` with the options it leaves unused (`schedule.unused_options`) at the default's."""
        unused = unused_options(point, self.space)
        return {k: self.default[k] if k in unused and k in self.default else v for k, v in point.items()}


def loop_pieces(module: ModuleOp) -> list[ModuleOp]:
    """Torch-level `module` as the pieces the compiler lowers (a repeated block once)."""
    main = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    repeats = find_repeats(main)
    if repeats is None:
        return [module]
    return [p.module for p in split(module, main, repeats)]


def program_kernels(module: ModuleOp, known: dict[str, Kernel] | None = None,
                    precision: str | None = None) -> list[Kernel]:  # fmt: skip
    """The distinct loop kernels of torch-level `module`, in order, tuned at the matmul
    `precision` (ieee, 3xtf32, tf32; None: the schedule's default). With `known` (key -> Kernel,
    shared by several programs), a kernel already there is that Kernel, counted once more in
    its `uses`, and a new one is added to it."""
    known = {} if known is None else known
    schedule = Schedule() if precision is None else Schedule(precision=precision)
    ctx = make_context()
    out: dict[str, Kernel] = {}
    for piece in loop_pieces(module):
        piece = piece.clone()
        run_pipeline(piece, BEFORE_SCHEDULE)
        for k in [k for k in piece.walk() if isinstance(k, loop.KernelOp)]:
            key = kernel_key(k, schedule)
            if key in known:
                known[key].uses += 1
            else:
                known[key] = _kernel(ctx, k, key, schedule)
            out.setdefault(key, known[key])
    return list(out.values())


def _kernel(ctx, k: loop.KernelOp, key: str, schedule: Schedule) -> Kernel:
    schedule = schedule.resolved(k)
    scratch, _ = scratch_module(k)
    (copy,) = [o for o in scratch.walk() if isinstance(o, loop.KernelOp)]
    copy.attributes.pop(POINT, None)
    args = list(dict.fromkeys([*k.ins, *k.outs]))
    space = kernel_space(k, schedule.precision, schedule.target, schedule.sms)
    default = schedule.default_point(ctx, k)
    seeds = [default]
    if classify(k) == "matmul":  # the launch model's runner-ups: the other tiles, the other epilogue
        simt = {**default, TENSOR_CORES: False} if TENSOR_CORES in space else default
        seeds += [{**simt, "rows": t.rows, "cols": t.cols} for t in MATMUL_TILES]
    if TENSOR_CORES in space:  # the tensor cores the other way, and every tile of the model's
        on = {**default, TENSOR_CORES: True}
        seeds += [on, *({**on, "bm": bm, "bn": bn} for bm, bn in ((128, 128), (64, 128), (64, 64), (128, 256)))]
    if SPLIT_EPILOGUE in space:
        seeds.append({**default, SPLIT_EPILOGUE: not default.get(SPLIT_EPILOGUE)})
    if classify(k) == "flash attention":  # the flash kernel's neighbours: key tile, rows, splits
        seeds += [{**default, "tile": t} for t in (32, 64) if t != default["tile"]]
        seeds += [{**default, "rows": 128}, {**default, "splits": 1 if default["splits"] > 1 else 2}]
    outs = [args.index(v) for v in k.outs]
    poison = [args.index(v) for v in k.outs if v not in k.ins]
    precision = check_precision(schedule.precision, schedule.target)
    return Kernel(key, k.sym_name.data, classify(k), str(scratch), space, default, seeds, outs, poison,
                  precision=precision)  # fmt: skip


# ------------------------------------------------------------------------------------------------
# Building a candidate (in a worker process)


def build_candidate(text: str, point: Point, arch: str | None = None, precision: str | None = None) -> dict[str, Any]:
    """Schedule the scratch module `text` at `point` (matmuls at `precision`), lower it to kernel
    IR and CUDA and (with `arch`) compile that with NVRTC into the kernel cache: {"kernel_ir",
    "digest"} or {"error"}."""
    try:
        module = parse_module(make_context(), text, "<candidate>")
        for k in [k for k in module.walk() if isinstance(k, loop.KernelOp)]:
            k.attributes[POINT] = point_attr(point)
        run_pipeline(module, with_precision(FROM_SCHEDULE, precision))
        module.verify()
        host = HostProgram(module)
        digest = hashlib.sha256((host.source + json.dumps(host.manifest, sort_keys=True)).encode()).hexdigest()
        if arch is not None:
            for name, source in host.sources.items():
                runtime.compile_cuda(source, [name], arch=host.archs.get(name) or arch)  # sm_90a for wgmma
        return {"kernel_ir": str(module), "digest": digest}
    except Exception as e:  # noqa: BLE001 - any failure rules the point out, with its reason
        return {"error": _one_line(e)}


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:500]


# ------------------------------------------------------------------------------------------------
# Measuring on the GPU (in a process of its own)


class Measurer(Protocol):
    """What `tune` measures with: `GpuMeasurer`, or a synthetic cost in the CPU tests."""

    device: str
    arch: str | None

    def measure(self, kernel: Kernel, point: Point, reference_ir: str, ir: str) -> tuple[float | None, str | None]: ...

    def confirm(self, kernel: Kernel, points: Sequence[Point], reference_ir: str, irs: Sequence[str]) -> list[float | None]: ...

    def close(self) -> None: ...


class GpuMeasurer:
    """Measures candidates in a child process that holds the GPU (restarted after a crash)."""

    def __init__(self, timeout_s: float = 120.0):
        self.timeout_s = timeout_s
        self._proc = None
        self._conn = None
        info = self._call({"op": "info"})
        if "error" in info:
            self._stop()
            raise ValueError(f"cannot measure: {info['error']}")
        self.device: str = info["device"]
        self.arch: str | None = info["arch"]

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_measure_loop, args=(child,), daemon=True)
        self._proc.start()
        child.close()

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        self._proc = self._conn = None

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._proc is None:
            self._start()
        assert self._conn is not None
        try:
            self._conn.send(request)
            if not self._conn.poll(self.timeout_s):
                self._stop()
                return {"error": f"timed out after {self.timeout_s:.0f} s", "crashed": True}
            reply = self._conn.recv()
            if reply.get("crashed"):  # it exited after answering: the next call starts another
                self._stop()
            return reply
        except (EOFError, OSError, BrokenPipeError):
            self._stop()
            return {"error": "the measuring process died (a crash on the GPU)", "crashed": True}

    def measure(self, kernel: Kernel, point: Point, reference_ir: str, ir: str) -> tuple[float | None, str | None]:
        r = self._call({"op": "measure", "key": kernel.key, "reference": reference_ir, "ir": ir,
                        "outs": kernel.outs, "poison": kernel.poison, "tolerance": kernel.tolerance})  # fmt: skip
        return r.get("us"), r.get("error")

    def confirm(self, kernel: Kernel, points: Sequence[Point], reference_ir: str, irs: Sequence[str]) -> list[float | None]:
        r = self._call({"op": "confirm", "key": kernel.key, "reference": reference_ir, "irs": list(irs),
                        "outs": kernel.outs, "poison": kernel.poison, "tolerance": kernel.tolerance})  # fmt: skip
        return r.get("us", [None] * len(irs))

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        self._stop()


def _measure_loop(conn) -> None:
    """The measuring process: answers requests until it gets None."""
    state: dict[str, Any] = {}
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        try:
            reply = _handle(request, state)
        except Exception as e:  # noqa: BLE001 - reported to the tuner, which rules the point out
            reply = {"error": _one_line(e)}
            if not _gpu_alive():
                conn.send({**reply, "crashed": True})
                os._exit(3)
        conn.send(reply)


def _gpu_alive() -> bool:
    import torch

    try:
        torch.cuda.synchronize()
        return True
    except Exception:  # noqa: BLE001
        return False


def _handle(request: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    import torch  # here, so that importing the tuner (in the building processes) needs no torch

    if request["op"] == "info":
        if not torch.cuda.is_available():
            return {"error": "no CUDA GPU to measure on (torch.cuda.is_available() is False)"}
        return {"device": torch.cuda.get_device_name(0), "arch": runtime.device_arch()}
    kernel = _kernel_state(request, state)
    if request["op"] == "measure":
        return _measure_one(request["ir"], request, kernel)
    rounds = []
    for _ in range(3):  # in turns, so that drift in clocks or temperature hits all alike
        rounds.append([_measure_one(ir, request, kernel, check=False).get("us") for ir in request["irs"]])
    return {"us": [_median([r[i] for r in rounds]) for i in range(len(request["irs"]))]}


#: Bytes of inputs and reference outputs the measuring process keeps for recent kernels (the
#: tuner takes kernels in turns, so each comes back soon).
KEEP_BYTES = 8 << 30


def _kernel_state(request: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The inputs and the default schedule's outputs of the request's kernel, made on first use
    and kept for the most recent kernels."""
    key = request["key"]
    if key in state:
        state[key] = state.pop(key)  # most recent last
        return state[key]
    host = _host(request["reference"])
    inputs = _random_inputs(host)
    kernel = {"inputs": inputs, "reference": _outputs(host, inputs, request)}
    kernel["bytes"] = sum(t.numel() * t.element_size() for t in [*inputs, *kernel["reference"]])
    while state and sum(k["bytes"] for k in state.values()) + kernel["bytes"] > KEEP_BYTES:
        del state[next(iter(state))]
    state[key] = kernel
    return kernel


def _median(values: list[float | None]) -> float | None:
    ok = [v for v in values if v is not None]
    return statistics.median(ok) if ok else None


def _host(ir: str) -> HostProgram:
    return HostProgram(parse_module(make_context(), ir, "<candidate>")).load()


def _random_inputs(host) -> list[Any]:
    """A tensor per scratch argument: normal floats, zero integers (indices stay in range)."""
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    inputs = []
    for i in range(host.num_args):
        t = host._empty(i)
        if t.is_floating_point():
            t.normal_(generator=gen)
        else:
            t.zero_()
        inputs.append(t)
    return inputs


def _outputs(host, inputs: list[Any], request: dict[str, Any]) -> list[Any]:
    """Run `host` once on copies of `inputs` whose outputs start as NaN; the outputs."""
    args = [t.clone() for t in inputs]
    for i in request["poison"]:
        if args[i].is_floating_point():
            args[i].fill_(float("nan"))
    host(*args)
    return [args[i] for i in request["outs"]]


def _measure_one(ir: str, request: dict[str, Any], state: dict[str, Any], check: bool = True) -> dict[str, Any]:
    host = _host(ir)
    if check:
        for got, want in zip(_outputs(host, state["inputs"], request), state["reference"]):
            err = rel_err(got, want)
            if not err <= request["tolerance"]:
                return {"error": f"wrong result: relative error {err:.1e} against the default schedule"}
    tensors = host.bind([t.clone() for t in state["inputs"]])
    calls = host.launchers(tensors)
    ms = time_launches(lambda: [c() for _, c in calls])
    return {"us": statistics.median(ms) * 1e3}


# ------------------------------------------------------------------------------------------------
# The search loop


@dataclass
class Result:
    """What tuning did for one kernel."""

    kernel: Kernel
    default_us: float | None = None
    best_us: float | None = None
    point: Point | None = None
    measured: int = 0  # schedules measured on the GPU in this run
    trials: int = 0  # schedules measured, in this run and the earlier ones
    ruled_out: int = 0  # points ruled out (a pass's check, a compile error, a wrong result)
    cached: bool = False  # served from the cache: nothing measured
    confirmed: bool = False
    note: str = ""

    @property
    def speedup(self) -> float | None:
        if self.default_us and self.best_us:
            return self.default_us / self.best_us
        return None


@dataclass
class _State:
    """One kernel's search in progress."""

    kernel: Kernel
    search: Any
    result: Result
    limit: int
    reference_ir: str | None = None  # the default schedule's kernel IR, once measured
    reference_asked: bool = False
    waiting: list[tuple[Point, dict[str, Any]]] = field(default_factory=list)  # built before the reference
    in_flight: int = 0  # proposed, not yet measured or ruled out
    repeats: int = 0  # built to the CUDA of a point measured before
    by_digest: dict[str, float | None] = field(default_factory=dict)
    irs: dict[str, str] = field(default_factory=dict)  # canonical point -> kernel IR, of the best few
    done: bool = False

    def wants(self) -> bool:
        r = self.result
        return not self.done and r.trials + r.ruled_out + self.repeats / REPEATS_PER_TRIAL + self.in_flight < self.limit

    def can_propose(self) -> bool:
        return self.wants() and self.in_flight < IN_FLIGHT


def tune(
    kernels: Sequence[Kernel],
    cache: TuneCache,
    measurer: Measurer,
    method: str = "evolve",
    trials: int = 64,
    budget_s: float = 300.0,
    workers: int | None = None,
    seed: int = 0,
    retune: bool = False,
    fresh: bool = False,
    progress: Progress | None = None,
    log: Callable[[str], None] | None = None,
    build: Callable[[str, Point, str | None, str | None], dict[str, Any]] = build_candidate,
) -> list[Result]:
    """Tune `kernels` (see the module docstring), at most `trials` points each (measured or
    ruled out); a Result per kernel, in order. `retune`: search again kernels with a confirmed
    pick (going on from their measured points); `fresh`: read nothing from the cache (a new
    search of every kernel, whose results replace the old)."""
    progress = progress or quiet()
    log = log or (lambda _msg: None)
    start = time.perf_counter()
    states = [_start(i, k, cache, measurer.device, method, trials, seed, retune, fresh) for i, k in enumerate(kernels)]
    results = [s.result for s in states]
    states = [s for s in states if not s.done]
    # the end of the budget is kept for the confirmations: about CONFIRM_S a kernel
    search_until = start + budget_s - min(max(CONFIRM_S * len(states), 0.1 * budget_s), 0.3 * budget_s)
    workers = workers or max(1, min(16, os.cpu_count() or 2) - 1)
    pool = _pool(workers) if workers > 1 else None
    pending: dict[Future, tuple[_State, Point]] = {}
    ready: list[tuple[_State, Point, dict[str, Any]]] = []
    turn = 0
    with progress.stage("tune"):
        try:
            while True:
                now = time.perf_counter()
                searching = now < search_until
                for s in states:  # searches that ended: confirm their picks
                    if not s.done and s.in_flight == 0 and (not searching or not s.wants()):
                        _finish(s, cache, measurer, method, log, confirm=now < start + budget_s)
                if all(s.done for s in states):
                    break
                for f in [f for f in pending if f.done()]:
                    s, point = pending.pop(f)
                    try:
                        built = f.result()
                    except Exception as e:  # noqa: BLE001 - a building process died (out of memory, say)
                        built = {"error": f"the building process failed: {_one_line(e)}"}
                    ready.append((s, point, built))
                while searching and len(pending) + len(ready) < 2 * workers:  # the builders busy, in turns
                    wanting = [s for s in states if s.can_propose()]
                    if not wanting:
                        break
                    s = wanting[turn % len(wanting)]
                    turn += 1
                    point = _propose(s)
                    if point is None:
                        continue
                    s.in_flight += 1
                    if pool is None:
                        ready.append((s, point, build(s.kernel.text, point, measurer.arch, s.kernel.precision)))
                        continue
                    try:
                        job = pool.submit(build, s.kernel.text, point, measurer.arch, s.kernel.precision)
                        pending[job] = (s, point)
                    except BrokenProcessPool:  # a worker died: the pool is gone, start another
                        pool.shutdown(wait=False, cancel_futures=True)
                        pool = _pool(workers)
                        job = pool.submit(build, s.kernel.text, point, measurer.arch, s.kernel.precision)
                        pending[job] = (s, point)
                if ready:
                    s, point, built = ready.pop(0)
                    if searching or point == s.kernel.default:
                        _take(s, point, built, cache, measurer, method, log)
                    else:  # out of time: built, not measured
                        s.in_flight -= 1
                    _report(progress, states, s, budget_s)
                elif pending:
                    wait(list(pending), timeout=1.0, return_when=FIRST_COMPLETED)
                elif not searching:  # nothing left in flight: whatever still waits, waits in vain
                    for s in states:
                        s.in_flight, s.waiting = 0, []
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
    return results


def _pool(workers: int) -> ProcessPoolExecutor:
    """Processes that build candidates (spawned: no CUDA or fork state is inherited)."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _start(i: int, k: Kernel, cache: TuneCache, device: str, method: str, trials: int, seed: int,
           retune: bool, fresh: bool) -> _State:  # fmt: skip
    """`k`'s search, told what earlier runs measured (or done: a confirmed pick in the cache)."""
    search = make_search(method, Space(k.space), k.seeds, seed + i, k.normalize)
    state = _State(k, search, Result(k), trials)
    r = state.result
    if fresh:
        return state
    pick = cache.pick(k.key, device)
    if pick is not None and pick.confirmed and not retune:
        r.cached = r.confirmed = state.done = True
        r.point, r.best_us, r.default_us, r.trials = pick.point, pick.us, pick.default_us, pick.trials
        return state
    for t in cache.trials(k.key, device):  # what earlier runs measured is not measured again
        search.tell(t.point, t.us)
        if t.us is None:
            r.ruled_out += 1
            continue
        r.trials += 1
        if t.point == k.default:
            r.default_us = t.us
    ranked = search.measured()
    if ranked:
        r.point, r.best_us = ranked[0]
    return state


def _propose(s: _State) -> Point | None:
    """The next point of `s`'s search (first the default, the reference every candidate is
    checked against, even when an earlier run measured it), or None when it has no more."""
    if not s.reference_asked:
        s.reference_asked = True
        if canonical(s.kernel.default) in s.search.seen:
            return dict(s.kernel.default)
    points = s.search.propose(1)
    if not points:
        s.limit = 0  # the space is exhausted
        return None
    return points[0]


def _take(s: _State, point: Point, built: dict[str, Any], cache: TuneCache, measurer: Measurer,
          method: str, log: Callable[[str], None]) -> None:  # fmt: skip
    """Measure a built candidate (or rule it out) and record the result."""
    s.in_flight = max(0, s.in_flight - 1)
    k, r, device = s.kernel, s.result, measurer.device
    if s.done:
        return
    is_default = point == k.default
    if "error" in built:
        if is_default:
            return _give_up(s, f"the default schedule does not compile: {built['error']}", log)
        return _rule_out(s, point, f"does not compile: {built['error']}", cache, device, method, log)
    if s.reference_ir is None and not is_default:
        s.waiting.append((point, built))  # measured once the default (the reference) is
        s.in_flight += 1
        return
    digest = built["digest"]
    if digest in s.by_digest:  # the same CUDA and launches as a point measured before
        s.repeats += 1
        us = s.by_digest[digest]
        s.search.tell(point, us)
        cache.record(k.key, device, point, us, None if us is not None else "same CUDA as a ruled-out point", method)
        return
    reference = built["kernel_ir"] if is_default else s.reference_ir
    assert reference is not None
    cache.record(k.key, device, point, None, MEASURING, method)  # what a crash leaves behind
    us, error = measurer.measure(k, point, reference, built["kernel_ir"])
    s.by_digest[digest] = us
    r.measured += 1
    if us is None:
        cache.record(k.key, device, point, None, error or "failed", method)
        if is_default:
            return _give_up(s, f"the default schedule could not be measured: {error}", log)
        s.search.tell(point, None)
        r.ruled_out += 1
        log(f"{k.name} {canonical(point)}: ruled out: {error}")
        return
    cache.record(k.key, device, point, us, None, method)
    s.search.tell(point, us)
    if not (is_default and r.default_us is not None):
        r.trials += 1  # (a default an earlier run measured counts once)
    log(f"{k.name} {canonical(point)}: {us:.2f} us")
    _keep_ir(s, point, built["kernel_ir"])
    if is_default:
        r.default_us, s.reference_ir = us, built["kernel_ir"]
        waiting, s.waiting = s.waiting, []
        for p, b in waiting:
            _take(s, p, b, cache, measurer, method, log)
    ranked = s.search.measured()
    r.point, r.best_us = ranked[0]
    if r.default_us and r.best_us < r.default_us * (1 - MARGIN) and canonical(r.point) == canonical(point):
        # the pick from the first improvement on, so that a run cut short leaves it
        cache.set_pick(k.key, device, point, us, r.default_us, r.trials, False, method, k.name)


def _give_up(s: _State, why: str, log: Callable[[str], None]) -> None:
    s.done, s.result.note = True, why
    s.in_flight, s.waiting = 0, []
    log(f"{s.kernel.name}: {why}")


def _keep_ir(s: _State, point: Point, ir: str) -> None:
    """Keep the kernel IR of the best few points (for the confirmation)."""
    s.irs[canonical(point)] = ir
    if len(s.irs) > 2 * CONFIRM_TOP + 2:
        keep = {canonical(p) for p, _ in s.search.measured()[: CONFIRM_TOP + 1]}
        for key in [key for key in s.irs if key not in keep]:
            del s.irs[key]


def _rule_out(s: _State, point: Point, why: str, cache: TuneCache, device: str, method: str,
              log: Callable[[str], None]) -> None:  # fmt: skip
    s.search.tell(point, None)
    s.result.ruled_out += 1
    cache.record(s.kernel.key, device, point, None, why, method)
    log(f"{s.kernel.name} {canonical(point)}: ruled out: {why}")


def _finish(s: _State, cache: TuneCache, measurer: Measurer, method: str, log: Callable[[str], None],
            confirm: bool) -> None:  # fmt: skip
    """End `s`'s search: re-measure its best points against the default and set the pick."""
    s.done = True
    k, r, device = s.kernel, s.result, measurer.device
    if r.default_us is None or s.reference_ir is None:
        r.note = r.note or "not reached within the budget"
        return
    default_key = canonical(k.default)
    top = [p for p, _ in s.search.measured() if canonical(p) in s.irs and canonical(p) != default_key]
    top = top[:CONFIRM_TOP]
    if not confirm and top:  # out of time: the pick stays what was measured once
        return
    times = measurer.confirm(k, [k.default, *top], s.reference_ir, [s.reference_ir, *(s.irs[canonical(p)] for p in top)]) if top else [r.default_us]
    default_us = times[0] if times[0] is not None else r.default_us
    point, us = k.default, default_us
    for p, t in zip(top, times[1:]):
        if t is not None and t < default_us * (1 - MARGIN) and t < us:
            point, us = p, t
    r.default_us, r.best_us, r.point, r.confirmed = default_us, us, point, True
    cache.set_pick(k.key, device, point, us, default_us, r.trials, True, method, k.name)
    log(f"{k.name}: pick {canonical(point)}: {us:.2f} us, default {default_us:.2f} us")


def _report(progress: Progress, states: list[_State], now: _State, budget_s: float) -> None:
    """The progress line: kernels done, points measured, the kernel just measured and its best."""
    done = sum(s.done for s in states)
    measured = sum(s.result.measured for s in states)
    what = f"{measured} measured"
    r = now.result
    if r.default_us and r.best_us:
        what += f", {now.kernel.name}: best {r.best_us:.1f} us ({r.default_us / r.best_us:.2f}x the default)"
    what += f", budget {budget_s:.0f} s"
    progress.step("tune", done, len(states), what)


# ------------------------------------------------------------------------------------------------
# Reports


def format_results(results: Sequence[Result]) -> str:
    """A table: kernel, class, uses, default us, tuned us, speedup, trials, where it came from."""
    rows = [("kernel", "class", "uses", "default us", "tuned us", "speedup", "trials", "")]
    for r in results:
        k = r.kernel
        how = "cache" if r.cached else ("confirmed" if r.confirmed else ("not confirmed" if r.best_us else ""))
        rows.append((
            k.name, k.cls, str(k.uses), _fmt(r.default_us), _fmt(r.best_us),
            f"{r.speedup:.2f}x" if r.speedup else "-", str(r.trials), r.note or how,
        ))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def format_picks(results: Sequence[Result]) -> str:
    """One line per kernel whose pick is not its default: the options it changes, default -> pick
    (so a heuristic that misses can be read off and fixed)."""
    lines = []
    for r in results:
        if r.point is None:
            continue
        changed = {k: v for k, v in r.point.items() if r.kernel.default.get(k) != v}
        if changed:
            moves = ", ".join(f"{k} {str(r.kernel.default.get(k)).lower()} -> {str(v).lower()}"
                              for k, v in changed.items())  # fmt: skip
            lines.append(f"{r.kernel.name}: {moves}")
    return "\n".join(lines)


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def summary(results: Sequence[Result]) -> str:
    measured = sum(r.measured for r in results)
    cached = sum(r.cached for r in results)
    speedups = [r.speedup for r in results if r.speedup]
    geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else 1.0
    return (f"{len(results)} kernels: {cached} from the cache, {measured} points measured; "
            f"geomean {geo:.2f}x over the default schedules (each kernel alone)")  # fmt: skip


def write_stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
