"""dpl: the compiler driver.

    dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir torch
    dpl compile --model tinyllama-layer --seq 16 --ir tensor
    dpl compile -c EXPR --pipeline 'decompose-torch,cse'      # any pass pipeline over torch IR
    dpl run -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))"   # compile, run on the GPU, parity
    dpl run --model tinyllama-layer --seq 128 --bench --profile    # and time it against PyTorch

The program is captured into torch IR (dpl.frontend), then the pass pipeline that produces the
requested level (`IR_PIPELINES`) runs over it and the module is printed; `--ir cuda` prints the
CUDA source instead. Errors a user can cause end in one line `dpl: error: ...`.

`-c EXPR` is Python, run by Python's `eval` with `torch`, `nn`, `F` and `math` in scope and
builtins available, as `python -c` runs its argument (twice: to capture it and to trace it): give
it only code you would run yourself.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

import torch

from dpl.tools.common import guarded
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

#: `--model` names: (hf config name, whole model?)
MODELS: dict[str, tuple[str, bool]] = {
    "tinyllama-layer": ("tinyllama", False),
    "qwen2.5-7b-layer": ("qwen2.5-7b", False),
    "tinyllama": ("tinyllama", True),
    "qwen2.5-7b": ("qwen2.5-7b", True),
}

DTYPES = {"f32": torch.float32, "f64": torch.float64}


def capture_program(args: argparse.Namespace):
    from dpl.frontend import capture, capture_expression, hf

    dtype = DTYPES[args.dtype]
    for option, value in (("--seq", args.seq), ("--num-layers", args.num_layers)):
        if value is not None and value < 1:
            raise ValueError(f"{option} must be a positive integer, got {value}")
    if args.expr is not None:
        return capture_expression(args.expr, dtype=dtype)
    if args.model not in MODELS:
        raise ValueError(f"unknown model '{args.model}' (known: {', '.join(MODELS)})")
    name, whole = MODELS[args.model]
    if whole:
        module, inputs = hf.model(name, num_layers=args.num_layers, seq=args.seq, dtype=dtype)
    else:
        module, inputs = hf.decoder_layer(name, seq=args.seq, dtype=dtype)
    return capture(module, *inputs, dtype=dtype)


def log_decisions(verbose: int) -> None:
    """`-v`: print each pass's decisions (the `dpl.passes` logger) to stderr."""
    if verbose:
        logger = logging.getLogger("dpl.passes")
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("// %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def compile_cmd(args: argparse.Namespace) -> None:
    log_decisions(args.verbose)
    prog = capture_program(args)
    module = prog.module
    module.verify()
    spec = args.pipeline if args.pipeline is not None else IR_PIPELINES[args.ir]
    run_pipeline(module, spec, args.verbose)
    if args.ir == "cuda" and args.pipeline is None:
        try:
            from dpl.backend.cuda_printer import print_cuda
        except ImportError as e:
            raise ValueError("--ir cuda needs dpl.backend.cuda_printer, which does not exist yet") from e
        sys.stdout.write(print_cuda(module))
        return
    print(module)


def run_cmd(args: argparse.Namespace) -> None:
    from dpl.driver.compile import check_parity, compile_program

    log_decisions(args.verbose)
    if not torch.cuda.is_available():
        raise ValueError("dpl run needs a CUDA GPU (use `dpl compile --ir cuda` to see the code)")
    prog = capture_program(args)
    compiled = compile_program(prog, args.pipeline, args.verbose > 1)
    parity = check_parity(compiled, prog)
    verdict = "ok" if parity.ok else "FAIL"
    print(f"dpl run: {compiled.num_kernels} kernels on {torch.cuda.get_device_name()}: "
          f"vs PyTorch (float64): {parity}: {verdict}")  # fmt: skip
    if args.bench or args.profile:
        from dpl.bench import harness as bench
        from dpl.frontend.check import fresh_inputs

        cpu_inputs = fresh_inputs(prog, 2)
        inputs = [x.cuda() for x in cpu_inputs]
        # torch.export's graph of the program: what eager and torch.compile run (an expression's
        # replaying wrapper would only give dynamo graph breaks)
        fn = torch.export.export(prog.fn, tuple(cpu_inputs)).module().cuda()
        result = bench.benchmark(
            args.name or (args.expr or args.model), fn, inputs, dpl=compiled,
            modes=tuple(args.modes.split(",")), profile=args.profile,
        )  # fmt: skip
        print(bench.format_table(result))
        if args.json:
            import json

            from dpl.backend.cache import write_atomic

            write_atomic(args.json, json.dumps(result, indent=2) + "\n")
    if verdict == "FAIL":
        sys.exit(1)


def _source_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("-c", dest="expr", help='a PyTorch expression, e.g. "torch.relu(torch.randn(4))"; '
                     "it is Python and runs as `python -c` would (builtins included)")
    src.add_argument("--model", help=f"a model: {', '.join(MODELS)}")
    p.add_argument("--seq", type=int, default=16, help="sequence length for --model (default 16)")
    p.add_argument("--num-layers", type=int, default=None, help="override the depth of a whole model")
    p.add_argument("-v", "--verbose", action="count", default=0, help="log the passes as they run")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="dpl", description="dpl ML compiler driver")
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="capture a PyTorch program and print it at one IR level")
    _source_args(comp)
    comp.add_argument("--ir", choices=list(IR_PIPELINES), default="torch", help="the IR level to print")
    comp.add_argument("--pipeline", default=None, help="a pass pipeline over torch IR instead of --ir's")
    comp.add_argument("--dtype", choices=list(DTYPES), default="f32", help="compute dtype (default f32)")
    run = sub.add_parser("run", help="compile to CUDA, run on the GPU, check parity with PyTorch")
    _source_args(run)
    run.add_argument("--pipeline", default=None, help="passes from loop IR to kernel IR (default: the schedule)")
    run.add_argument("--bench", action="store_true", help="time dpl, eager and torch.compile")
    run.add_argument("--profile", action="store_true", help="with --bench: per-kernel times")
    run.add_argument("--modes", default="eager,compile,max-autotune", help="what --bench compares with")
    run.add_argument("--json", default=None, help="write the --bench result here")
    run.add_argument("--name", default=None, help="the case's name in the --bench result")
    args = parser.parse_args(argv)
    if args.command == "run":
        args.dtype = "f32"
        guarded("dpl", lambda: run_cmd(args))
    else:
        guarded("dpl", lambda: compile_cmd(args))


if __name__ == "__main__":
    main()
