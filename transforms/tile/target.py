"""The GPU target option of the tile passes that depend on the hardware: `sm_80`, `sm_90`, ...

`parse_target("sm_90")` gives the compute capability as an integer (90), so passes compare
`>= 80` (cp.async) or `>= 90` (TMA). A malformed value raises a one-line ValueError.
"""

from __future__ import annotations

import re

CP_ASYNC = 80
"""The first compute capability with cp.async (Ampere)."""

TMA = 90
"""The first compute capability with the TMA engine / bulk async copies (Hopper)."""


def parse_target(target: str) -> int:
    """`sm_<N>` -> N (e.g. sm_80 -> 80, sm_120 -> 120); anything else is a ValueError."""
    match = re.fullmatch(r"sm_([1-9][0-9]*)", target)
    if match is None:
        raise ValueError(
            f"bad target '{target}': expected sm_<compute capability> such as sm_80, sm_90 "
            "or sm_120"
        )
    return int(match.group(1))
