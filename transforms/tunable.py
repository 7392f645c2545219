"""Tunable pass options: the values the autotuner may give an option, declared on the option.

    @dataclass(frozen=True)
    class RegisterTile(ModulePass):
        rows: int = tunable(4, (1, 2, 4, 8))

`tunable(default, choices)` is the option's dataclass field (so xDSL parses and prints it like any
other option) with the choices in its metadata; `tunables(PassClass)` lists a pass's tunable
options. The search space of a kernel is read from the passes of its class's pipeline (see
`schedule_space.kernel_space`): one dimension per tunable option name, so two passes of one pipeline
that declare the same name (`rows`) share it. A choice only says what the tuner may try; whether
it is legal for a kernel is left to the pass (its `__post_init__` range check, its declines, the
verifiers after it), never to the tuner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

TUNABLE = "dpl.tunable"
"""The dataclass-field metadata key holding a tunable option's choices."""
TUNABLE_CLASSES = "dpl.tunable.classes"
"""The metadata key holding the kernel classes a tunable option is tuned in (None: all)."""


def tunable(default: Any, choices: Sequence[Any], classes: Sequence[str] | None = None) -> Any:
    """A pass option field with `default` whose tuned values are drawn from `choices` (in an order
    where neighbours are alike: the tuner mutates an option to the next or previous choice).
    `classes`: the kernel classes (schedule_classes.classify) whose kernels it changes, where a
    pass runs in other classes' pipelines too (blockify-launch's `row-trips`: rows only); None:
    every class whose pipeline runs the pass."""
    if not choices:
        raise ValueError("a tunable option needs at least one choice")
    meta = {TUNABLE: tuple(choices), TUNABLE_CLASSES: None if classes is None else tuple(classes)}
    return dataclasses.field(default=default, metadata=meta)


def tunables(cls: type, kernel_class: str | None = None) -> dict[str, tuple[Any, ...]]:
    """The tunable options of pass class `cls` (field name -> choices), in declaration order; with
    `kernel_class`, those tuned in that class."""
    if not dataclasses.is_dataclass(cls):
        return {}
    return {
        f.name: f.metadata[TUNABLE]
        for f in dataclasses.fields(cls)
        if TUNABLE in f.metadata
        and (kernel_class is None or f.metadata[TUNABLE_CLASSES] is None or kernel_class in f.metadata[TUNABLE_CLASSES])
    }
