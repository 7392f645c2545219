"""The kernel classes of `schedule` (schedule.py), their tile pipelines, and running a pipeline
on one kernel alone.

`classify` names a `loop.kernel`'s class from its loop nest; `PIPELINES` holds each class's tile
pipeline string (the matmul's filled in per block tile of `MATMUL_TILES`). `scratch` copies a
kernel into a module of its own and schedules it there, so the schedule can try several pipelines
on one kernel and `commit` the one it keeps. Both the schedule and its tuning space
(schedule_space.py) are built on these.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import PassPipeline

from dpl.dialects import attn, loop, tile
from dpl.transforms import all_passes
from dpl.transforms.loop.fuse_loops import has_reduce, is_contraction

SCHEDULE = "tile.schedule"
"""`tile.kernel` attribute: the pipeline string that scheduled it."""

ROW = (
    "collapse-loops,tileify,pad-columns,blockify-launch{{sms={sms}}},cooperative-reduce,"
    "split-reduce{{sms={sms}}},stage-inputs,mark-unroll"
)

#: The tile pipeline of each kernel class; `{target}` is the schedule's target.
PIPELINES: dict[str, str] = {
    "pointwise": "tileify,vectorize-pointwise,blockify-launch,mark-unroll",
    "row reduction": ROW,
    "attention": ROW,
    "flash attention": "tile-attention{{tile={tile} precision={precision}}}",
    "matmul": "tileify,pad-matmul{{rows={rows} cols={cols}}},chunk-matmul-k,"
    "split-matmul-k{{sms={sms} blocks-per-sm={blocks_per_sm} tile-elements={tile_elements}}},"
    "register-tile{{rows={rows} cols={cols}}},blockify-launch,permute-register-tile,"
    "cooperative-reduce,stage-inputs,mark-unroll{{max-extent=32}},double-buffer,"
    "async-copy{{target={target}}},pad-smem{{pad=4}},pipeline-k-outer",
}


@dataclass(frozen=True)
class MatmulTile:
    """A matmul block tile (a rows x cols register tile on 16 x 16 threads) and its cost on an
    H100, measured by `bench/matmul_variants.py` (bench/results/h100-2026-11-23-matmul-variants.md):
    the blocks one SM runs at once (ptxas registers) and the time of one K trip (32 of K) of a
    block while the GPU is full."""

    rows: int
    cols: int
    blocks_per_sm: int
    trip_us: float

    def spec(self, target: str, sms: int) -> str:
        return PIPELINES["matmul"].format(
            target=target, sms=sms, blocks_per_sm=self.blocks_per_sm, rows=self.rows,
            cols=self.cols, tile_elements=self.rows * self.cols * 256,
        )  # fmt: skip


#: 64 x 64: 80 registers, 3 blocks/SM, 1.47 ms for 2048 x 3584 x 3584 (5 rounds of 112 trips);
#: 128 x 128: 246 registers, 1 block/SM, 0.365 ms for 512 x 3584 x 3584 (one round of 112).
MATMUL_TILES = (MatmulTile(4, 4, 3, 2.62), MatmulTile(8, 8, 1, 3.2))


def classify(kernel: loop.KernelOp) -> str:
    if any(isinstance(op, attn.SoftmaxReduceOp) for op in kernel.walk()):
        return "flash attention"
    if not has_reduce(kernel):
        return "pointwise"
    if is_contraction(kernel):
        reduces = [op for op in kernel.walk() if isinstance(op, loop.ForOp) and op.is_reduce]
        return "attention" if len(reduces) > 1 else "matmul"
    return "row reduction"


def run_isolated(ctx: Context, kernel: loop.KernelOp, spec: str) -> None:
    """Run pipeline `spec` on `kernel` alone: the kernel moves into a scratch @main whose
    arguments stand for the buffers it uses, and whatever the pipeline leaves there moves back."""
    commit(kernel, *scratch(ctx, kernel, spec))


def scratch(ctx: Context, kernel: loop.KernelOp, spec: str) -> tuple[Block, dict[SSAValue, SSAValue]]:
    """`kernel` copied into a scratch @main and scheduled there by `spec`: the scratch block and
    the map from its arguments back to the buffers they stand for. Each tile kernel `spec` makes
    records it as `tile.schedule` (unless a nested schedule recorded its own)."""
    module, back = scratch_module(kernel)
    PassPipeline.parse_spec(all_passes(), spec).apply(ctx, module)
    block = module_block(module)
    for k in block.ops:
        if isinstance(k, tile.KernelOp) and SCHEDULE not in k.attributes:
            k.attributes[SCHEDULE] = StringAttr(spec)
    return block, back


def scratch_module(kernel: loop.KernelOp) -> tuple[ModuleOp, dict[SSAValue, SSAValue]]:
    """A module whose @main holds a copy of `kernel` alone, its arguments standing for the
    buffers `kernel` uses (named alike), and the map from those arguments back to the buffers."""
    outer = list(dict.fromkeys([*kernel.ins, *kernel.outs]))
    block = Block(arg_types=[v.type for v in outer])
    for arg, v in zip(block.args, outer):
        arg.name_hint = v.name_hint  # passes name what they create after the buffers
    inward: dict[SSAValue, SSAValue] = dict(zip(outer, block.args))
    block.add_op(kernel.clone(value_mapper=inward))
    block.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("main", ([v.type for v in outer], []), Region(block))])
    return module, dict(zip(block.args, outer))


def module_block(module: ModuleOp) -> Block:
    """The body of a scratch module's @main."""
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return main.body.block


def commit(kernel: loop.KernelOp, block: Block, back: dict[SSAValue, SSAValue]) -> None:
    """Replace `kernel` by what scheduling left in the scratch `block`."""
    parent = kernel.parent_block()
    assert parent is not None
    for op in list(block.ops):
        if not isinstance(op, func.ReturnOp):
            parent.insert_op_before(op.clone(value_mapper=back), kernel)
    kernel.detach()
    kernel.erase()

