"""Shared test set-up: every test starts from the same torch random state, so a failure seen in
CI replays here; `pass_log` collects what the passes log to `dpl.passes` (pytest runs without
its logging plugin, `-p no:logging`); `nvcc_compile` compiles emitted CUDA with nvcc, and
`same_on_tile_executor` runs tile IR before and after a rewrite on the same random inputs, and
`lit_cases` splits a lit file into its inputs. The
run ends with its peak resident memory (the suite must fit its machine: issue 15 asks for under
4 GB)."""

from __future__ import annotations

import logging
import re
import resource
import shutil
import subprocess

import numpy as np
import pytest
import torch

from xdsl.parser import Parser

from dpl.dialects import make_context
from dpl.frontend import capture
from dpl.interpreters import exec_loop, exec_tensor, exec_tile
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import run_pipeline

NVCC = shutil.which("nvcc")


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


@pytest.fixture
def nvcc_compile(tmp_path):
    """`compile(source)`: nvcc for sm_90 (`arch="sm_90a"` for wgmma) of CUDA `source`, failing the test on an error;
    returns nvcc's stderr (with `-Xptxas -v` among `extra`: registers, spills), or None where
    there is no nvcc (the rest of the test still runs)."""

    def compile_(source: str, extra: tuple[str, ...] = (), arch: str = "sm_90") -> str | None:
        if NVCC is None:
            return None
        cu = tmp_path / "k.cu"
        cu.write_text(source)
        target = f"-gencode=arch=compute_{arch[3:]},code={arch}"  # sm_90a: wgmma (no sm_90 PTX beside it)
        r = subprocess.run([NVCC, target, "-c", "-o", str(tmp_path / "k.o"), str(cu), *extra],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
        assert r.returncode == 0, r.stderr
        return r.stderr

    return compile_


def lit_cases(path, holding: str = "func.func") -> list[str]:
    """The `// -----` parts of lit file `path` that hold `holding` (its inputs, not the notes)."""
    return [part for part in path.read_text().split("// -----") if holding in part]


def program_inputs(main, seed: int, params=()) -> list[np.ndarray]:
    """Random float32 arrays (normal * 3 - 1: negative and positive) for the arguments of
    `main` (a func.func), the program's parameters `params` (torch tensors) taking the last."""
    rng = np.random.default_rng(seed)
    args = main.body.block.args[: len(main.body.block.args) - len(params)]
    xs = [(rng.standard_normal(a.type.get_shape()) * 3 - 1).astype(np.float32) for a in args]
    return xs + [p.detach().float().numpy() for p in params]


def lit_case_keeps_meaning(text: str, pipeline: str, rtol: float = 0.0) -> None:
    """A lit case (`lit_cases`) gives the same first output on the loop executor before and
    after `pipeline`, on two seeds of `program_inputs` (exactly where `rtol` is 0), every
    element written."""
    before = Parser(make_context(), text).parse_module()
    after = before.clone()
    run_pipeline(after, pipeline)
    after.verify()
    for seed in (1, 2):
        ins = program_inputs(main_func(before), seed)
        (ref,) = exec_loop.run(before, [a.copy() for a in ins])
        (out,) = exec_loop.run(after, [a.copy() for a in ins])
        assert not np.isnan(out).any(), "an output element was never written"
        np.testing.assert_allclose(out, ref, rtol=rtol, atol=0)


def tensor_lit_case_keeps_meaning(text: str, pipeline: str, seed: int) -> None:
    """A lit case of tensor IR (`lit_cases`; its function becomes @main) gives the same outputs,
    all of them, bit for bit, on the tensor executor before and after `pipeline`, on random
    inputs (normal * 3 - 1: negative and positive)."""
    text = re.sub(r"func\.func @\w+", "func.func @main", text, count=1)
    before = Parser(make_context(), text).parse_module()
    after = before.clone()
    run_pipeline(after, pipeline)
    after.verify()
    rng = np.random.default_rng(seed)
    ins = [rng.standard_normal(a.type.get_shape()) * 3 - 1 for a in main_func(before).body.block.args]
    want, got = exec_tensor.run(before, ins), exec_tensor.run(after, ins)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def tensor_program_keeps_meaning(module: torch.nn.Module, shapes, seed: int, pipeline: str):
    """`module` captured in float64 on inputs of `shapes` (normal * 2), lowered to tensor IR up to
    fold-concats, gives the same outputs, all of them, bit for bit, on the tensor executor
    before and after `pipeline`; returns (before, after) for the caller's own checks."""
    g = torch.Generator().manual_seed(seed)
    xs = [torch.randn(s, generator=g, dtype=torch.float64) * 2 for s in shapes]
    prog = capture(module, *xs, dtype=torch.float64)
    before = prog.module
    run_pipeline(before, "decompose-torch,fold-index-maps,fold-concats")
    after = before.clone()
    run_pipeline(after, pipeline)
    after.verify()
    arrays = [x.numpy() for x in xs] + [a.detach().numpy() for a in prog.args[prog.num_inputs:]]
    with np.errstate(all="ignore"):
        want, got = exec_tensor.run(before, arrays), exec_tensor.run(after, arrays)
    assert len(want) == len(got)
    for w, o in zip(want, got):
        np.testing.assert_array_equal(o, w)
    return before, after


def same_on_tile_executor(before, after, seed: int, tol: float) -> None:
    """Tile modules `before` and `after` give the same first output, within `tol`, on random
    inputs (negative and positive: normal * 3 - 1) for the arguments of `before`'s main."""
    main = next(o for o in before.walk() if o.name == "func.func")
    rng = np.random.default_rng(seed)
    ins = [(rng.standard_normal(a.type.get_shape()) * 3 - 1).astype(np.float32) for a in main.body.block.args]
    ref = exec_tile.run(before, [a.copy() for a in ins])[0]
    out = exec_tile.run(after, [a.copy() for a in ins])[0]
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)


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
