"""Print the CUDA of every bench case and every kernel/tile lit case, one file per case, and diff
it against a saved snapshot: a refactoring of the kernel lowering must leave it byte-identical.

    python scripts/cuda_snapshot.py --out /tmp/cuda-before            # take the yardstick
    python scripts/cuda_snapshot.py --out /tmp/cuda-after --diff /tmp/cuda-before

Compile only (no GPU): each bench case of `bench/suite.py` (the decoder layers at seq 128 and 512
included) is captured on the CPU and lowered with the default pipeline (`--ir cuda`). Each case
(`// -----` split) of the lit files under test/lit/kernel and test/lit/tile is run through its
file's first `dpl-opt` pipeline, then, while tile or loop kernels remain, through the rest of the
kernel pipeline (materialize onwards), and printed as CUDA; a case that fails records its
one-line error instead (so a change in what is rejected shows as well). `--only bench|lit` and
`--cases REGEX` narrow the run. Exits 1 when `--diff` finds a difference.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIT_DIRS = ["test/lit/kernel", "test/lit/tile"]
#: The passes the default pipeline runs after tile IR (IR_PIPELINES["kernel"] minus the tile part).
KERNEL_TAIL = "materialize,flatten-buffers,vectorize-access{reductions=false strided-reductions=true},accumulate-in-place,contract-accumulations,fuse-launches"


def bench_cases(pattern: str | None):
    import torch

    from dpl.bench import suite
    from dpl.driver.compile import lower
    from dpl.frontend import capture

    suite.DEV = "cpu"  # compile only: the cases' inputs are made on the CPU
    for case in suite.CASES:
        name = f"bench/{case.name}"
        if pattern and not re.search(pattern, name):
            continue
        torch.manual_seed(0)
        fn, inputs = case.make()
        prog = capture(fn, *inputs, dtype=torch.float32)
        del fn, inputs
        yield name, lambda prog=prog: cuda_of(lower(prog)[0])


def cuda_of(module) -> str:
    from dpl.backend.cuda_printer import print_cuda

    return print_cuda(module)


def lit_pipeline(text: str) -> str | None:
    """The pipeline of the file's first `dpl-opt %s ...` RUN line that is expected to pass."""
    for line in text.splitlines():
        if "RUN:" not in line:
            continue
        cmd = line.split("RUN:", 1)[1].split("|")[0].strip()
        if not cmd.startswith("dpl-opt %s"):
            continue
        args = shlex.split(cmd)
        for i, a in enumerate(args):
            if a.startswith("--pass-pipeline="):
                return a.split("=", 1)[1]
            if a in ("--pass-pipeline", "-p") and i + 1 < len(args):
                return args[i + 1]
        return ""
    return None


def lit_cases(pattern: str | None):
    for d in LIT_DIRS:
        for path in sorted((ROOT / d).glob("*.mlir")):
            text = path.read_text()
            spec = lit_pipeline(text)
            if spec is None:
                continue
            for i, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
                name = f"lit/{path.parent.name}/{path.stem}.{i}"
                if pattern and not re.search(pattern, name):
                    continue
                yield name, lambda chunk=chunk, spec=spec, path=path: lit_cuda(chunk, spec, str(path))


def lit_cuda(chunk: str, spec: str, where: str) -> str:
    from dpl.dialects import loop, make_context, tile
    from dpl.dialects import kernel as K
    from dpl.dialects.parsing import LocatingParser
    from dpl.transforms.pipelines import run_pipeline

    module = LocatingParser(make_context(), chunk, where).parse_module()
    run_pipeline(module, spec)
    if any(isinstance(op, tile.KernelOp | loop.KernelOp) for op in module.walk()):
        run_pipeline(module, KERNEL_TAIL)
    if not any(isinstance(op, K.KernelFuncOp) for op in module.walk()):
        return "// no kernel.func\n"
    return cuda_of(module)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory to write <case>.cu files into")
    ap.add_argument("--diff", help="a snapshot directory to compare against")
    ap.add_argument("--only", choices=["bench", "lit"], help="only the bench or the lit cases")
    ap.add_argument("--cases", help="regular expression over case names (bench/..., lit/...)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    sources = []
    if args.only != "bench":
        sources.append(lit_cases(args.cases))
    if args.only != "lit":
        sources.append(bench_cases(args.cases))
    names = []
    for source in sources:
        for name, make in source:
            try:
                text = make()
            except Exception as e:  # noqa: BLE001 - a failing case is recorded, not fatal
                text = f"// error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}\n"
            path = out / f"{name}.cu"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            names.append(name)
            print(f"{name}: {len(text.splitlines())} lines", flush=True)
    if not args.diff:
        return 0
    base = Path(args.diff)
    differ = 0
    for name in names:
        old_path = base / f"{name}.cu"
        new = (out / f"{name}.cu").read_text()
        if not old_path.exists():
            print(f"NEW {name}")
            differ += 1
            continue
        old = old_path.read_text()
        if old != new:
            differ += 1
            print(f"DIFF {name}")
            sys.stdout.writelines(
                difflib.unified_diff(old.splitlines(True), new.splitlines(True), str(old_path), name)
            )
    print(f"{len(names)} cases, {differ} differ from {base}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
