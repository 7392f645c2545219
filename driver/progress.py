"""A progress display for long compiles, and the time each stage took.

    progress = Progress()                     # shows itself only when stderr is a terminal
    with progress.stage("capture"):
        ...
    for i, name in enumerate(kernels):
        progress.step("nvrtc", i, len(kernels), name)
    progress.times                            # {"capture": 3.1, "nvrtc": 5.0, ...} seconds

One status line on stderr, redrawn in place (`dpl: nvrtc 3/17 k_linear_2  [4.2 s]`), then one
line per finished stage with its time. When stderr is not a terminal (a pipe, a log file, a test)
nothing is written; the times are recorded either way, so a caller can report them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class Progress:
    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self.stream) if enabled is None else enabled
        #: Seconds per finished stage, in order (a stage run twice adds up).
        self.times: dict[str, float] = {}
        self._stage: str | None = None
        self._start = 0.0

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the stage `name`; show it while it runs and its time when it ends."""
        outer, outer_start = self._stage, self._start
        self._stage, self._start = name, time.perf_counter()
        self._show(f"{name} ...")
        try:
            yield
        finally:
            took = time.perf_counter() - self._start
            self.times[name] = self.times.get(name, 0.0) + took
            self._show(f"{name} {took:.1f} s", final=True)
            self._stage, self._start = outer, outer_start

    def step(self, name: str, done: int, total: int, what: str = "") -> None:
        """Within the current stage: `done` of `total` steps of `name` finished, now `what`."""
        elapsed = time.perf_counter() - self._start if self._stage else 0.0
        label = f"{name} {done}/{total}" + (f" {what}" if what else "")
        self._show(f"{label} [{elapsed:.1f} s]")

    def _show(self, text: str, final: bool = False) -> None:
        if not self.enabled:
            return
        # back to the line's start, the text, then clear what a longer line left (ANSI EL)
        self.stream.write(f"\rdpl: {text}\x1b[K" + ("\n" if final else ""))
        self.stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


#: A display that shows nothing (the default of the compile functions).
def quiet() -> Progress:
    return Progress(enabled=False)
