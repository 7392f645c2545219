"""collapse-loops keeps meaning (the same iterations in the same order; a reduce nest's partial
sums become one running sum, so to rounding): every lit case, before and after, on the loop
executor with random inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import lit_case_keeps_meaning, lit_cases

LIT = Path(__file__).resolve().parent.parent / "test/lit/loop/collapse-loops.mlir"


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_case_keeps_meaning(case: int):
    lit_case_keeps_meaning(lit_cases(LIT)[case], "collapse-loops", rtol=1e-12)
