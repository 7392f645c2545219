"""The named pass pipelines and the one way to run a pipeline string over a module.

`IR_PIPELINES[level]` is the pipeline that takes torch IR to `level` (what `dpl compile --ir`
prints); `kernel_schedule()` is the part after loop IR (whose last pass, count-cost, records each
kernel's flops and bytes). Each is a plain pipeline string, so it can be run by hand with `dpl-opt --pass-pipeline`.
"""

from __future__ import annotations

import re
import sys

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.arg_spec import parse_pipeline

from dpl.dialects import make_context
from dpl.transforms import all_passes

#: The pass pipeline that produces each IR level from torch IR.
IR_PIPELINES: dict[str, str] = {
    "torch": "",
    "tensor": "decompose-torch,fold-index-maps,fold-concats,stack-as-select,inline-constants,fuse-elementwise",
    "loop": "decompose-torch,fold-index-maps,fold-concats,stack-as-select,inline-constants,fuse-elementwise,lower-to-loops,fuse-loops,fold-invariant-reductions,fuse-attention,collapse-matmul-axes,count-cost",
    "tile": "decompose-torch,fold-index-maps,fold-concats,stack-as-select,inline-constants,fuse-elementwise,lower-to-loops,fuse-loops,fold-invariant-reductions,fuse-attention,collapse-matmul-axes,count-cost,split-nests,"
    "schedule",
}
IR_PIPELINES["kernel"] = (
    IR_PIPELINES["tile"]
    + ",materialize-attention-wgmma,materialize-attention,materialize-mma,materialize,flatten-buffers,vectorize-access{reductions=false strided-reductions=true},accumulate-in-place,"
    "contract-accumulations,fuse-launches,widen-indices"
)
IR_PIPELINES["cuda"] = IR_PIPELINES["kernel"]


def normalize_pipeline(spec: str) -> str:
    """Accept MLIR's `builtin.module(a,b{x=1})` wrapper as well as the bare list `a,b{x=1}`."""
    spec = spec.strip()
    match = re.fullmatch(r"(?:builtin\.)?module\((.*)\)", spec, re.S)
    return match.group(1).strip() if match else spec


def kernel_schedule(precision: str | None = None) -> str:
    """The passes from loop IR to kernel IR: the default tile schedule, then materialize;
    `precision` (ieee, 3xtf32, tf32) is the schedule's for matmuls (default: its own, auto)."""
    loop_spec = IR_PIPELINES["loop"]
    full = with_precision(IR_PIPELINES["kernel"], precision)
    assert full.startswith(loop_spec), "the kernel pipeline must extend the loop pipeline"
    return full[len(loop_spec) :].lstrip(",")


def with_precision(spec: str, precision: str | None) -> str:
    """`spec` with its bare `schedule` pass given `precision` (unchanged when None)."""
    if precision is None:
        return spec
    if not re.fullmatch(r"[a-z0-9]+", precision):
        raise ValueError(f"unknown precision '{precision}' (choices: ieee, 3xtf32, tf32)")
    return re.sub(r"\bschedule\b(?!\{)", f"schedule{{precision={precision}}}", spec)


def with_target(spec: str, arch: str | None) -> str:
    """`spec` after `set-target{arch=ARCH}` (what `--target ARCH` means; unchanged when None)."""
    if arch is None:
        return spec
    spec = normalize_pipeline(spec)
    return f"set-target{{arch={arch}}}" + (f",{spec}" if spec else "")


def run_pipeline(module: ModuleOp, spec: str, verbose: bool = False) -> None:
    """Run pipeline `spec` over `module`, verifying it first (a frontend's module is checked
    before any pass reads it) and after each pass; an unknown pass is a ValueError naming it."""
    spec = normalize_pipeline(spec)
    if not spec:
        return
    available = all_passes()
    names = [p.name for p in parse_pipeline(spec)]
    missing = [n for n in names if n not in available]
    if missing:
        raise ValueError(f"pass '{missing[0]}' does not exist (yet); pipeline: {spec}")

    def after(previous, mod, following) -> None:
        if previous is not None:
            mod.verify()
            if verbose:
                print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)

    pipeline = PassPipeline.parse_spec(available, spec, after)
    module.verify()
    pipeline.apply(make_context(), module)
