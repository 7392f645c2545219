"""Every verifier error site in dialects/ is reached by a `--verify-diagnostics` lit case.

An error site is a `raise VerifyException(...)` in dialects/*.py, or a call of a helper whose body
is only such a raise (torch's `self._fail(...)`), found by reading the source, so a new op's
rules are counted as soon as they are written. Each lit file whose RUN line runs `dpl-opt ...
--verify-diagnostics` is run in process with VerifyException's constructor recording the source
lines on the stack; a site is reached when one of its lines is among them. A site no case
reaches fails the test with its file, line and message: add a case for it to the dialect's
invalid.mlir.
"""

from __future__ import annotations

import ast
import contextlib
import io
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from xdsl.utils.exceptions import VerifyException

from dpl.tools.dpl_opt import DplOptMain

ROOT = Path(__file__).resolve().parent.parent
DIALECTS = ROOT / "dialects"
LIT = ROOT / "test" / "lit"


@dataclass(frozen=True)
class Site:
    file: str
    line: int
    end_line: int
    text: str

    def __str__(self) -> str:
        return f"dialects/{self.file}:{self.line}: {self.text}"


def _raise_helpers(tree: ast.Module) -> set[str]:
    """Functions whose body (past a docstring) is one `raise`: their callers are the sites."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Raise):
                names.add(node.name)
    return names


def error_sites() -> list[Site]:
    sites = []
    for path in sorted(DIALECTS.glob("*.py")):
        source = path.read_text()
        tree = ast.parse(source)
        helpers = _raise_helpers(tree)
        inside_helpers = {
            n for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name in helpers
            for n in ast.walk(node)
        }  # fmt: skip
        for node in ast.walk(tree):
            site = None
            if isinstance(node, ast.Raise) and node not in inside_helpers:
                exc = node.exc
                if isinstance(exc, ast.Call) and getattr(exc.func, "id", None) == "VerifyException":
                    site = node
            elif isinstance(node, ast.Call):
                name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
                if name in helpers:
                    site = node
            if site is not None:
                text = " ".join(ast.get_source_segment(source, site).split())
                sites.append(Site(path.name, site.lineno, site.end_lineno or site.lineno, text[:120]))
    return sites


def _verify_diagnostics_runs() -> list[list[str]]:
    """The dpl-opt arguments of every lit RUN line that uses --verify-diagnostics."""
    runs = []
    for path in sorted(LIT.rglob("*.mlir")):
        for line in path.read_text().splitlines():
            if "RUN:" in line and "--verify-diagnostics" in line:
                command = line.split("RUN:", 1)[1].split("|")[0]
                args = shlex.split(command.replace("%s", str(path)))
                assert args[0] == "dpl-opt", f"{path}: expected a dpl-opt RUN line: {line}"
                runs.append(args[1:])
    return runs


def reached_lines(monkeypatch) -> set[tuple[str, int]]:
    """(file name, line) of every dialects/ frame on the stack when a VerifyException is built,
    over all --verify-diagnostics lit runs."""
    seen: set[tuple[str, int]] = set()
    original = VerifyException.__init__

    def record(self, *args, **kwargs):
        frame = sys._getframe(1)
        while frame is not None:
            path = Path(frame.f_code.co_filename)
            if path.parent.name == "dialects":
                seen.add((path.name, frame.f_lineno))
            frame = frame.f_back
        original(self, *args, **kwargs)

    monkeypatch.setattr(VerifyException, "__init__", record)
    runs = _verify_diagnostics_runs()
    assert runs, "no --verify-diagnostics lit runs found"
    for args in runs:
        with contextlib.redirect_stdout(io.StringIO()):
            DplOptMain(args=args).run()
    return seen


def test_finds_the_error_sites():
    sites = error_sites()
    assert len(sites) > 150
    assert any("kernel.func" in s.text for s in sites if s.file == "kernel.py")
    assert any(s.text.startswith("self._fail(") for s in sites if s.file == "torch.py")


def test_every_verifier_error_site_is_reached(monkeypatch):
    seen = reached_lines(monkeypatch)
    missed = [
        s for s in error_sites()
        if not any((s.file, line) in seen for line in range(s.line, s.end_line + 1))
    ]  # fmt: skip
    total = len(error_sites())
    assert not missed, (
        f"{len(missed)} of {total} verifier error sites have no --verify-diagnostics lit case:\n"
        + "\n".join(map(str, missed))
    )
