"""bench/tc_probe.py: its hand-written tensor-core kernels compile for sm_90a (nvcc, no GPU), and
its split-K choice and table need no GPU either."""

from __future__ import annotations

import os
import shutil

import pytest

from dpl.bench import tc_probe

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
def test_probe_kernels_compile_for_sm90a(capsys):
    assert tc_probe.compile_only(list(tc_probe.VARIANTS.values())) == 0
    out = capsys.readouterr().out
    for name, v in tc_probe.VARIANTS.items():
        clean = f"{name}: 0 bytes stack frame, 0 bytes spill stores" in out
        assert clean != v.spills, (name, out)
    assert "C7514" not in out  # no wgmma serialized by a read of an accumulator in flight


def test_split_k_only_when_the_grid_leaves_sms_idle():
    wg = tc_probe.VARIANTS["wg128x256_3x"]
    assert tc_probe.split_choices(wg, 2048, 3584, 3584, 132) == [1]
    assert tc_probe.split_choices(wg, 128, 3584, 3584, 132) == [1, 8]  # 14 tiles -> 112 blocks
    assert tc_probe.fits(wg, 100, 256, 64) is not None


def test_unknown_variant_is_one_line(capsys):
    assert tc_probe.main(["--variants", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "choices:" in err
