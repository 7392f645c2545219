"""GPU time of a few launches, the way the tuner measures each candidate kernel.

    ms = time_launches(launch, reps=None)    # per-call times (ms), L2 flushed before each
    statistics.median(ms)

`launch()` enqueues the work on torch's current stream (a kernel and its `_init` zero fill, say).
It is captured once in a CUDA graph (eager launches where capture fails), warmed up, then each
timed replay is preceded by an L2 flush (reading a buffer of twice the L2, so no dirty lines are
written back inside the timed call) and bracketed by CUDA events. `reps=None` picks enough
replays for about `target_ms` of GPU time (between `min_reps` and `max_reps`). Needs torch with
CUDA; importing this module does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_FLUSH: dict[int, Any] = {}


def flush_l2() -> None:
    """Evict L2 on the current device by reading a buffer of twice its size."""
    import torch

    idx = torch.cuda.current_device()
    buf = _FLUSH.get(idx)
    if buf is None:
        l2 = int(getattr(torch.cuda.get_device_properties(idx), "L2_cache_size", 0))
        buf = _FLUSH[idx] = torch.ones(max(2 * l2, 1 << 20) // 4, dtype=torch.float32, device="cuda")
    buf.sum()


def time_launches(
    launch: Callable[[], None],
    reps: int | None = None,
    warmup: int = 2,
    target_ms: float = 20.0,
    min_reps: int = 10,
    max_reps: int = 200,
    flush: bool = True,
) -> list[float]:
    """GPU milliseconds of each of `reps` timed replays of `launch` (see the module docstring)."""
    import torch

    stream = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    side.wait_stream(stream)
    with torch.cuda.stream(side):  # warm up outside capture, as torch asks
        for _ in range(warmup):
            launch()
    stream.wait_stream(side)
    torch.cuda.synchronize()
    replay: Callable[[], None] = launch
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            launch()
        replay = graph.replay
    except Exception:  # noqa: BLE001 - a launch that cannot be captured is timed eagerly
        torch.cuda.synchronize()
    replay()
    torch.cuda.synchronize()
    if reps is None:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        replay()
        end.record()
        end.synchronize()
        one = max(start.elapsed_time(end), 1e-3)
        reps = int(min(max_reps, max(min_reps, target_ms / one)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(starts, ends):
        if flush:
            flush_l2()
        s.record()
        replay()
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]
