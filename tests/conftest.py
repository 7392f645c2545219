"""Shared test set-up: every test starts from the same torch random state, so a failure seen in
CI replays here; `pass_log` collects what the passes log to `dpl.passes` (pytest runs without
its logging plugin, `-p no:logging`). The run ends with its peak resident memory (the suite must
fit its machine: issue 15 asks for under 4 GB)."""

from __future__ import annotations

import logging
import resource

import pytest
import torch


@pytest.fixture(autouse=True)
def _seed_torch():
    torch.manual_seed(0)


class PassLog(logging.Handler):
    """The `dpl.passes` records while attached."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def pass_log():
    logger = logging.getLogger("dpl.passes")
    log, old_level = PassLog(), logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(log)
    yield log
    logger.removeHandler(log)
    logger.setLevel(old_level)


def peak_rss_gb() -> tuple[float, float]:
    """(this process's peak resident memory, the largest of its finished children's), in GB
    (Linux reports ru_maxrss in KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return own * 1024 / 1e9, children * 1024 / 1e9


def pytest_terminal_summary(terminalreporter):
    own, child = peak_rss_gb()
    terminalreporter.write_line(
        f"peak resident memory: {own:.2f} GB (pytest), {child:.2f} GB (largest subprocess)"
    )
