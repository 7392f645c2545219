"""dpl: the compiler driver.

    dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir torch
    dpl compile --model tinyllama-layer --seq 16 --ir tensor
    dpl compile -c EXPR --pipeline 'decompose-torch,cse'      # any pass pipeline over torch IR
    dpl run -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))"   # compile, run on the GPU, parity
    dpl run --model tinyllama-layer --seq 128 --precision tf32     # matmuls: 3xtf32 | tf32 | ieee
    dpl run --model tinyllama-layer --seq 128 --bench --profile    # and time it against PyTorch
    dpl run --model tinyllama --seq 128 [--weights DIR] [--bench]  # a whole model vs HF float64
    dpl compile --weights DIR --seq 128 --ir cuda                  # a local HF folder's model
    dpl tune -c "torch.nn.Linear(3584,3584)(torch.randn(1,128,3584))" --budget-s 120   # GPU
    dpl compile -c EXPR --ir tile [--no-tune-cache]                # tuned kernels show tile.tuned
    dpl compile -c EXPR --ir cuda --target sm_80                   # for an A100 (default sm_90)

The program is captured into torch IR (dpl.frontend), then the pass pipeline that produces the
requested level (`IR_PIPELINES`) runs over it and the module is printed; `--ir cuda` prints the
CUDA source instead. Kernels that `dpl tune` tuned for this GPU (the tuning cache, driver/tuned.py)
get their tuned schedules unless `--no-tune-cache`. Errors a user can cause end in one line
`dpl: error: ...`.

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

from dpl.driver.tuned import Tuning, run_tuned
from dpl.tools.common import guarded
from dpl.transforms.pipelines import IR_PIPELINES, with_precision, with_target

#: `--model` names: (hf config name, whole model?)
MODELS: dict[str, tuple[str, bool]] = {
    "tinyllama-layer": ("tinyllama", False),
    "qwen2.5-7b-layer": ("qwen2.5-7b", False),
    "tinyllama": ("tinyllama", True),
    "qwen2.5-7b": ("qwen2.5-7b", True),
    "qwen3-0.6b": ("qwen3-0.6b", True),
    "mistral-7b": ("mistral-7b", True),
}

DTYPES = {"f32": torch.float32, "f64": torch.float64}


def check_sizes(args: argparse.Namespace) -> None:
    """--seq and --num-layers must be positive (a one-line error, not the HF builder's traceback)."""
    for option, value in (("--seq", args.seq), ("--num-layers", args.num_layers)):
        if value is not None and value < 1:
            raise ValueError(f"{option} must be a positive integer, got {value}")


def model_config(args: argparse.Namespace):
    """The config of a whole model: the --weights folder's (which must be --model's family and
    sizes when both are given), else --model's; --num-layers overrides the depth. None for the
    other sources."""
    from dpl.frontend import hf
    from dpl.frontend.checkpoint import Checkpoint

    check_sizes(args)
    weights = getattr(args, "weights", None)
    if weights is None and not (args.model in MODELS and MODELS[args.model][1]):
        return None
    if args.model is not None and args.model not in MODELS:
        raise ValueError(f"unknown model '{args.model}' (known: {', '.join(MODELS)})")
    named = hf.config(MODELS[args.model][0]) if args.model is not None else None
    if weights is not None:
        if named is not None and not MODELS[args.model][1]:
            raise ValueError(f"--weights takes a whole model, not '{args.model}'")
        args.checkpoint = Checkpoint(weights)
        cfg = args.checkpoint.config
        if named is not None:
            _same_model(named, cfg, args.model, f"{weights}/config.json")
    else:
        cfg = named
    if args.num_layers is not None:
        cfg.num_hidden_layers = args.num_layers
    return cfg


def _same_model(named, cfg, name: str, where: str) -> None:
    for key in ("model_type", "hidden_size", "intermediate_size", "num_attention_heads",
                "num_key_value_heads", "vocab_size", "num_hidden_layers"):  # fmt: skip
        if getattr(cfg, key, None) != getattr(named, key, None):
            raise ValueError(
                f"{where}: {key} {getattr(cfg, key, None)} is not {name}'s "
                f"{getattr(named, key, None)} (leave out --model to run the folder's model)"
            )


def capture_program(args: argparse.Namespace):
    from dpl.frontend import capture, capture_expression, hf

    dtype = DTYPES[args.dtype]
    check_sizes(args)
    cfg = model_config(args)
    if cfg is not None:
        from dpl.driver.models import capture_quickly

        if dtype == torch.float32:
            return capture_quickly(hf.causal_lm(cfg, device="meta"), torch.zeros(1, args.seq, dtype=torch.int64, device="meta"))
        return capture(hf.causal_lm(cfg, device="meta"), torch.zeros(1, args.seq, dtype=torch.int64, device="meta"), dtype=dtype)
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
    from dpl.driver.progress import Progress

    log_decisions(args.verbose)
    progress = Progress()  # on a terminal only (stderr)
    with progress.stage("capture"):
        prog = capture_program(args)
    module = prog.module
    module.verify()
    checkpoint = getattr(args, "checkpoint", None)
    if checkpoint is not None:  # the weights are not needed to compile; check them all the same
        from dpl.driver.models import weight_shapes

        checkpoint.check(weight_shapes(prog))
    tuning = Tuning.default(not args.no_tune_cache, args.tune_device)
    if args.pipeline is not None and args.precision is not None:
        raise ValueError("give either --pipeline or --precision, not both")
    if args.ir in ("kernel", "cuda") and args.pipeline is None:
        from dpl.driver.compile import lower

        # a repeated block once
        module, _ = lower(prog, verbose=bool(args.verbose), precision=args.precision, progress=progress,
                          tuning=tuning, target=args.target)  # fmt: skip
    else:
        spec = args.pipeline if args.pipeline is not None else with_precision(IR_PIPELINES[args.ir], args.precision)
        run_tuned(module, with_target(spec, args.target), tuning, args.verbose)
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
    cfg = model_config(args)
    if not torch.cuda.is_available():
        raise ValueError("dpl run needs a CUDA GPU (use `dpl compile --ir cuda` to see the code)")
    if cfg is not None:
        run_model(args, cfg)
        return
    prog = capture_program(args)
    compiled = compile_program(prog, args.pipeline, args.verbose > 1, args.precision,
                               tune_cache=not args.no_tune_cache, target=args.target)  # fmt: skip
    parity = check_parity(compiled, prog)
    verdict = "ok" if parity.ok else "FAIL"
    print(f"dpl run: {compiled.num_kernels} kernels ({compiled.precision}) on {torch.cuda.get_device_name()}: "
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
            modes=tuple((args.modes or "eager,compile,max-autotune").split(",")), profile=args.profile,
        )  # fmt: skip
        print(bench.format_table(result))
        if args.json:
            import json

            from dpl.backend.cache import write_atomic

            write_atomic(args.json, json.dumps(result, indent=2) + "\n")
    if verdict == "FAIL":
        sys.exit(1)


def run_model(args: argparse.Namespace, cfg) -> None:
    """`dpl run` of a whole model: compile, load, bind, logits against HF float64, --bench."""
    from dpl.driver.models import check_causal_lm
    from dpl.driver.progress import Progress

    progress = Progress()
    check = check_causal_lm(cfg, args.seq, getattr(args, "checkpoint", None), pipeline=args.pipeline,
                            progress=progress, precision=args.precision,
                            tune_cache=not args.no_tune_cache, target=args.target)  # fmt: skip
    program, times = check.program, check.program.times
    ok = check.rel_err < MODEL_TOLERANCE and check.agree == check.positions
    label = args.weights if args.weights is not None else f"{args.model} (random weights)"
    compile_s = sum(times.get(k, 0.0) for k in ("capture", "passes", "nvrtc"))
    print(f"dpl run: {label}: {cfg.model_type}, {cfg.num_hidden_layers} layers, seq {args.seq}: "
          f"{len(program.host.kernels)} kernels, {program.num_kernels} launches on "
          f"{torch.cuda.get_device_name()}")  # fmt: skip
    print(f"  compile {compile_s:.1f} s (capture {times.get('capture', 0):.1f}, passes "
          f"{times.get('passes', 0):.1f}, nvrtc {times.get('nvrtc', 0):.1f}; "
          f"{sum(not c.cache_hit for c in program.host.compiled.values())} kernels compiled, "
          f"the rest from the cache)")  # fmt: skip
    print(f"  logits vs HF float64: relative error {check.rel_err:.2e} (< {MODEL_TOLERANCE:.0e}), "
          f"argmax {check.agree}/{check.positions} positions: {'ok' if ok else 'FAIL'}")  # fmt: skip
    if args.bench or args.profile:
        from dpl.bench import harness as bench

        modes = tuple(args.modes.split(",")) if args.modes else ("eager", "compile")
        result = bench.benchmark(
            args.name or (args.model or str(args.weights)), check.model, [check.input_ids],
            dpl=program, modes=modes, profile=args.profile, ceilings=False,
        )  # fmt: skip
        result["compile_s"] = times
        result["parity"] = {"rel_err_f64": check.rel_err, "argmax_agree": check.agree,
                            "positions": check.positions}  # fmt: skip
        print(bench.format_table(result))
        if args.json:
            import json
            from pathlib import Path

            Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    if not ok:
        sys.exit(1)


def tune_cmd(args: argparse.Namespace) -> None:
    """`dpl tune`: tune every distinct kernel of the program on this GPU (driver/tune.py)."""
    from dpl.driver.progress import Progress
    from dpl.driver.tune import (GpuMeasurer, format_picks, format_results, program_kernels, summary, tune,
                                 write_stderr)
    from dpl.driver.tune_cache import TuneCache

    if not torch.cuda.is_available():
        raise ValueError("dpl tune needs a CUDA GPU to measure on")
    if args.budget_s <= 0 or args.trials < 1:
        raise ValueError("--budget-s must be positive and --trials at least 1")
    progress = Progress()
    with progress.stage("capture"):
        prog = capture_program(args)
    with progress.stage("kernels"):
        kernels = program_kernels(prog.module, precision=args.precision)
    measurer = GpuMeasurer()
    try:
        results = tune(kernels, TuneCache(), measurer, method=args.method, trials=args.trials,
                       budget_s=args.budget_s, workers=args.workers, seed=args.seed, retune=args.retune,
                       fresh=args.no_tune_cache, progress=progress, log=write_stderr if args.verbose else None)  # fmt: skip
    finally:
        measurer.close()
    print(f"dpl tune: {measurer.device}, method {args.method}")
    print(format_results(results))
    if picks := format_picks(results):
        print(picks)
    print(summary(results))


#: Whole models: logits within this relative error of HF's in float64 (DESIGN.md's bar for
#: matmul chains), and the same argmax token at every position.
MODEL_TOLERANCE = 1e-4


def _source_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("-c", dest="expr", help='a PyTorch expression, e.g. "torch.relu(torch.randn(4))"; '
                     "it is Python and runs as `python -c` would (builtins included)")
    src.add_argument("--model", help=f"a model: {', '.join(MODELS)}")

    p.add_argument("--seq", type=int, default=16, help="sequence length for --model (default 16)")
    p.add_argument("--num-layers", type=int, default=None, help="override the depth of a whole model")
    p.add_argument("-v", "--verbose", action="count", default=0, help="log the passes as they run")
    p.add_argument("--no-tune-cache", action="store_true",
                   help="ignore the tuning cache (default schedules; tune: a new search of every kernel)")
    p.add_argument("--weights", default=None, metavar="DIR",
                   help="a local Hugging Face model folder (config.json, *.safetensors): its model "
                        "and weights (with --model, which must match)")  # fmt: skip
    p.add_argument("--precision", default=None,
                   help="matmuls: 3xtf32 (tensor cores, fp32-level accuracy; the default where the "
                        "target has them), tf32 (tensor cores, one pass: ~1e-3 relative error, "
                        "opt-in) or ieee (SIMT fp32)")
    p.add_argument("--target", default=None, metavar="ARCH",
                   help="the GPU to compile for: sm_80, sm_90 (the default) or sm_120; recorded as "
                        "the module's #kernel.target, which the hardware-dependent passes read")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="dpl", description="dpl ML compiler driver")
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="capture a PyTorch program and print it at one IR level")
    _source_args(comp)
    comp.add_argument("--ir", choices=list(IR_PIPELINES), default="torch", help="the IR level to print")
    comp.add_argument("--pipeline", default=None, help="a pass pipeline over torch IR instead of --ir's")
    comp.add_argument("--dtype", choices=list(DTYPES), default="f32", help="compute dtype (default f32)")
    comp.add_argument("--tune-device", default=None, metavar="NAME",
                      help="use the schedules tuned for this GPU (default: this machine's, or $DPL_TUNE_DEVICE)")
    run = sub.add_parser("run", help="compile to CUDA, run on the GPU, check parity with PyTorch")
    _source_args(run)
    run.add_argument("--pipeline", default=None, help="passes from loop IR to kernel IR (default: the schedule)")
    run.add_argument("--bench", action="store_true", help="time dpl, eager and torch.compile")
    run.add_argument("--profile", action="store_true", help="with --bench: per-kernel times")
    run.add_argument("--modes", default=None,
                     help="what --bench compares with (default eager,compile,max-autotune; "
                          "eager,compile for a whole model)")  # fmt: skip
    run.add_argument("--json", default=None, help="write the --bench result here")
    run.add_argument("--name", default=None, help="the case's name in the --bench result")
    tun = sub.add_parser("tune", help="search each kernel's schedule on the GPU; later compiles use the picks")
    _source_args(tun)
    tun.add_argument("--budget-s", type=float, default=300.0, help="the search's time in seconds (default 300)")
    tun.add_argument("--trials", type=int, default=64, help="the most points tried per kernel (default 64)")
    tun.add_argument("--method", choices=("evolve", "random"), default="evolve",
                     help="evolutionary search from the cost model's pick, or random sampling")
    tun.add_argument("--workers", type=int, default=None, help="processes compiling candidates (default: cores - 1)")
    tun.add_argument("--seed", type=int, default=0, help="the search's random seed")
    tun.add_argument("--retune", action="store_true", help="search again kernels the cache has a pick for")
    args = parser.parse_args(argv)
    if args.expr is None and args.model is None and args.weights is None:
        parser.error("one of -c, --model or --weights is required")
    if args.expr is not None and args.weights is not None:
        parser.error("--weights goes with --model (or alone), not with -c")
    if args.command == "run":
        args.dtype = "f32"
        guarded("dpl", lambda: run_cmd(args))
    elif args.command == "tune":
        args.dtype = "f32"
        guarded("dpl", lambda: tune_cmd(args))
    else:
        guarded("dpl", lambda: compile_cmd(args))


if __name__ == "__main__":
    main()
