"""Parsing dpl IR text with source locations, for the tools and the runtime alike."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser


class LocatingParser(Parser):
    """A Parser that records each operation's `file:line:col`, so verifier errors can say where."""

    def parse_operation(self) -> Operation:
        location = self._current_token.span.get_location()
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            op.location = FileLineColLoc(
                StringAttr(location.file), IntAttr(location.line), IntAttr(location.col)
            )
        return op


def parse_module(ctx: Context, text: str, name: str, line_offset: int = 0) -> ModuleOp:
    parser = LocatingParser(ctx, text, name)
    parser.lexer.line_offset = line_offset if hasattr(parser.lexer, "line_offset") else 0
    return parser.parse_module()
