"""Every numeric pass option is range-checked where the pipeline is built (`__post_init__`): a
value outside its range is a one-line error naming the pass, the option and the range, before
any pass runs; the ends of the range are accepted.

RANGES is the specification: every int/float option of every dpl pass must be in it, so a new
option comes with its range."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from xdsl.passes import PassPipeline

from dpl.transforms import all_passes

INF = None
#: (pass, option) -> (lowest, highest) allowed (None: open), or a tuple of the allowed values.
RANGES: dict[tuple[str, str], tuple] = {
    ("blockify-launch", "block-size"): (1, 1024),
    ("blockify-launch", "sms"): (1, INF),
    ("blockify-launch", "row-trips"): (0, INF),
    ("chunk-matmul-k", "k-tile"): (1, INF),
    ("chunk-reduce", "smem-bytes"): (4, 232448),
    ("chunk-variance", "max-chunk"): (1, INF),
    ("chunk-variance", "min-chunk"): (1, INF),
    ("double-buffer", "buffers"): (2, INF),
    ("fuse-launches", "window"): (0, INF),
    ("fuse-loops", "max-recompute-ops"): (0, INF),
    ("fuse-loops", "max-row-tile"): (1, INF),
    ("fuse-loops", "max-prologue-ops"): (0, INF),
    ("fuse-loops", "max-recompute-reduce"): (0, INF),
    ("fuse-loops", "max-column-reduce"): (0, INF),
    ("fuse-loops", "max-select-reads"): (0, INF),
    ("fuse-loops", "max-costly-recompute"): (0, INF),
    ("fuse-loops", "max-copied-ops"): (0, INF),
    ("mark-unroll", "max-extent"): (0, INF),
    ("hold-rows", "max-trips"): (0, INF),
    ("hold-rows", "registers"): (1, INF),
    ("hold-rows", "column-trips"): (1, INF),
    ("hold-rows", "long-column"): (1, INF),
    ("hold-rows", "long-column-trips"): (1, INF),
    ("pad-columns", "threads"): (1, INF),
    ("merge-columns", "threads"): (1, INF),
    ("merge-columns", "sms"): (1, INF),
    ("pad-matmul", "rows"): (1, INF),
    ("pad-matmul", "cols"): (1, INF),
    ("pad-matmul", "threads"): (1, INF),
    ("pad-matmul", "whole-k"): (0, INF),
    ("pad-matmul", "sms"): (1, INF),
    ("pad-matmul", "k-tile"): (1, INF),
    ("pad-smem", "pad"): (1, INF),
    ("repack-operands", "align"): (1, INF),
    ("repack-operands", "k-tile"): (1, INF),
    ("permute-register-tile", "group"): (1, INF),
    ("permute-register-tile", "short-k"): (0, INF),
    ("pipeline-k-outer", "depth"): (2, INF),
    ("register-tile", "rows"): (1, 16),
    ("register-tile", "cols"): (1, 16),
    ("schedule", "sms"): (1, INF),
    ("set-target", "sms"): (1, INF),
    ("set-target", "smem-bytes"): (1, 232448),
    ("split-inner-for-swizzle", "swizzle"): ("choices", 32, 64, 128),
    ("split-matmul-k", "splits"): (0, INF),
    ("split-matmul-k", "sms"): (1, INF),
    ("split-matmul-k", "blocks-per-sm"): (1, INF),
    ("split-matmul-k", "atomic-trips"): (0.0, INF),
    ("split-matmul-k", "contention-trips"): (0.0, INF),
    ("split-matmul-k", "min-trips"): (1, INF),
    ("split-matmul-k", "short-k-splits"): (0, INF),
    ("split-matmul-k", "tile-elements"): (1, INF),
    ("split-matmul-k", "sparse-tile"): (0, INF),
    ("split-reduce", "sms"): (1, INF),
    ("split-reduce", "blocks-per-sm"): (1, INF),
    ("split-reduce", "min-trips"): (1, INF),
    ("stage-inputs", "min-reuse"): (1, INF),
    ("tensorize-matmul", "bm"): (64, 256),
    ("tensorize-matmul", "bn"): (8, 256),
    ("tensorize-matmul", "promote"): ("choices", 4, 2, 1),
    ("tile-attention", "rows"): (16, 128),
    ("tile-attention", "tile"): (8, 128),
    ("tile-attention", "chain"): (0, 64),
    ("tile-attention", "splits"): (1, 64),
    ("tile-attention", "wide"): (0, 2),
    ("tile-attention", "qsplit"): (0, 1),
    ("tile-attention", "wgmma"): (0, 1),
    ("stage-inputs", "smem-bytes"): (4, 232448),
    ("vectorize-pointwise", "width"): (1, INF),
    ("vectorize-pointwise", "min-threads"): (0, INF),
    ("collapse-pointwise", "width"): (1, INF),
    ("collapse-pointwise", "min-tail-bytes"): (0, INF),
    ("order-blocks", "min-bytes"): (0, INF),
}


def _numeric_options() -> set[tuple[str, str]]:
    found = set()
    for name, factory in all_passes().items():
        cls = factory()
        if not cls.__module__.startswith("dpl.") or not dataclasses.is_dataclass(cls):
            continue
        for f in dataclasses.fields(cls):
            if f.type in ("int", "float", "int | None", "float | None", int, float):
                found.add((name, f.name.replace("_", "-")))
    return found


def _build(pass_name: str, option: str, value) -> None:
    PassPipeline.parse_spec(all_passes(), f"{pass_name}{{{option}={value}}}")


def test_every_numeric_option_has_a_range():
    assert _numeric_options() == set(RANGES)


def _bad_and_good(spec: tuple) -> tuple[list, list]:
    if spec[0] == "choices":
        allowed = list(spec[1:])
        return [min(allowed) - 1, max(allowed) + 1, allowed[0] + 1], allowed
    lo, hi = spec
    step = 0.5 if isinstance(lo, float) else 1
    bad = [lo - step] + ([hi + step] if hi is not None else [])
    good = [lo] + ([hi] if hi is not None else [lo * 2 + 10**6])
    return bad, good


@pytest.mark.parametrize("key", sorted(RANGES), ids=lambda k: f"{k[0]}:{k[1]}")
def test_option_range(key):
    pass_name, option = key
    bad, good = _bad_and_good(RANGES[key])
    for value in bad:
        with pytest.raises(ValueError) as info:
            _build(pass_name, option, value)
        message = str(info.value)
        assert message.startswith(f"{pass_name}: option {option} must be "), message
        assert message.endswith(f", got {value}") and "\n" not in message
    for value in good:
        _build(pass_name, option, value)


@pytest.mark.parametrize(
    "spec,message",
    [
        ("register-tile{rows=0}", "dpl-opt: error: register-tile: option rows must be in [1, 16], got 0"),
        ("split-matmul-k{sms=0}", "dpl-opt: error: split-matmul-k: option sms must be at least 1, got 0"),
        ("vectorize-pointwise{width=0}", "dpl-opt: error: vectorize-pointwise: option width must be at least 1, got 0"),
        ("chunk-matmul-k{k-tile=-3}", "dpl-opt: error: chunk-matmul-k: option k-tile must be at least 1, got -3"),
    ],
)
def test_dpl_opt_reports_a_bad_option_in_one_line(spec, message):
    """The divisions by zero of issue 20 (split-matmul-k, chunk-matmul-k, vectorize-pointwise,
    register-tile) end as a one-line error with exit code 1."""
    result = subprocess.run(
        [sys.executable, "-m", "dpl.tools.dpl_opt", f"--pass-pipeline={spec}", "-"],
        input="func.func @main() { func.return }\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip() == message
