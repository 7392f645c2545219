"""Range checks for pass options, called from each pass's `__post_init__`, so a bad value is a
one-line error where the pipeline is built, before any pass runs:

    dpl-opt: error: register-tile: option rows must be in [1, 16], got 0
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.passes import ModulePass


def check_option(
    p: ModulePass,
    option: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: Sequence[object] | None = None,
) -> None:
    """Raise a one-line ValueError unless `p`'s `option` (its field name) lies in [lo, hi] (either
    end may be open) or among `choices`; None (an option left to the module's target) passes."""
    value = getattr(p, option)
    if value is None:
        return
    if choices is not None:
        ok, allowed = value in choices, "one of " + ", ".join(map(str, choices))
    else:
        ok = (lo is None or value >= lo) and (hi is None or value <= hi)
        if lo is not None and hi is not None:
            allowed = f"in [{lo}, {hi}]"
        else:
            allowed = f"at least {lo}" if lo is not None else f"at most {hi}"
    if not ok:
        name = option.replace("_", "-")
        raise ValueError(f"{p.name}: option {name} must be {allowed}, got {value}")
