"""Shared test set-up: every test starts from the same torch random state, so a failure seen in
CI replays here; `pass_log` collects what the passes log to `dpl.passes` (pytest runs without
its logging plugin, `-p no:logging`)."""

from __future__ import annotations

import logging

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
