"""Parsing dpl IR text with source locations, for the tools and the runtime alike."""

from __future__ import annotations

import re

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer

MAX_REGION_DEPTH = 64
"""Regions nested deeper than this are refused with a parse error (dpl's IR nests a handful of
levels; Python's recursion would give out somewhere past 130)."""


class _Lexer(MLIRLexer):
    """xDSL's lexer with a string-literal pattern that cannot backtrack exponentially: xDSL's
    `"(?:[^"...]+|...)*"` takes 2^n steps on a quote left open before n other characters."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


class LocatingParser(Parser):
    """A Parser that records each operation's `file:line:col`, so verifier errors can say where,
    and reports a hexadecimal float literal too wide for its type (`0xfff0000000000000 : f32`)
    as a parse error at the literal rather than an OverflowError. Regions may nest at most
    MAX_REGION_DEPTH deep."""

    _depth = 0

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>"):
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(_Lexer(Input(text, name)))

    def parse_optional_region(self, arguments=None):
        if self._depth >= MAX_REGION_DEPTH and self._current_token.text == "{":
            self.raise_error(f"regions nest more than {MAX_REGION_DEPTH} deep, dpl's limit")
        self._depth += 1
        try:
            return super().parse_optional_region(arguments)
        finally:
            self._depth -= 1

    def parse_optional_builtin_int_or_float_attr(self):
        start = self._current_token.span
        try:
            return super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:
            self.raise_error(
                f"hexadecimal literal {start.text} has more bits than its float type", start
            )

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
