"""GPU time of a few launches: the one timing loop of the tuner (driver/tune.py) and the bench
harness (bench/harness.py's gpu_time).

    t = time_replays(run, reps=None)         # t.ms: per-replay times (ms); t.graph; t.note
    ms = time_launches(launch)               # the tuner's: L2 flushed before each replay

`run()` enqueues the work on torch's current stream (a kernel and its `_init` zero fill, say). It
is warmed up on a side stream, captured once in a CUDA graph (eager launches, with a `note` saying
why, where capture fails or `graph=False`), then each timed replay is bracketed by CUDA events,
with `flush` preceded by an L2 flush (reading a buffer of twice the L2, so no dirty lines are
written back inside the timed call). `reps=None` picks enough replays for about `target_ms` of
GPU time (between `min_reps` and `max_reps`). Needs torch with CUDA; importing this module does
not.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_FLUSH: dict[int, Any] = {}


def l2_bytes(device: Any = None) -> int:
    """The L2 cache size of `device` (default: device 0); 0 without CUDA."""
    import torch

    if not torch.cuda.is_available():
        return 0
    return int(getattr(torch.cuda.get_device_properties(device or 0), "L2_cache_size", 0))


def flush_l2(device: Any = None) -> None:
    """Evict L2 by reading a buffer of 2x L2 (reads leave no dirty lines to write back later)."""
    import torch

    dev = torch.device(device or "cuda")
    idx = dev.index if dev.index is not None else torch.cuda.current_device()
    buf = _FLUSH.get(idx)
    if buf is None:
        n = max(2 * l2_bytes(idx), 1 << 20) // 4
        buf = _FLUSH[idx] = torch.ones(n, dtype=torch.float32, device=torch.device("cuda", idx))
    buf.sum()


@dataclass
class Timed:
    ms: list[float]
    """GPU milliseconds of each timed replay."""
    graph: bool
    """Whether the replays were CUDA graph replays."""
    note: str | None = None
    """Why not, when capture failed."""


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0][:300] if text else type(e).__name__


def time_replays(
    run: Callable[[], None],
    reps: int | None = None,
    *,
    warmup: int = 2,
    graph: bool = True,
    flush: bool = True,
    target_ms: float = 20.0,
    min_reps: int = 10,
    max_reps: int = 200,
    device: Any = None,
) -> Timed:
    """Time replays of `run` on the GPU (see the module docstring)."""
    import torch

    device = torch.device(device or "cuda")
    stream = torch.cuda.current_stream(device)
    side = torch.cuda.Stream(device)
    side.wait_stream(stream)
    with torch.cuda.stream(side):  # warm up outside capture, as torch asks
        for _ in range(warmup):
            run()
    stream.wait_stream(side)
    torch.cuda.synchronize(device)

    replay: Callable[[], None] = run
    g = None
    note = None
    if graph:
        try:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                run()
            torch.cuda.synchronize(device)
            replay = g.replay
        except Exception as e:  # noqa: BLE001 - any capture failure: time eager launches
            note = f"graph capture failed, eager launches timed: {_one_line(e)}"
            g = None
            with contextlib.suppress(Exception):
                torch.cuda.synchronize(device)
            replay = run

    replay()  # the first replay uploads the graph
    torch.cuda.synchronize(device)
    if reps is None:
        if flush:
            flush_l2(device)
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0.record()
        replay()
        t1.record()
        t1.synchronize()
        one = max(t0.elapsed_time(t1), 1e-3)
        reps = int(min(max_reps, max(min_reps, target_ms / one)))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(starts, ends):
        if flush:
            flush_l2(device)
        s.record()
        replay()
        e.record()
    torch.cuda.synchronize(device)
    out = Timed([s.elapsed_time(e) for s, e in zip(starts, ends)], g is not None, note)
    del g
    return out


def time_launches(launch: Callable[[], None], reps: int | None = None, **options: Any) -> list[float]:
    """GPU milliseconds of each timed replay of `launch`, L2 flushed before each (the tuner's
    measure; `options` as time_replays')."""
    return time_replays(launch, reps, **options).ms
