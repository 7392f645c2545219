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
from xdsl.rewriter import Rewriter

from dpl.dialects import attn, loop, tile
from dpl.dialects.kernel import TARGET_KEY
from dpl.transforms import all_passes
from dpl.transforms.loop.fuse_loops import contraction_width, has_reduce
from dpl.transforms.tile.target import SM_THREADS, arch_smem, target_of

SCHEDULE = "tile.schedule"
"""`tile.kernel` attribute: the pipeline string that scheduled it."""

#: Row kernels unroll loops of up to 24 trips: a packed row gives a lane at most 24 elements a pass
#: (blockify-launch.PACK_ROW_MAX), whose loads then issue together instead of one latency each.
#: H100 (session 6, 36 sweep rows of seeds 6-8 and bench/rows_ab.py; max-extent 8 -> 24, ms):
#: mean over dims 1, 3 of 64x165x31x2 0.0069 -> 0.0035, RMSNorm over 128x4 (2047 rows) 0.0063 ->
#: 0.0054, LayerNorm 512 x 4001 0.0129 -> 0.0111, softmax 32768 x 520 0.0609 -> 0.0572, RMSNorm
#: 11877 x 583 0.0303 -> 0.0288; slower: amax over dims 1, 2 of 16x349x64 0.0053 -> 0.0064 and
#: over dim 0 of 256x1409x2 0.0051 -> 0.0058 (both still 1.1x+ eager); 27 others within 3%.
#: A row of its own block takes the lanes that pass over it in at most 12 trips (blockify-launch
#: `row-trips`), held in registers before anything is staged (hold-rows, then stage-inputs). H200
#: (2026-11-29, session 17, rows_ab.py; 256 lanes staged -> the rule, us): softmax 102208 x 1117
#: 358 -> 243, logsumexp 50000 x 1000 92 -> 59, softmax 2048 x 1025 9.2 -> 6.1, 20000 x 1537 98 ->
#: 67, var 40000 x 3000 144 -> 110; at most 16 trips ran rows of 4096 (256 lanes) 5-9 % slower
#: than staged (LayerNorm 8192 x 4096, RMSNorm 4096 x 4096), 12 trips (512 lanes) within 2 %.
ROW_TRIPS = 12
ROW = (
    "collapse-loops,merge-dims,tileify,merge-columns{{sms={sms}}},pad-columns,blockify-launch{{sms={sms} row-trips=" + str(ROW_TRIPS) + "}},"
    "cooperative-reduce,split-reduce{{sms={sms}}},hold-rows,stage-inputs,mark-unroll{{max-extent=24}}"
)
#: An attention kernel that is not flash attention: a row of queries per block, as a row kernel
#: was before ROW_TRIPS (its K and V rows staged first: not measured held).
ATTENTION = (
    "collapse-loops,tileify,pad-columns,blockify-launch{{sms={sms}}},cooperative-reduce,"
    "split-reduce{{sms={sms}}},stage-inputs,hold-rows{{max-trips=24}},mark-unroll{{max-extent=24}}"
)

#: The tile pipeline of each kernel class; `{target}` is the schedule's target.
PIPELINES: dict[str, str] = {
    "pointwise": "tileify,collapse-pointwise,vectorize-pointwise,blockify-launch,order-blocks,mark-unroll",
    "row reduction": ROW,
    "attention": ATTENTION,
    # the nested schedule takes the combine kernel of a split over the keys (splits > 1)
    "flash attention": "tile-attention{{tile={tile} precision={precision} splits={splits} wide={wide}"
    " chain={chain} wgmma={wgmma}}},"
    "schedule{{target={target} sms={sms} precision={precision}}}",
    "matmul": "tileify,pad-matmul{{rows={rows} cols={cols} whole-k={whole_k} sms={sms}}},chunk-matmul-k,"
    "split-matmul-k{{sms={sms} blocks-per-sm={blocks_per_sm} short-k-splits=4 sparse-tile=4096"
    " tile-elements={tile_elements}}},"
    "register-tile{{rows={rows} cols={cols}}},blockify-launch,permute-register-tile,"
    "cooperative-reduce,stage-inputs{{smem-bytes={smem}}},mark-unroll{{max-extent={unroll}}},double-buffer,"
    "async-copy{{target={target}}},pad-smem{{pad=4}},pipeline-k-outer",
}


#: The threads of a SIMT matmul block (16 x 16), for which MatmulTile's costs were measured.
BLOCK_THREADS = 256
#: A SIMT tile's ragged K of at most this many is staged whole, at once, where its grid fills the
#: SMs (pad-matmul `whole-k`, rounded up to whole float4s: at most 124; its docstring has the
#: measurements). stage-inputs may then use the target's shared memory for the two slabs (a
#: 128 x 128 tile's K of 124: 124 KiB), and mark-unroll unrolls its loop whole (UNROLL, a choice
#: of its tuning dimension; the innermost loop of a chunked K is its k-tile's 32). H200 (session
#: 18, kab18.py / wkab18.py, us): 512 x 2741 x 79 tt 15.0 -> 11.7 unrolled, bmm 8 x 493x384x91 nt
#: 18.8 -> 15.5, 5056 x 89 -> 2048 + amax 87.6 -> 79.8, the others within 3 % but 2447 x 33 ->
#: 307 6.5 -> 7.6. A K of 125-127 is padded to 128 and chunked, as before.
WHOLE_K = 124
UNROLL = 128


@dataclass(frozen=True)
class MatmulTile:
    """A matmul block tile (a rows x cols register tile on 16 x 16 threads) and its cost on an
    H100, measured by `bench/matmul_variants.py` (bench/results/h100-2026-11-23-matmul-variants.md):
    the blocks one SM runs at once (ptxas registers, shared memory), the time of one K trip (32
    of K) of a block while the GPU is full (`blocks_per_sm` blocks on every SM), and the time of
    one trip of a block with its SM to itself (`lone_us`): the mainloop reads shared memory with
    scalar loads, so `blocks_per_sm` blocks share an SM's load bandwidth (a trip of n < that
    many takes n / blocks_per_sm of `trip_us`), but a lone block's warps wait on their loads and
    barriers and take no less than `lone_us` (`sm_trip_us`)."""

    rows: int
    cols: int
    blocks_per_sm: int
    trip_us: float
    lone_us: float = 0.0
    measured: bool = True
    """Whether the costs were measured; an estimated tile is not weighed against the tensor cores."""
    small_grid: bool = False
    """Tried only where the first tile's grid fills under a tenth of the SMs (SMALL_GRID)."""
    splits: int = 0
    """split-matmul-k's `splits`: 0 its model's pick; 1 K kept whole (the schedule weighs a split
    tile so too); more: the count a sparse split displaced (`tile.dense_splits`), weighed too."""
    block_trips: float = 0.0
    """K trips each block costs more than its own: its first stage's loads and its epilogue's
    stores, which no trip hides (BLOCK_TRIPS)."""

    def spec(self, target: str, sms: int) -> str:
        elements = self.rows * self.cols * 256
        spec = PIPELINES["matmul"].format(
            target=target, sms=sms, blocks_per_sm=self.blocks_per_sm, rows=self.rows,
            whole_k=WHOLE_K, smem=arch_smem(target), unroll=UNROLL,
            cols=self.cols, tile_elements=elements,
        )  # fmt: skip
        if not self.splits:
            return spec
        return spec.replace(f"tile-elements={elements}}}", f"tile-elements={elements} splits={self.splits}}}")

    def sm_trip_us(self, blocks: int, threads: int = BLOCK_THREADS, smem_fits: int = 32) -> float:
        """The time of one K trip of an SM holding `blocks` of these blocks of `threads` threads
        (in rounds of `at_once`, of which the SM's shared memory holds `smem_fits`; a part-filled
        round takes its share of `trip_us`, at least `lone_us`)."""
        at_once = min(self.at_once(threads), max(1, smem_fits))
        full, rest = divmod(blocks, at_once)
        part = max(self.lone_us, self.trip_us * rest / at_once) if rest else 0.0
        return full * self.trip_us + part

    def at_once(self, threads: int) -> int:
        """The blocks of `threads` threads one SM runs at once. The costs are of blocks of 16 x 16
        threads; a tile that an M or N below its side shrinks (M = 23 on 64 x 64: 32 x 64, 8 x 16
        threads) keeps each thread's registers and does `threads` / 256 of a block's work a trip,
        so an SM holds 256 / `threads` times as many (at most SM_THREADS of threads) at the same
        trip time. H100 (session 7, `bench/mma_candidates.py --simt`, 23 x 2741 x 2816 split 11:
        473 such blocks of 64 x 64 ran 25.9 us, modeled 52.9 as whole blocks, 28 so; 2048 x 64 x
        3328 on 128 x 128 shrunk to 128 x 64, split 13: 34.5 us, modeled 34). On the 12 sweep
        matmuls of seeds 0-10 whose pick it moved (ms; bench/results/h100-2026-11-24-session7.md):
        linear + GELU 21 x 2048 -> 8192 0.069 -> 0.044, linear + ReLU 19 x 4736 -> 8192 0.145 ->
        0.086, bmm 63 x 192x32x853 tt 0.054 -> 0.035, 32x2333x4096 tn 0.051 -> 0.039; slower where
        it took the SIMT tile from the tensor cores, whose split launches the model reads 1.2-1.4x
        slow: 2048x64x3328 nt 0.026 -> 0.035 (0.98x eager), linear + sum 4096 x 2048 -> 64 0.032
        -> 0.038, linear + SwiGLU 32 x 6208 -> 4096 0.060 -> 0.066; four others within 4%."""
        return max(1, min(self.blocks_per_sm * BLOCK_THREADS // threads, SM_THREADS // threads))


#: 64 x 64: 80 registers, 3 blocks/SM, 1.47 ms for 2048 x 3584 x 3584 (5 rounds of 112 trips);
#: a lone block no faster (bench/results/h100-2026-11-23-matmul-variants.md: 16 blocks of
#: 128 x 512 x 3584 took 2.53 us a trip, 128 blocks split 8 ways 2.66).
#: 128 x 128: 246 registers, 1 block/SM, 0.365 ms for 512 x 3584 x 3584 (one round of 112).
#: 32 x 32 (2 x 2 registers): 48 registers, 5 blocks/SM; each trip reads shared memory 4 times
#: per 4 multiply-adds against 64 x 64's 8 per 16. A lone block's trip, with a third of the
#: instructions of a 64 x 64 one but the same barriers and copies, is about half a lone 64 x 64
#: block's (1.3 us, estimated); on the H100 it won where a 64 x 64 grid leaves SMs idle (1117 x
#: 19 x 347 0.38x -> 1.09x eager) and lost where 64 x 64 fills them (a bmm of 924 blocks: 23.3 us
#: against 64 x 64's 17.5), so the schedule tries it only where a 64 x 64 grid has fewer blocks
#: than SMs, and, where tensor-core candidates exist, only over at most SMALL_TC_TRIPS K trips
#: and where they do not win the model (schedule.tensor_cores_win). Before short K had
#: tensor-core candidates, any candidate kept it out, so 32 x 32 was never weighed from K = 128
#: on. H200 A/B (2026-11-28, bench/results/session16, calls 1-4): over at most 8 trips, of the
#: sweep programs it moved 12 ran up to 1.70x faster (matmul_nt 345x384x155 0.83x -> 1.41x
#: eager, matmul_nn 131x1361x157 0.83x -> 1.06x) and 5 slower, 0.75-0.88x (bmm_tt 21 x
#: 97x47x199 1.05x -> 0.79x eager); over more trips 8 of 11 were slower, down to 0.66x
#: (matmul_nt 64x1728x631, 20 trips: the estimated trip cost is least sure over long K), as
#: 64 x 32's were (SMALL_TC_TRIPS). Blocks sharing an SM do not overlap:
#: a full SM's trip is 5 lone trips (6.5 us; it was estimated at 2.18, half a 64 x 64 block's
#: share). The 2 x 2 cells leave each warp too few independent multiply-adds to hide its
#: shared-memory reads, so one block already keeps the SM's issue busy (session 12's ncu: about
#: 65% more instructions an SM than cuBLAS's 32 x 32 tile). Chosen on the 34 sweep programs of
#: seeds 0-25 that pick 32 x 32 on a 64 x 64 grid of over a quarter of the SMs, each timed on
#: 32 x 32 and on 64 x 64 (H200): of 2.18, 3, 4, 5, 6.5 and 8 us, 6.5 and 8 ordered them best.
#: Then every sweep program of seeds 0-25 whose pick 6.5 moves (29), old against new in one
#: process (H200, 2026-11-28, bench/results/session15/abtrip.*): geomean 1.11x faster (up to
#: 1.69x: matmul_tt 19x3793x1088 0.70x -> 1.18x eager), x eager 1.19 -> 1.32, below 0.8x eager
#: 4 -> 1; slower on two, linear + mean 1856x269 -> 29 (0.87x, still 1.04x eager) and linear +
#: amax 5209x189 -> 16 (0.96x). Of session 11's 15 H100 kernels whose default was 32 x 32 it
#: moves one, matmul_tn 613x665x64, which 64 x 64 ran 1.33x faster there too.
#:
#: BLOCK_TRIPS: in a launch of full rounds (every SM holding `at_once` blocks) a block costs about
#: 0.75 of its trips more than its K trips (its first loads, its epilogue's stores). The trip costs
#: above were measured over long K, where that is a few percent; over a short K it decides the
#: tile. H200 (2026-11-28, bench/results/session16 and session15, each tile timed alone): 128 x 128
#: at 4096 x 4096 x 96 nt, 8192 x 4096 x 64 nt, a bmm of 64 x 512x512x64 nt and 4096 x 4096 x 64 nn
#: measured 0.6-0.9 trips a block more than rounds x trips x trip_us, 64 x 64 at 4096 x 4096 x 96
#: nn 0.8; without it the model ranked SIMT over the tensor cores there (measured 1.1-1.6x slower).
#: 32 x 32 pays it too, so the order of 32 x 32 and 64 x 64 fitted above holds at short K (without
#: it, matmul_tn 613x665x64 went back to 32 x 32, 0.71x eager). 64 x 32 is tried on small grids
#: only, where its costs were measured: none. Not in launches that leave SMs part-filled: the lone
#: trip costs were fitted on such launches, fixed costs included; counted in every launch (session
#: 16's call 3), it moved small split grids to lone tensor-core blocks at 0.47-0.68x (matmul_tn
#: 79x575x512, 64x1728x256, linear + mean 1024x384 -> 128). The 68 programs of that call replayed
#: on these rules (with the short-K tensor cores and 32 x 32's gate): 1.04x over the old picks, the
#: slowest 0.81x, 6 below 0.8x eager against 7.
BLOCK_TRIPS = 0.75
MATMUL_TILES = (
    MatmulTile(4, 4, 3, 2.62, 2.62, block_trips=BLOCK_TRIPS),
    MatmulTile(8, 8, 1, 3.2, 3.2, block_trips=BLOCK_TRIPS),
    MatmulTile(4, 2, 4, 2.45, 1.88, small_grid=True),
    MatmulTile(2, 2, 5, 6.5, 1.3, measured=False, block_trips=BLOCK_TRIPS),
)

#: A `small_grid` tile is tried where the first tile's grid, its K split left out, has at most
#: this fraction of the SMs in blocks.
SMALL_GRID = 0.1

#: A `small_grid` tile is also tried, unsplit, where padded tensor-core tiles (a ragged shape)
#: win the matmul so far on a grid of at most this fraction of the SMs (its K split left out)
#: over a K of at most SMALL_TC_TRIPS trips: there one 3xTF32 tile's block is the kernel's time
#: (matmul_tn 64x3389x137: 27 blocks of 128 x 128, 17.3 us; 64 x 32 unsplit, 9.8). Replayed on
#: session 11's 1325 measured points of 80 kernels (bench/results/session13/tools/evalq.py), it
#: moves that pick alone (1.77x). Split, or over longer K, 64 x 32 lost to the tensor cores in
#: those points (linear + residual 211x837 -> 1024: 34.3 against 25.2 us, as session 9 found too;
#: matmul_tn 839x128x2885: 39.4 against 26.8), where the model's split and long-K trips are
#: least sure.
#: Unpadded, it would move 128x2048x192 (schedule-mma.mlir's @k_few) off tensor cores 64 x 64,
#: which won such a shape there (bmm_tn 16 x 128x167x192: 12.1 us against 64 x 32's 14.1).
#: Fractions from a quarter to all of the SMs moved the same picks; a half also takes the 44
#: blocks of matmul_tn 5507x64x135 (sweep seed 21, 0.58x eager).
SMALL_TC_GRID = 0.5
SMALL_TC_TRIPS = 8


def classify(kernel: loop.KernelOp) -> str:
    if any(isinstance(op, attn.SoftmaxReduceOp) for op in kernel.walk()):
        return "flash attention"
    if not has_reduce(kernel):
        return "pointwise"
    if contraction_width(kernel, None, unit=False):  # (a vector-matrix product: a reduction)
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
    buffers `kernel` uses (named alike), and the map from those arguments back to the buffers.
    It has the #kernel.target of `kernel`'s module (the default's, in none)."""
    outer = list(dict.fromkeys([*kernel.ins, *kernel.outs]))
    block = Block(arg_types=[v.type for v in outer])
    for arg, v in zip(block.args, outer):
        arg.name_hint = v.name_hint  # passes name what they create after the buffers
    inward: dict[SSAValue, SSAValue] = dict(zip(outer, block.args))
    block.add_op(kernel.clone(value_mapper=inward))
    block.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("main", ([v.type for v in outer], []), Region(block))])
    module.attributes[TARGET_KEY] = target_of(kernel)
    return module, dict(zip(block.args, outer))


def module_block(module: ModuleOp) -> Block:
    """The body of a scratch module's @main."""
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return main.body.block


def commit(kernel: loop.KernelOp, block: Block, back: dict[SSAValue, SSAValue]) -> None:
    """Replace `kernel` by what scheduling left in the scratch `block`."""
    new = [op.clone(value_mapper=back) for op in block.ops if not isinstance(op, func.ReturnOp)]
    Rewriter.replace_op(kernel, new, [])

