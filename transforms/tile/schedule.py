"""schedule: give every `loop.kernel` the tile pipeline of its class (the default schedule).

Each kernel is classified from its loop nest, then scheduled on its own with its class's pass
pipeline (below), as if that pipeline ran on a module holding only that kernel. The classes:

- pointwise: no reduce loop (elementwise ops, copies, concat parts): one thread per element,
  blocks of blockify-launch's default size;
- matmul: a contraction (a reduce loop loading A and B, each indexed by a free loop the other is
  not): K chunked, K split over blocks when the output tiles alone would not fill the GPU (fewer
  than 528 blocks of 64 x 64), 4 x 4 register tiles on 16 x 16 threads, A and B tiles staged in
  shared memory (rows padded by 4 floats, so both are read as float4 along K) per K step,
  double-buffered with cp.async (sm_80+) and pipelined;
- attention: a contraction holding further reductions (softmax's max and sum fused into P @ V):
  one row of queries per block like a row reduction, K/V rows staged;
- row reduction: the rest (norms, softmax, sums): a block per row, the reduce shared by the
  block's threads (warp shuffles), rows read more than once staged in shared memory.

`dpl compile -v` logs each kernel's class and pipeline. The per-kernel pipelines are plain
pipeline strings (`PIPELINES`), so any of them can be run by hand with `dpl-opt --pass-pipeline`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass, PassPipeline

from dpl.dialects import loop
from dpl.transforms import all_passes
from dpl.transforms.loop.fuse_loops import has_reduce, is_contraction
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.target import parse_target

ROW = "tileify,blockify-launch,cooperative-reduce,stage-inputs,mark-unroll"

#: The tile pipeline of each kernel class; `{target}` is the schedule's target.
PIPELINES: dict[str, str] = {
    "pointwise": "tileify,blockify-launch,mark-unroll",
    "row reduction": ROW,
    "attention": ROW,
    "matmul": "tileify,chunk-matmul-k,split-matmul-k,register-tile,blockify-launch,permute-register-tile,"
    "cooperative-reduce,stage-inputs,mark-unroll{{max-extent=32}},double-buffer,"
    "async-copy{{target={target}}},pad-smem{{pad=4}},pipeline-k-outer",
}


def classify(kernel: loop.KernelOp) -> str:
    if not has_reduce(kernel):
        return "pointwise"
    if is_contraction(kernel):
        reduces = [op for op in kernel.walk() if isinstance(op, loop.ForOp) and op.is_reduce]
        return "attention" if len(reduces) > 1 else "matmul"
    return "row reduction"


def run_isolated(ctx: Context, kernel: loop.KernelOp, spec: str) -> None:
    """Run pipeline `spec` on `kernel` alone: the kernel moves into a scratch @main whose
    arguments stand for the buffers it uses, and whatever the pipeline leaves there moves back."""
    outer = list(dict.fromkeys([*kernel.ins, *kernel.outs]))
    block = Block(arg_types=[v.type for v in outer])
    for arg, v in zip(block.args, outer):
        arg.name_hint = v.name_hint  # passes name what they create after the buffers
    inward: dict[SSAValue, SSAValue] = dict(zip(outer, block.args))
    block.add_op(kernel.clone(value_mapper=inward))
    block.add_op(func.ReturnOp())
    scratch = ModuleOp([func.FuncOp("main", ([v.type for v in outer], []), Region(block))])
    PassPipeline.parse_spec(all_passes(), spec).apply(ctx, scratch)
    back: dict[SSAValue, SSAValue] = dict(zip(block.args, outer))
    parent = kernel.parent_block()
    assert parent is not None
    for op in list(block.ops):
        if not isinstance(op, func.ReturnOp):
            parent.insert_op_before(op.clone(value_mapper=back), kernel)
    kernel.detach()
    kernel.erase()


@dataclass(frozen=True)
class Schedule(ModulePass):
    """Schedule each loop kernel with the tile pipeline of its class (pointwise, row
    reduction, matmul, attention)."""

    name = "schedule"

    target: str = "sm_90"

    def __post_init__(self):
        parse_target(self.target)  # a malformed target is a one-line error before any work

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            cls = classify(kernel)
            spec = PIPELINES[cls].format(target=self.target)
            LOG.info(f"schedule: @{kernel.sym_name.data} is {cls}: {spec}")
            run_isolated(ctx, kernel, spec)
