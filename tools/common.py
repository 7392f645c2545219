"""Shared pieces of dpl's command-line tools: one-line errors with source locations."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError


def where(op: Operation) -> str:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return f"in '{op.name}'"


def failing_op(module: ModuleOp) -> Operation | None:
    """The innermost operation whose own verifier fails (for a located message)."""
    found = None
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception:  # noqa: BLE001 - we only want to know which op fails
            found = op
    return found


def one_line(error: BaseException, module: ModuleOp | None = None) -> str:
    """Render a user-caused error as `where: error: what`, on one line."""
    if isinstance(error, ParseError):
        loc = error.span.get_location()
        return f"{loc.file}:{loc.line}:{loc.col}: error: {error.msg}"
    message = str(error).strip().splitlines()
    text = message[0] if message else type(error).__name__
    if isinstance(error, DiagnosticException) and module is not None:
        op = failing_op(module)
        if op is not None:
            return f"{where(op)}: error: {text}"
    return f"error: {text}"


def fail(tool: str, message: str) -> NoReturn:
    print(f"{tool}: {message}", file=sys.stderr)
    sys.exit(1)


def guarded(tool: str, body: Callable[[], None]) -> None:
    """Run a tool's body, turning the errors a user can cause into one line and exit code 1."""
    try:
        body()
    except BrokenPipeError:  # the reader went away (`| head`): not an error of ours
        sys.stderr.close()
        sys.exit(0)
    except (ParseError, DiagnosticException, ValueError, KeyError, OSError) as e:
        fail(tool, one_line(e, getattr(e, "dpl_module", None)))
    except RecursionError:
        fail(tool, "error: the program is nested too deeply for dpl (Python's recursion limit)")
    except BaseException as e:  # noqa: BLE001
        if type(e).__name__ == "ArgSpecParseError":
            fail(tool, "error: bad pass pipeline: " + " ".join(str(e).split()))
        raise
