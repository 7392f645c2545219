"""dpl-opt: parse dpl IR, run a pass pipeline, print the result.

Built on xDSL's opt main with dpl's dialects and passes registered:

    dpl-opt --pass-pipeline='decompose-torch,lower-to-loops' in.mlir
    dpl-opt -p 'builtin.module(canonicalize)' in.mlir   # -p and the MLIR wrapper work too
    cat in.mlir | dpl-opt -p cse -                  # `-` (or no file) reads standard input
    dpl-opt -p cse in.mlir -o in.mlir               # -o is written only when the run succeeds
    dpl-opt -p 'set-target{arch=sm_80},schedule' in.mlir   # the GPU: the module's #kernel.target
    dpl-opt --list-passes
    dpl-opt --print-ir-diff --pass-pipeline=... in.mlir   # >>> n:pass ... <<< n:pass diffs

Errors a user can cause (malformed IR, a failing verifier, an unknown pass, a bad pass option)
end in one line `file:line:col: error: ...` and exit code 1, and leave the `-o` file as it was.
With --verify-diagnostics the verifier's message is printed to stdout and the exit code is 0, for
lit tests. The GPU is set by the `set-target` pass (`dpl compile --target`'s counterpart: xDSL's
own `-t/--target` here names the output format). With --disable-verify the passes get IR nobody checked: a pass that fails on it is
reported in one line naming the pass.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from dpl.backend.cache import write_atomic
from dpl.dialects import DIALECTS
from dpl.dialects.parsing import LocatingParser
from dpl.tools.common import guarded, one_line
from dpl.transforms import all_passes, pass_summary
from dpl.transforms.pipelines import normalize_pipeline


def print_ir(module: ModuleOp) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


class DplOptMain(xDSLOptMain):
    version_format = "dpl-opt built on xdsl {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        self._step = 0
        self._before: str | None = None
        super().__init__(description="dpl modular optimizer driver", args=args)

    def register_all_dialects(self):
        for name, factory in DIALECTS.items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        for name, factory in all_passes().items():
            self.register_pass(name, factory)

    def register_all_frontends(self):
        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            return LocatingParser(self.ctx, io.read().decode(), self.get_input_name()).parse_module(
                not self.args.no_implicit_module
            )

        self.available_frontends["mlir"] = parse_mlir

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--pass-pipeline",
            type=str,
            default=None,
            help="MLIR-style pipeline, e.g. 'tileify,stage-inputs{min-reuse=2}' "
            "(a builtin.module(...) wrapper is accepted)",
        )
        arg_parser.add_argument(
            "--list-passes", action="store_true", help="list every registered pass and exit"
        )
        arg_parser.add_argument(
            "--print-ir-after-all", action="store_true", help="print the IR after each pass"
        )
        arg_parser.add_argument(
            "--print-ir-diff",
            action="store_true",
            help="print a unified diff of the IR for each pass (>>> n:name ... <<< n:name)",
        )

    def setup_pipeline(self):
        if self.args.list_passes:
            return
        if self.args.pass_pipeline is not None:
            if self.args.passes:
                raise ValueError("give either --pass-pipeline or -p, not both")
            self.args.passes = self.args.pass_pipeline
        self.args.passes = normalize_pipeline(self.args.passes or "")
        super().setup_pipeline()
        self.pipeline = PassPipeline(self.pipeline.passes, self._after_pass)

    def get_input_stream(self):
        if self.args.input_file == "-":
            return sys.stdin.buffer, "mlir"
        return super().get_input_stream()

    def get_input_name(self):
        return "<stdin>" if self.args.input_file in (None, "-") else self.args.input_file

    def apply_passes(self, prog: ModuleOp):
        self._running = None
        self._unchecked(lambda: super(DplOptMain, self).apply_passes(prog),
                        lambda: f"'{self._running.name}'" if self._running else "a pass")  # fmt: skip

    def output_resulting_program(self, prog: ModuleOp) -> str:
        return self._unchecked(lambda: super(DplOptMain, self).output_resulting_program(prog),
                               lambda: "printing")  # fmt: skip

    def _unchecked(self, step, what):
        """Run `step`; with --disable-verify, an internal error in it (the IR was not checked)
        becomes a one-line error naming the step."""
        try:
            return step()
        except (ParseError, DiagnosticException, ValueError, KeyError, OSError, RecursionError):
            raise
        except Exception as e:
            if not self.args.disable_verify:
                raise
            raise ValueError(f"{what()} failed on IR that was not verified (--disable-verify): "
                             f"{type(e).__name__}: {e}") from e  # fmt: skip

    def _after_pass(
        self, previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
    ) -> None:
        self._running = following
        if not self.args.disable_verify:
            try:
                module.verify()
            except DiagnosticException as e:
                if previous is None:
                    raise
                raise DiagnosticException(f"IR does not verify after '{previous.name}': {e}") from e
        if not (self.args.print_ir_after_all or self.args.print_ir_diff):
            return
        text = print_ir(module)
        if previous is not None:
            self._step += 1
            tag = f"{self._step:03d}:{previous.name}"
            if self.args.print_ir_diff:
                diff = difflib.unified_diff(
                    (self._before or "").splitlines(), text.splitlines(), lineterm="", n=2
                )
                body = "\n".join(list(diff)[2:]) or "(no change)"
                print(f">>> {tag}\n{body}\n<<< {tag}")
            else:
                print(f"// -----// IR Dump After {previous.name} //----- //\n{text}")
        self._before = text

    def run(self):
        if self.args.list_passes:
            for name, factory in sorted(self.available_passes.items()):
                print(f"{name:28s} {pass_summary(factory())}")
            return
        chunks, ext = self.prepare_input()
        to_file = self.args.output_file is not None
        out = io.StringIO() if to_file else sys.stdout
        for i, (chunk, offset) in enumerate(chunks):
            if i > 0:
                out.write("// -----\n")
            module = None
            try:
                text = chunk.read().decode()
                parser = LocatingParser(self.ctx, "\n" * offset + text, self.get_input_name())
                module = parser.parse_module(not self.args.no_implicit_module)
                self.apply_passes(module)
                out.write(self.output_resulting_program(module))
            except ParseError as e:
                if not (self.args.parsing_diagnostics or self.args.verify_diagnostics):
                    raise
                print(one_line(e))
            except DiagnosticException as e:
                if not self.args.verify_diagnostics:
                    e.dpl_module = module  # type: ignore[attr-defined]
                    raise
                print(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__)
            out.flush()
        if to_file:  # only a run that succeeded replaces the output file, in one rename
            write_atomic(self.args.output_file, out.getvalue())


def main(argv: Sequence[str] | None = None) -> None:
    guarded("dpl-opt", lambda: DplOptMain(args=argv).run())


if __name__ == "__main__":
    main()
