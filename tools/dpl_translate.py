"""dpl-translate: kernel IR -> CUDA C++ source, or the kernels' launch manifest.

    dpl-translate --to-cuda kernels.mlir > kernels.cu
    dpl-translate --manifest kernels.mlir          # JSON: grid, block, smem, argument order
    dpl-translate --to-cuda kernels.mlir -o k.cu   # k.cu is replaced only when this succeeds
    cat kernels.mlir | dpl-translate --to-cuda     # stdin when no file is given

Errors a user can cause (malformed IR, a failing verifier, an op with no CUDA form) end in one
line `dpl-translate: file:line:col: error: ...` and exit code 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from dpl.backend.cache import write_atomic
from dpl.dialects import make_context
from dpl.dialects.parsing import LocatingParser
from dpl.tools.common import fail, guarded


def run(argv: Sequence[str] | None = None) -> None:
    from dpl.backend.cuda_printer import CudaPrintError, kernel_funcs, print_cuda, print_manifest

    arg_parser = argparse.ArgumentParser(
        prog="dpl-translate", description="translate dpl kernel IR to CUDA C++"
    )
    mode = arg_parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--to-cuda", action="store_true", help="print CUDA C++ for each kernel.func")
    mode.add_argument("--manifest", action="store_true", help="print the launch manifest (JSON)")
    arg_parser.add_argument("input", nargs="?", help="input .mlir file (default: stdin)")
    arg_parser.add_argument("-o", "--output", help="output file (default: stdout)")
    args = arg_parser.parse_args(argv)

    if args.input and args.input != "-":
        with open(args.input) as f:
            text, name = f.read(), args.input
    else:
        text, name = sys.stdin.read(), "<stdin>"

    module = LocatingParser(make_context(), text, name).parse_module()
    try:
        module.verify()
    except Exception as e:
        e.dpl_module = module  # type: ignore[attr-defined]
        raise
    if not kernel_funcs(module):
        raise ValueError(f"{name}: no 'kernel.func' to translate")
    try:
        if args.to_cuda:
            result = print_cuda(module)
        else:
            result = json.dumps(print_manifest(module), indent=2) + "\n"
    except CudaPrintError as e:
        if not e.where:
            raise
        fail("dpl-translate", f"{e.where}: error: {e.message}")
    if args.output:  # written only on success, in one rename: a failed run keeps the old file
        write_atomic(args.output, result)
    else:
        sys.stdout.write(result)


def main(argv: Sequence[str] | None = None) -> None:
    guarded("dpl-translate", lambda: run(argv))


if __name__ == "__main__":
    main()
