"""docs/frontend.md's op table, coverage figure and unsupported list are generated from the
converter's own table (frontend/aten.py) and stay in step with it; every unsupported example ends
in its one-line error, naming the op."""

from __future__ import annotations

from pathlib import Path

import torch

from dpl.frontend import coverage
from dpl.frontend.aten import ENTRIES, HANDLERS

ROOT = Path(__file__).resolve().parent.parent


def test_every_handled_name_is_an_aten_op():
    for key in HANDLERS:
        name = key.split("::", 1)[1]
        packet, _, overload = name.partition(".")
        assert hasattr(torch.ops.aten, packet), f"{key}: no aten op '{packet}'"
        if overload:
            assert overload in getattr(torch.ops.aten, packet).overloads(), f"{key}: no overload"
    assert sum(len(e.aten) for e in ENTRIES) == len(HANDLERS)  # every handler documented once


def test_coverage_figure():
    covered, uncovered, excluded = coverage.coverage()
    core = coverage.core_aten_ops()
    assert len(covered) + len(uncovered) + sum(map(len, excluded.values())) == len(core)
    for op in ("abs", "clamp", "leaky_relu", "max", "argmax", "amin", "prod", "var", "any",
               "_log_softmax", "native_group_norm", "_native_batch_norm_legit_no_training",
               "where", "eq", "fmod", "remainder", "round", "erf", "expm1", "log1p", "convolution",
               "avg_pool2d", "max_pool2d_with_indices", "upsample_nearest2d", "cumsum", "sort", "topk"):
        assert op in covered, op
    assert "nonzero" in uncovered and "randn" in excluded["random"]
    assert len(covered) / (len(covered) + len(uncovered)) > 0.7


def test_docs_hold_the_generated_block():
    text = (ROOT / "docs/frontend.md").read_text()
    assert coverage.BEGIN in text and coverage.END in text
    block = text[text.index(coverage.BEGIN) : text.index(coverage.END) + len(coverage.END)]
    assert block == coverage.markdown(), (
        "docs/frontend.md is out of date: paste the output of `python -m dpl.frontend.coverage` "
        "over its generated block"
    )


def test_unsupported_examples_end_in_one_line_errors():
    for (op, expr, _), (_, _, error) in zip(coverage.UNSUPPORTED, coverage.unsupported_errors()):
        assert error.startswith("unsupported"), f"{op}: {expr} gives {error!r}"
        assert error.endswith(")") and "(at <expression>" in error, error
        assert "\n" not in error
