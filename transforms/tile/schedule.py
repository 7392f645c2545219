"""schedule: give every `loop.kernel` the tile pipeline of its class (the default schedule).

Each kernel is classified from its loop nest, then scheduled on its own with its class's pass
pipeline (below), as if that pipeline ran on a module holding only that kernel. The classes:

- pointwise: no reduce loop (elementwise ops, copies, concat parts): 4 consecutive elements
  per thread where every access allows one float4 (vectorize-pointwise), else one; blocks of
  blockify-launch's default size;
- matmul on tensor cores (precision `3xtf32`, the default where the target has them, or `tf32`):
  a large, evenly divisible f32 contraction goes to tensorize-matmul's wgmma tiles (the block
  tile and split-K from schedule_mma.py's model), its prologue and epilogue fused as on SIMT; a
  tiny or ragged one, or `precision=ieee`, takes the SIMT schedule below (`-v` says why);
- matmul: a contraction (a reduce loop loading A and B, each indexed by a free loop the other is
  not): K chunked, K split over blocks when the launch model says it pays (split-matmul-k), a
  register tile per thread on 16 x 16 threads, A and B tiles staged in shared memory (rows padded
  by 4 floats, so both are read as float4 along K) per K step, double-buffered with cp.async
  (sm_80+) and pipelined. Two block tiles are tried (`MATMUL_TILES`): 64 x 64 (4 x 4 registers,
  3 blocks per SM) and 128 x 128 (8 x 8, one block per SM, each A and B value read from shared
  memory feeds twice the multiply-adds); the one of least modeled time wins: the rounds of blocks
  the GPU runs at once, times each block's K trips, times the tile's measured time per trip,
  plus the split's atomics (`modeled_us`). 128 x 128 wins for large outputs (512 x 3584 and up)
  and long K (a split fills the GPU), 64 x 64 for small ones (the 128 x 512 k/v projection).
  A matmul with an epilogue that rules out split-K (SwiGLU's `silu(gate) * up`) is also tried
  with the epilogue split off into a pointwise kernel (split-epilogue), modeled as its bytes over
  the copy bandwidth plus a launch; TinyLlama's up projection at seq 128 takes that;
- attention: a contraction holding further reductions (softmax's max and sum fused into P @ V):
  one row of queries per block like a row reduction, K/V rows staged;
- row reduction: the rest (norms, softmax, sums): a block per row, the reduce shared by the
  block's threads (warp shuffles), rows read more than once staged in shared memory.

`dpl compile -v` logs each kernel's class and pipeline. The per-kernel pipelines are plain
pipeline strings (`PIPELINES`), so any of them can be run by hand with `dpl-opt --pass-pipeline`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass, PassPipeline

from dpl.dialects import loop, tile
from dpl.transforms import all_passes
from dpl.transforms.loop.fuse_loops import has_reduce, is_contraction
from dpl.transforms.loop.split_epilogue import declines as split_epilogue_declines
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.schedule_mma import check_precision, mma_spec
from dpl.transforms.tile.split_matmul_k import SPLIT_AXIS, SplitMatmulK, split_time
from dpl.transforms.tile.target import DEFAULT_ARCH, parse_target, target_arch, target_sms

ROW = "tileify,blockify-launch,cooperative-reduce,stage-inputs,mark-unroll"

#: The tile pipeline of each kernel class; `{target}` is the schedule's target.
PIPELINES: dict[str, str] = {
    "pointwise": "tileify,vectorize-pointwise,blockify-launch,mark-unroll",
    "row reduction": ROW,
    "attention": ROW,
    "matmul": "tileify,chunk-matmul-k,"
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
    the map from its arguments back to the buffers they stand for."""
    outer = list(dict.fromkeys([*kernel.ins, *kernel.outs]))
    block = Block(arg_types=[v.type for v in outer])
    for arg, v in zip(block.args, outer):
        arg.name_hint = v.name_hint  # passes name what they create after the buffers
    inward: dict[SSAValue, SSAValue] = dict(zip(outer, block.args))
    block.add_op(kernel.clone(value_mapper=inward))
    block.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("main", ([v.type for v in outer], []), Region(block))])
    PassPipeline.parse_spec(all_passes(), spec).apply(ctx, module)
    return block, dict(zip(block.args, outer))


def commit(kernel: loop.KernelOp, block: Block, back: dict[SSAValue, SSAValue]) -> None:
    """Replace `kernel` by what scheduling left in the scratch `block`."""
    parent = kernel.parent_block()
    assert parent is not None
    for op in list(block.ops):
        if not isinstance(op, func.ReturnOp):
            parent.insert_op_before(op.clone(value_mapper=back), kernel)
    kernel.detach()
    kernel.erase()


#: Pointwise kernels (the epilogue split-epilogue leaves): bytes over the H100's measured copy
#: bandwidth, plus a launch.
COPY_GBS = 3000.0
LAUNCH_US = 3.0


def matmul_us(t: tile.TileOp, sms: int) -> float | None:
    """The modeled time of matmul tile `t` (None if its register tile is not one of
    MATMUL_TILES): ceil(blocks / blocks at once) rounds x K trips per block x the tile's time per
    trip, plus the split's atomic adds as split-matmul-k counts them."""
    cells = sorted(e for _, e, k in t.axes if k == tile.AxisKind.CELL)
    choice = next((c for c in MATMUL_TILES if cells == sorted([c.rows, c.cols])), None)
    if choice is None:
        return None  # register-tile declined: not a tile whose cost was measured
    blocks = math.prod(e for _, e, k in t.axes if k == tile.AxisKind.BLOCK)
    splits = next((e for v, e, _ in t.axes if v.name_hint == SPLIT_AXIS), 1)
    outer = next((o for o in t.body.block.ops if isinstance(o, loop.ForOp) and o.is_reduce), None)
    trips = 1 if outer is None else outer.extent.data
    at_once = sms * choice.blocks_per_sm
    defaults = SplitMatmulK()
    per_trip = split_time(blocks // splits, trips * splits, splits, at_once, defaults.atomic_trips)
    return per_trip * choice.trip_us


def pointwise_us(t: tile.TileOp) -> float:
    """The modeled time of a pointwise tile: the bytes its loads and stores move over COPY_GBS."""
    elements = math.prod(e for _, e, _ in t.axes)
    accesses = [o for o in t.walk() if isinstance(o, loop.LoadOp | loop.StoreOp)]
    nbytes = sum(elements * (o.memref.type.element_type.bitwidth // 8) for o in accesses)
    return LAUNCH_US + nbytes / (COPY_GBS * 1e3)


def modeled_us(block: Block, sms: int) -> float:
    """The modeled time of the matmul and pointwise kernels scheduled in `block` (inf if any
    kernel is neither or its matmul tile has no measured cost)."""
    total = 0.0
    for t in [t for t in block.walk() if isinstance(t, tile.TileOp)]:
        if any(k == tile.AxisKind.CELL for _, _, k in t.axes):
            us = matmul_us(t, sms)
        elif not any(isinstance(o, loop.ForOp) and o.is_reduce for o in t.walk()):
            us = pointwise_us(t)
        else:
            us = None
        if us is None:
            return math.inf
        total += us
    return total


@dataclass(frozen=True)
class Schedule(ModulePass):
    """Schedule each loop kernel with the tile pipeline of its class (pointwise, row
    reduction, matmul, attention)."""

    name = "schedule"

    target: str | None = None
    """The arch (default: the module's #kernel.target's; transforms/tile/target.py)."""
    sms: int | None = None
    """The GPU's multiprocessors, for the matmul launch model (default: the target's)."""
    precision: str = "auto"
    """Matmuls: ieee (SIMT fp32), 3xtf32 or tf32 (tensor cores); auto: 3xtf32 where the target
    has tensor cores, else ieee."""

    def __post_init__(self):
        if self.target is not None:
            parse_target(self.target)  # a malformed target is a one-line error before any work
        check_option(self, "sms", 1)
        try:
            check_precision(self.precision, self.target or DEFAULT_ARCH)
        except ValueError as e:
            raise ValueError(f"schedule: {e}") from None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target is None or self.sms is None:  # the module's target fills what is not given
            return replace(self, target=target_arch(self.target, op), sms=target_sms(self.sms, op)).apply(ctx, op)
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            cls = classify(kernel)
            if cls == "matmul":
                precision = check_precision(self.precision, self.target)
                choice = mma_spec(ctx, kernel, precision, self.target, self.sms, scratch)
                if isinstance(choice, tuple):
                    spec, what = choice
                    LOG.info(f"schedule: @{kernel.sym_name.data} is matmul on {what}: {spec}")
                    run_isolated(ctx, kernel, spec)
                    continue
                LOG.info(f"schedule: @{kernel.sym_name.data} is matmul on SIMT fp32: {choice}")
                self.schedule_matmul(ctx, kernel)
                continue
            spec = PIPELINES[cls].format(target=self.target)
            LOG.info(f"schedule: @{kernel.sym_name.data} is {cls}: {spec}")
            run_isolated(ctx, kernel, spec)

    def schedule_matmul(self, ctx: Context, kernel: loop.KernelOp) -> None:
        """Schedule `kernel` with each of MATMUL_TILES, and (if it has an epilogue) split from
        its epilogue, and keep the one of least modeled time."""
        name = kernel.sym_name.data
        tried = []
        for choice in MATMUL_TILES:
            spec = choice.spec(self.target, self.sms)
            what = f"{choice.rows * 16} x {choice.cols * 16}"
            tried.append((what, spec, *scratch(ctx, kernel, spec)))
        if split_epilogue_declines(kernel) is None:
            spec = f"split-epilogue,schedule{{target={self.target} sms={self.sms} precision=ieee}}"
            tried.append(("epilogue split off", spec, *scratch(ctx, kernel, spec)))
        costs = [modeled_us(block, self.sms) for _, _, block, _ in tried]
        best = min(range(len(tried)), key=lambda i: (costs[i], i))
        what, spec, block, back = tried[best]
        modeled = ", ".join(f"{w}: {c:.0f} us" for (w, *_), c in zip(tried, costs))
        LOG.info(f"schedule: @{name} is matmul, {what} (modeled {modeled}): {spec}")
        commit(kernel, block, back)
