"""fuse-loops: inline producer kernels into the kernels that read them.

A producer is a kernel in producer form (`out[i0..in] = f(i)` over a chain of free loops, see
`nest.ProducerNest`) whose output is an intermediate buffer (allocated in @main, not returned).
Each `loop.load` of that buffer in a later kernel is replaced by a copy of the producer's
computation at the loaded index (sigma-substitution), invariant code is hoisted out of the
consumer's loops and repeated pure ops are merged. The result is kept only if it passes the
blow-up guard:

- no recomputed reductions: after hoisting, the fused kernel runs no more reduce-loop iterations
  than producer and consumer did apart (a reduction depending only on outer indices is hoisted
  to run once per value, like the seeds' RMSNorm; one that cannot be hoisted is refused), unless
  the producer's reduction is short: at most `max-recompute-reduce` (16) iterations per value it
  writes (a sum over a dim of 3 read by x / sum: every output recomputes its column's 3 terms);
- a reduction over a dim that is not the innermost (RMSNorm or softmax over the channels of
  (N, C, H, W)) is read by its consumer inside a loop over the reduced dim (c), outside the
  loops it depends on (h, w), where it could not be hoisted. When it reduces at most
  `max-column-reduce` (1024) iterations per value and the consumer reduces nothing, the
  consumer's loops that the read does not index move innermost first (`sink_unindexed_loops`:
  (n, c, h, w) -> (n, h, w, c); free loops run in any order), so the reduction is hoisted to run
  once per (n, h, w) beside a loop over c that normalizes: one kernel, the statistic never in
  memory, each column read twice (the row schedule gives the contiguous axis a warp; the second
  read comes from registers: hold-rows holds the column, on up to 32 lanes past 256 channels
  (blockify-launch's wide columns). Softmax over dim 1 of (2048, 3, 251) is one kernel so too.
  A longer reduction keeps its own kernel (split over blocks it fills the GPU; more than 32
  lanes' registers could not hold it). H200 (2026-11-30, session 27, bench/results/session27/
  tools/ab27x.py, 512 -> 1024, held, us): softmax over dim 1 of 16 x 1023 x 1025 104 -> 59,
  over dim 0 of 667 x 16384 50 -> 38, 1024 x 30912 133 -> 88 (unheld, fused past 512 ran
  slower: 667 x 16384 53 -> 70);
- one copy of a rounded reduction per compared value: a producer that sums or multiplies
  floats is not inlined where one nest of the consumer reads it inside a reduce loop over its
  elements and at another index too (a sort's n x n compare reads each key at its own row and,
  in a loop, at every row: `compared_copies`). The copies would be scheduled apart (one shared
  by a block's lanes, one a loop of each thread), their sums rounded differently, and a value
  compared with its own copy could differ from itself: ranks that are not a permutation, a
  gather past the buffer. Max and min are exact in any order;
- cheap recomputation only: the extra op executions are at most `max-recompute-ops` (default 16)
  per read of the producer's buffer (a matmul prologue recomputed per output column is fine, a
  long chain re-evaluated at every read is not).

A producer whose buffer other kernels still read stays alive, so fusing it copies its work: then
the fused kernel may not run more reduce-loop iterations than the consumer alone (a shared
projection is computed once, not once per reader), and a kernel may hold at most
`max-copied-ops` (32) op executions per loop iteration copied from shared producers, summed over
every copy it took, directly or inside the producers it absorbed. Each copy is cheap; on a
recurrence copies compound: nn.LSTM's cell state c_t = f_t c_{t-1} + i_t g_t is read by h_t
and by c_{t+1}, so each step's kernel copied every step before it (kernels of 56, 83, 110, ...
ops; 64 steps of a batch of 32 did not compile in an hour). With the limit a kernel takes about
one step's copy (an LSTM step is ~25 per iteration, two 43): 64 steps compile, fuse-loops in
83 s. The busiest kernels of other programs (205 of sessions 32-43's batches and the sweep)
hold at most 30 (a transformer decoder; top-k by 8 rounds of argmax 16, a beam step 23); of ~280
programs only a 3x3 inverse fuses in another order, into the same kernels (bench/results/
session44). A pair refused for the
limit is not tried again while the producer is shared: the consumer's copies and the
producer's work only grow as they fuse.

A reduction is not fused into a *contraction* (a consumer with a reduce loop whose body loads two
buffers A and B with its index, each also indexed by a free loop the other is not: a matmul) when
the contraction's B-only free extent exceeds `max-row-tile` (128): on the GPU such a contraction
is tiled over blocks along those columns, and every block would recompute the rows' reduction
(an RMSNorm before a projection stays its own small kernel, the projection keeps only the
elementwise prologue).

A contraction is never fused into another contraction (gate and up projections stay two matmuls;
the SiLU-times-up epilogue joins one of them), nor into a consumer that reads its output inside a
reduce loop (`sum(x @ w.T, dim=1)`, a softmax or norm of a projection): its K loop would run
inside the reduction's loop, once per element and untiled, where as two kernels the matmul gets
the matmul schedule and the reduction reads its output once.

A contraction is a reduce loop that multiply-adds two loads, each indexed by a free loop the
other is not (a count of comparisons, as a sort's ranks, is no matmul even where its mask and
its data are indexed like a matmul's operands). A contraction fuses into an elementwise consumer
only where the consumer's loops are the contraction's: not where the consumer writes more values
than the contraction has (a squeeze-excite scale broadcast over h and w would run inside the
matmul's tile, serially per thread), nor where its loops index both operands, so that the
matmul's M x N (the free loops, of extent > 1, indexing only one operand times those indexing
only the other) would shrink (a convolution's output read through a pixel shuffle).

A reduction longer than `max-recompute-reduce` per value stays out of a consumer that reads it
inside a reduce loop with fewer outputs than the reduction has values: a cross entropy's mean
over the rows would run each row's log-sum-exp inside its own loop, serially, where apart the
rows reduce in parallel.

An elementwise producer with a comparison of loop indices (a padded window's select) fuses into
a reader that is no contraction only where that reads each of its values at most
`max-select-reads` (16) times: a select, its compares and the wrapped index run at every read,
where the padded copy is one pass over memory. H200 (2026-11-30, session 33,
bench/results/session33/tools/ab33s.py, fused / apart, us): depthwise 3x3 (9 reads) 20.6 /
25.1, a 1-D depthwise 7 23.6 / 26.7, max pooling 3/2/1 11.7 / 34.0; depthwise 5x5 (25) 40.9 /
37.4, 7x7 413 / 321, average pooling 5x5 36.8 / 29.1, a 1-D depthwise 31 78.4 / 56.7, grouped
3x3 of 4 to 32 channels a group 176-805 / 133-476.

A fusion into a consumer that is no contraction may add at most `max-costly-recompute` (32)
executions of transcendentals and divisions per output of the consumer, beyond what producer and
consumer ran apart (after hoisting): a blocked cumulative product reads each value of its chunk
once per later element of the chunk (64), and a sigmoid re-evaluated there (126 more per output)
outweighs the scan, where apart it runs once and the scan reads its results from cache. A few
per output (a softmax's exp and division under a mixture's sum over 8 experts: 16) hide under
the consumer's memory traffic, and a broadcast gate `x * sigmoid(g)[:, None]` hoists them out of
the row.

A contraction's reduce body runs once per multiply-add, so a prologue fused into it costs as much
per op as the contraction's own work (a tile amortises it over a few columns only). A fusion into a
contraction is refused when its reduce body would hold a transcendental or a division (SiLU before
the down projection, softmax before P @ V), a load at an index read from memory (a reflect pad's
positions before a convolution: its operand would be no plain load for the tensor cores), or
more than `max-prologue-ops` (4) loads and ops besides the multiply-add's own two loads and
product (rotary embedding before Q @ K^T): the producer stays its own memory-bound kernel and
the contraction stays a plain matmul (an RMSNorm's scaling, or a bias, still fuse).

Fusion runs in two rounds: first only elementwise producers into consumers that are no
contraction yet (products and broadcasts form each matmul, elementwise chains such as a rotary
embedding fuse among themselves), then everything, so that a contraction weighs a whole chain as
its prologue and no reduction moves before the matmuls exist.

A consumer tries its producers in the order it lists them, unless one producer reads another's
buffer (a DAG: each step of a binary search reads the position before it twice); then the latest
written first, so that a producer other producers read is inlined after them, once (their copies
bring its loads back). A first form of the merge sort of 8 x 512 (607 kernels) fused 2265 times
in listed order without ending in 160 s, most producers 5 to 20 times; latest first, 1228 times
in 21 s.

When a producer's buffer is no longer read it is dropped with its kernel (see drop-dead-buffers).
Each round indexes who writes and who reads every buffer once and keeps that index as kernels are
fused and dropped, visiting again only the kernels with a pair not yet tried, so the pass runs in
time about linear in the number of kernels (each fusion costs the size of the two kernels it
joins; a chain that all fuses into one kernel still grows that kernel step by step). Within a
kernel of many nests an attempt costs only the nests that read the producer's buffer: the
guards' counts are kept per op of a kernel's body (`Parts`), and the attempt inlines into and
cleans up a `ScratchKernel` that copies those nests and the body's own values, with stand-ins
for the other nests (the same kernel as copying it whole, see scratch_kernel). A recurrent net's
stacked outputs (one nest per time step, each taking its step's producers one by one) cost
T^2 otherwise (bench/fuse_loops_time.py, CPU s): nn.GRU(32, 64) over 64 steps 50 -> 24, a
2-layer bidirectional one over 32 steps 103 -> 47. What still grows faster than T is the IR's
own: the nests that read a step's output hold copies of the steps before them, the more the
more steps share the copy budget (`max-copied-ops` counts per iteration of the kernel).
Each decision (fuse / refuse and why) is logged to the `dpl.passes` logger (`dpl -v`).
"""

from __future__ import annotations

import heapq
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AnyFloat, IndexType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.loop.drop_dead_buffers import drop_dead_buffers
from dpl.transforms.loop.scratch_kernel import ScratchKernel, body_values_read, can_leave_out, free_nests
from dpl.transforms.loop.nest import (
    ProducerNest,
    dedup_pure_ops,
    fold_index_ops,
    fold_invariant_reductions,
    hoist_invariants,
    inline_at,
    match_producer,
    settled,
    sink_unindexed_loops,
)
from dpl.transforms.options import check_option


LOG = logging.getLogger("dpl.passes")


def enclosing(op: Operation) -> Iterator[Operation]:
    """The ops around `op` inside its kernel, innermost first."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, loop.KernelOp):
        yield parent
        parent = parent.parent_op()


def executions(op: Operation) -> int:
    """How many times `op` runs per run of its kernel: the product of enclosing loop extents."""
    return math.prod(p.extent.data for p in enclosing(op) if isinstance(p, loop.ForOp))


def intermediate_buffers(main: func.FuncOp) -> set[SSAValue]:
    returned = {v for op in main.body.block.ops if isinstance(op, func.ReturnOp) for v in op.arguments}
    return {
        op.memref
        for op in main.body.block.ops
        if isinstance(op, memref.AllocOp) and op.memref not in returned
    }


@dataclass(frozen=True)
class FuseLoops(ModulePass):
    """Inline producer loop nests into their consumers, with a recomputation guard."""

    name = "fuse-loops"

    max_recompute_ops: int = 16
    max_row_tile: int = 128
    max_prologue_ops: int = 4
    max_recompute_reduce: int = 16
    max_column_reduce: int = 1024
    """The longest reduction (iterations per value) fused by moving the consumer's loops it does
    not depend on innermost (0: never)."""
    max_select_reads: int = 16
    """The most reads per value of an elementwise producer with a loop-index comparison (a
    padded window's select) that fuses into a reader that is no contraction (0: never; a
    contraction's prologue has its own rule)."""
    max_costly_recompute: int = 32
    """The most transcendentals and divisions a fusion may add per output of the consumer, run
    beyond what producer and consumer ran apart (0: none; a contraction's prologue has its own
    rule)."""
    max_copied_ops: int = 32
    """The most op executions per loop iteration a kernel may hold as copies of shared
    producers (work that other kernels also run), summed over every copy it took, directly
    or inside the producers it absorbed (0: only copies that add no work)."""

    def __post_init__(self):
        check_option(self, "max_recompute_ops", 0)
        check_option(self, "max_recompute_reduce", 0)
        check_option(self, "max_column_reduce", 0)
        check_option(self, "max_select_reads", 0)
        check_option(self, "max_costly_recompute", 0)
        check_option(self, "max_copied_ops", 0)
        check_option(self, "max_row_tile", 1)
        check_option(self, "max_prologue_ops", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for main in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            # First round: elementwise producers into everything but contractions, so that
            # elementwise chains are whole before a contraction weighs one as a prologue and
            # every matmul has formed (product into sum) before any reduction moves.
            copies, parts = Copies(), Parts()
            for first_round in (True, False):
                drop_dead_buffers(main)
                _Fusion(self, main, first_round, copies, parts).run()
            drop_dead_buffers(main)

    def _try_inline(
        self, producer: ProducerNest, consumer: loop.KernelOp, buffer: SSAValue, shared: bool,
        parts: Parts, copies: Copies,
    ) -> loop.KernelOp | None:
        """The consumer with the producer inlined at `buffer`'s loads, or None (logged) when a
        guard refuses it; `parts` counts what the guards weigh in each op of a kernel's body,
        `copies` the copies of shared producers each kernel holds (updated for the result)."""
        name_p, name_c = producer.kernel.sym_name.data, consumer.sym_name.data
        readers = parts.readers(consumer, buffer)
        loads = parts.loads(consumer, buffer)
        width = parts.width(consumer, buffer, readers)
        if parts.has_reduce(producer.kernel) and width > self.max_row_tile:
            LOG.info(
                f"refuse @{name_p} into @{name_c}: a reduction stays out of a contraction "
                f"{width} columns wide (each output tile would recompute it)"
            )
            return None
        if rounded_reduction(producer.kernel) and compared_copies(loads):
            LOG.info(
                f"refuse @{name_p} into @{name_c}: its float sum would be copied to reads at "
                "different indices (copies scheduled apart round apart: one value compared with "
                "its own copy could differ)"
            )
            return None
        if parts.is_contraction(producer.kernel) and parts.is_contraction(consumer):
            LOG.info(f"refuse @{name_p} into @{name_c}: both are contractions (one per kernel)")
            return None
        if parts.is_contraction(producer.kernel) and any(in_reduce(o) for o in loads):
            LOG.info(
                f"refuse @{name_p} into @{name_c}: a contraction stays out of a reduction over "
                "its outputs (its K loop would run untiled inside the reduction's loop)"
            )
            return None
        if parts.has_reduce(producer.kernel) and not self.short_reduction(producer):
            outputs_read = min((free_iterations(o) for o in loads if in_reduce(o)), default=None)
            values = producer_values(producer)
            if outputs_read is not None and outputs_read < values:
                LOG.info(
                    f"refuse @{name_p} into @{name_c}: its reduction would run inside a reduce "
                    f"loop of {outputs_read} outputs, not over its own {values} values in parallel"
                )
                return None
        if parts.is_contraction(producer.kernel):
            written = parts.outputs(consumer)
            values = producer_values(producer)
            if written > values:
                LOG.info(
                    f"refuse @{name_p} into @{name_c}: it writes {written} values from the "
                    f"contraction's {values} (a broadcast would run inside the matmul's tile)"
                )
                return None
        if not parts.has_reduce(producer.kernel) and not parts.is_contraction(consumer) and any(_index_compare(o) for o in producer.kernel.walk()):
            reads = sum(executions(o) for o in loads)
            values = producer_values(producer)
            if reads > self.max_select_reads * values:
                LOG.info(
                    f"refuse @{name_p} into @{name_c}: its loop-index comparison would run at each of "
                    f"{reads / values:.1f} reads per value (limit {self.max_select_reads}; the padded "
                    "copy is one pass over memory)"
                )
                return None
        if shared and not parts.has_reduce(producer.kernel) and copies.held.get(consumer, 0) > self.max_copied_ops * parts.iterations(consumer):
            LOG.info(
                f"refuse @{name_p} into @{name_c}: the kernel holds its limit of copies of shared "
                f"producers ({self.max_copied_ops} op executions per iteration)"
            )
            return None
        scratch = parts.scratch(consumer, readers)
        candidate = scratch.kernel if scratch is not None else consumer.clone()
        if scratch is None and self.sinks(producer, consumer, parts):
            moved = sink_unindexed_loops(candidate, buffer)
            if moved:
                names = ", ".join(f"%{v.name_hint}" for v in moved)
                LOG.info(f"@{name_c}: loops {names} moved innermost (@{name_p}'s reduction does not depend on them)")
        loads = [o for o in candidate.walk() if isinstance(o, loop.LoadOp) and o.memref == buffer]
        reads = sum(executions(o) for o in loads)
        for load in loads:
            inline_at(producer, load)
        fold_index_ops(candidate)
        hoist_invariants(candidate)
        fold_invariant_reductions(candidate)
        dedup_pure_ops(candidate)
        refusal = self._refusal(producer, consumer, candidate, shared, reads, parts, copies)
        if refusal is not None:
            LOG.info(f"refuse @{name_p} into @{name_c}: {refusal}")
            parts.forget(candidate)
            candidate.erase()
            return None
        held = self._held(producer, consumer, candidate, shared, parts, copies)
        if scratch is not None:
            parts.put_back(scratch)
        ins = [v for v in candidate.ins if v != buffer]
        ins += [v for v in producer.kernel.ins if v not in ins]
        fused = loop.KernelOp(name_c, ins, list(candidate.outs), candidate.detach_region(0))
        fused.attributes |= candidate.attributes
        candidate.erase()
        copies.held[fused] = held
        LOG.info(f"fuse @{name_p} into @{name_c}")
        return fused

    def _refusal(
        self, producer: ProducerNest, consumer: loop.KernelOp, candidate: loop.KernelOp, shared: bool,
        reads: int, parts: Parts, copies: Copies,
    ) -> str | None:
        """Why the guards refuse `candidate`, the consumer with the producer inlined and cleaned
        up (None: it is kept). A refusal for the limit of copies is recorded in `copies`."""
        reduce_before = parts.reduce_iterations(consumer)
        if not shared:  # the producer dies: its reductions move, they are not copied
            reduce_before += parts.reduce_iterations(producer.kernel)
        reduce_after = parts.reduce_iterations(candidate)
        if reduce_after > reduce_before and not self.short_reduction(producer):
            return f"would recompute a reduction ({reduce_before} -> {reduce_after} reduce iterations)"
        if parts.is_contraction(producer.kernel):
            before, after = contraction_area(producer.kernel), parts.area(candidate)
            if after < before:
                return (
                    f"the contraction's M x N would shrink from {before} to {after} (the consumer's "
                    "loops index both operands)"
                )
        if parts.is_contraction(consumer):
            cost, costly = parts.prologue_cost(candidate)
            if costly or cost > self.max_prologue_ops:
                why = costly[0].name if costly else f"{cost} loads and ops"
                return (
                    f"the contraction's reduce body would run {why} per multiply-add besides it "
                    f"(limit {self.max_prologue_ops}, no transcendentals, divisions, loop-index "
                    "comparisons, gathers or loops)"
                )
        if not parts.is_contraction(consumer):
            added = parts.costly_work(candidate) - parts.costly_work(consumer) - parts.costly_work(producer.kernel)
            written = max(1, parts.outputs(candidate))
            if added > self.max_costly_recompute * written:
                return (
                    f"{added / written:.0f} more transcendentals and divisions per output (limit "
                    f"{self.max_costly_recompute}; apart each runs once)"
                )
        work_after, work_before = parts.work(candidate), parts.work(consumer)
        if shared:  # the copy's work runs twice: here and in the producer, which stays
            held = self._held(producer, consumer, candidate, shared, parts, copies)
            points = parts.iterations(candidate)
            if held > self.max_copied_ops * points:
                copies.cap(producer.kernel, consumer)
                return (
                    f"the kernel would hold {held / points:.0f} op executions per iteration copied "
                    f"from shared producers (limit {self.max_copied_ops}; a recurrence would "
                    "recompute every earlier step)"
                )
        extra = work_after - work_before - parts.work(producer.kernel)
        if extra > self.max_recompute_ops * reads:
            return f"{extra} extra op executions for {reads} reads (limit {self.max_recompute_ops} per read)"
        return None

    def _held(
        self, producer: ProducerNest, consumer: loop.KernelOp, candidate: loop.KernelOp, shared: bool,
        parts: Parts, copies: Copies,
    ) -> int:
        """The op executions the fused kernel holds copied from shared producers: the
        consumer's, the producer's when it dies into it, and the copy when it is shared."""
        held = copies.held.get(consumer, 0) + (0 if shared else copies.held.get(producer.kernel, 0))
        if shared:
            held += max(0, parts.work(candidate) - parts.work(consumer))
        return held

    def sinks(self, producer: ProducerNest, consumer: loop.KernelOp, parts: Parts) -> bool:
        """Whether inlining `producer` into `consumer` first moves the consumer's loops that
        the producer's values do not depend on innermost (`sink_unindexed_loops`): the producer
        reduces, at most `max-column-reduce` iterations per value it writes, and the consumer
        reduces nothing."""
        return 0 < reduce_iterations(producer.kernel) <= self.max_column_reduce * producer_values(producer) and not parts.has_reduce(consumer)

    def short_reduction(self, producer: ProducerNest) -> bool:
        """Whether `producer` reduces at most `max_recompute_reduce` iterations per value it
        writes (and at least one: an elementwise producer recomputes no reduction)."""
        return 0 < reduce_iterations(producer.kernel) <= self.max_recompute_reduce * producer_values(producer)


class Copies:
    """The copies of shared producers over one run of fuse-loops: the op executions each kernel
    holds that other kernels also run (`held`), and the (producer, consumer) pairs refused for
    `max-copied-ops` (`capped`). A fused kernel keeps the refusals of the kernel it replaces, as
    consumer and as producer: a consumer's copies only grow, and so does a producer's work, so
    a copy over the limit stays over it while the producer is shared."""

    def __init__(self):
        self.held: dict[loop.KernelOp, int] = {}
        self.capped: set[tuple[loop.KernelOp, loop.KernelOp]] = set()
        self._pairs: dict[loop.KernelOp, set[tuple[loop.KernelOp, loop.KernelOp]]] = {}

    def cap(self, producer: loop.KernelOp, consumer: loop.KernelOp) -> None:
        pair = (producer, consumer)
        self.capped.add(pair)
        self._pairs.setdefault(producer, set()).add(pair)
        self._pairs.setdefault(consumer, set()).add(pair)

    def replace(self, kernel: loop.KernelOp, fused: loop.KernelOp) -> None:
        """`fused` takes `kernel`'s place: its refusals carry over."""
        for p, c in self._pairs.pop(kernel, set()):
            self.capped.discard((p, c))
            self.cap(fused if p is kernel else p, fused if c is kernel else c)


class Part:
    """What the guards count in one op of a kernel's body (a nest, or a value of the body),
    each count taken when first asked for (the op is not changed after that)."""

    def __init__(self, op: Operation):
        self.op = op

    @cached_property
    def work(self) -> int:
        return work(self.op)

    @cached_property
    def costly_work(self) -> int:
        return costly_work(self.op)

    @cached_property
    def reduce_iterations(self) -> int:
        return reduce_iterations(self.op)

    @cached_property
    def leaf_iterations(self) -> int:
        return leaf_iterations(self.op)

    @cached_property
    def outputs(self) -> int:
        return outputs(self.op)

    @cached_property
    def has_reduce(self) -> bool:
        return has_reduce(self.op)

    @cached_property
    def width(self) -> int:
        return contraction_width(self.op, None)

    @cached_property
    def area(self) -> int:
        return contraction_area(self.op)

    @cached_property
    def reduce_bodies(self) -> tuple[list[Operation], list[Operation]]:
        return reduce_bodies(self.op)


class Parts:
    """The guards' counts of kernels over one run of fuse-loops, kept per op of a kernel's body:
    a kernel's count is the sum (widths and areas: the maximum) of its ops', and the ops of a
    consumer's body that a fusion leaves alone keep theirs, so an attempt counts only the ops it
    changes. Also makes the `ScratchKernel` for an attempt where it may, remembering for each
    nest left out of one the body values it reads and whether it is `settled`."""

    def __init__(self):
        self._parts: dict[Operation, Part] = {}
        self._stands_for: dict[Operation, Operation] = {}
        self._settled: dict[Operation, bool] = {}
        self._reads: dict[Operation, list[SSAValue]] = {}

    def of(self, op: Operation) -> Part:
        op = self._stands_for.get(op, op)
        if op not in self._parts:
            self._parts[op] = Part(op)
        return self._parts[op]

    def each(self, kernel: loop.KernelOp) -> list[Part]:
        return [self.of(op) for op in kernel.body.block.ops]

    def forget(self, kernel: loop.KernelOp) -> None:
        """Drop what is known of `kernel`'s body (about to be erased)."""
        for op in kernel.body.block.ops:
            for known in (self._parts, self._stands_for, self._settled, self._reads):
                known.pop(op, None)

    def work(self, kernel: loop.KernelOp) -> int:
        return sum(p.work for p in self.each(kernel))

    def costly_work(self, kernel: loop.KernelOp) -> int:
        return sum(p.costly_work for p in self.each(kernel))

    def reduce_iterations(self, kernel: loop.KernelOp) -> int:
        return sum(p.reduce_iterations for p in self.each(kernel))

    def iterations(self, kernel: loop.KernelOp) -> int:
        """How many times the kernel's innermost loop bodies run in all (at least 1)."""
        return max(1, sum(p.leaf_iterations for p in self.each(kernel)))

    def outputs(self, kernel: loop.KernelOp) -> int:
        return sum(p.outputs for p in self.each(kernel))

    def has_reduce(self, kernel: loop.KernelOp) -> bool:
        return any(p.has_reduce for p in self.each(kernel))

    def is_contraction(self, kernel: loop.KernelOp) -> bool:
        return any(p.width > 0 for p in self.each(kernel))

    def area(self, kernel: loop.KernelOp) -> int:
        return max((p.area for p in self.each(kernel)), default=0)

    def prologue_cost(self, kernel: loop.KernelOp) -> tuple[int, list[Operation]]:
        busiest: list[Operation] = []
        nested: list[Operation] = []
        for p in self.each(kernel):
            busiest = max(busiest, p.reduce_bodies[0], key=len)
            nested += p.reduce_bodies[1]
        return prologue_cost(busiest, nested)

    def loads(self, kernel: loop.KernelOp, buffer: SSAValue) -> list[loop.LoadOp]:
        """The loads of `buffer` in `kernel`."""
        return [u.operation for u in buffer.uses if isinstance(u.operation, loop.LoadOp) and kernel.is_ancestor(u.operation)]

    def readers(self, kernel: loop.KernelOp, buffer: SSAValue) -> set[Operation]:
        """The ops of `kernel`'s body that load `buffer`."""
        tops: set[Operation] = set()
        for load in self.loads(kernel, buffer):
            top: Operation = load
            while top.parent_op() is not kernel:
                top = top.parent_op()  # type: ignore[assignment]
            tops.add(top)
        return tops

    def width(self, kernel: loop.KernelOp, buffer: SSAValue, readers: set[Operation]) -> int:
        """`contraction_width(kernel, buffer)`: an op of the body that does not load `buffer`
        has its width for no buffer (the loops on a side are the op's own)."""
        return max(
            (contraction_width(op, buffer) if op in readers else self.of(op).width for op in kernel.body.block.ops),
            default=0,
        )

    def scratch(self, kernel: loop.KernelOp, readers: set[Operation]) -> ScratchKernel | None:
        """A scratch kernel of `kernel` without its free nests that do not read the fused
        buffer (`readers` do), or None where it may not leave them out (`can_leave_out`)."""
        left_out = [n for n in free_nests(kernel) if n not in readers]
        if not can_leave_out(kernel, left_out, self.settled):
            return None
        for nest in left_out:
            if nest not in self._reads:
                self._reads[nest] = body_values_read(nest)
        scratch = ScratchKernel(kernel, left_out, self._reads)
        for stand_in, nest, _ in scratch.stand_ins:
            self._stands_for[stand_in] = nest
        return scratch

    def settled(self, nest: Operation) -> bool:
        if nest not in self._settled:
            self._settled[nest] = settled(nest)
        return self._settled[nest]

    def put_back(self, scratch: ScratchKernel) -> None:
        """The real nests take their stand-ins' places in `scratch` (the fusion is kept)."""
        for stand_in, _, _ in scratch.stand_ins:
            del self._stands_for[stand_in]
        self._reads.update(scratch.put_back())


class _Fusion:
    """One round of fusion over @main's kernels, last consumers first (a reduction pulls in its
    operands before they are fused elsewhere), each (producer, consumer) pair tried once while
    both are unchanged.

    Who writes and who reads each buffer is indexed once and kept up to date as kernels are
    fused and dropped, and only kernels with a pair not yet tried are visited again (the fused
    kernel, and the readers of what it writes), so a round costs about the fusions it makes,
    not the number of kernels times the fusions."""

    def __init__(self, fuse: FuseLoops, main: func.FuncOp, first_round: bool, copies: Copies, parts: Parts):
        self.fuse, self.main, self.first_round, self.copies, self.parts = fuse, main, first_round, copies, parts
        self.intermediates = intermediate_buffers(main)
        kernels = [k for k in main.body.block.ops if isinstance(k, loop.KernelOp)]
        self.order = {k: i for i, k in enumerate(kernels)}  # program order; a fused kernel keeps its consumer's
        self.writer = {k.outs[0]: k for k in kernels if len(k.outs) == 1}
        self.readers: dict[SSAValue, set[loop.KernelOp]] = {}
        for k in kernels:
            for b in k.ins:
                self.readers.setdefault(b, set()).add(k)
        self.returned = {v for op in main.body.block.ops if isinstance(op, func.ReturnOp) for v in op.arguments}
        self.refused: set[tuple[Operation, Operation]] = set()
        self.pending: list[tuple[int, int, loop.KernelOp]] = []  # a max-heap on program order
        self.queued: set[loop.KernelOp] = set()
        for k in kernels:
            self.visit(k)

    def visit(self, kernel: loop.KernelOp) -> None:
        if kernel not in self.queued:
            self.queued.add(kernel)
            heapq.heappush(self.pending, (-self.order[kernel], id(kernel), kernel))

    def run(self) -> None:
        while self.pending:
            _, _, consumer = heapq.heappop(self.pending)
            self.queued.discard(consumer)
            if consumer in self.order:
                self.fuse_into(consumer)

    def fuse_into(self, consumer: loop.KernelOp) -> None:
        """Try each producer of `consumer` in turn; after a fusion the fused kernel goes back
        on the list (it may take more producers), with the readers of what it writes."""
        if self.first_round and self.parts.is_contraction(consumer):
            return
        for buffer in self.producers_order(consumer):
            producer_kernel = self.writer.get(buffer)
            if buffer not in self.intermediates or producer_kernel is None:
                continue
            if (producer_kernel, consumer) in self.refused:
                continue
            if self.first_round and self.parts.has_reduce(producer_kernel):
                continue
            self.refused.add((producer_kernel, consumer))
            producer = match_producer(producer_kernel)
            if producer is None:
                LOG.info(
                    f"keep @{producer_kernel.sym_name.data} for "
                    f"@{consumer.sym_name.data}: not a single free nest"
                )
                continue
            shared = bool(self.readers[buffer] - {consumer})
            if shared and (producer_kernel, consumer) in self.copies.capped:
                continue  # refused for its limit of copies, which only grow
            fused = self.fuse._try_inline(producer, consumer, buffer, shared, self.parts, self.copies)
            if fused is not None:
                self.replace(consumer, fused)
                self.drop_if_dead(producer_kernel)
                return

    def producers_order(self, consumer: loop.KernelOp) -> list[SSAValue]:
        """`consumer`'s inputs in the order their producers are tried: as listed, unless the
        producer of one reads another (a DAG: a binary search's position feeds its next probe
        and the step after it), then latest written first, so that a producer that others
        read is inlined after them (their copies bring its loads back) once, not once per path."""
        produced = [b for b in consumer.ins if b in self.intermediates and b in self.writer]
        if not {b for p in produced for b in self.writer[p].ins} & set(produced):
            return list(consumer.ins)

        def written_at(buffer: SSAValue) -> int:
            writer = self.writer.get(buffer)
            return self.order.get(writer, -1) if writer is not None else -1

        return sorted(consumer.ins, key=written_at, reverse=True)

    def replace(self, consumer: loop.KernelOp, fused: loop.KernelOp) -> None:
        self.main.body.block.insert_op_before(fused, consumer)
        self.copies.replace(consumer, fused)
        self.order[fused] = self.order.pop(consumer)
        for b in consumer.ins:
            self.readers[b].discard(consumer)
        for b in fused.ins:
            self.readers.setdefault(b, set()).add(fused)
        for b in fused.outs:
            if self.writer.get(b) is consumer:
                self.writer[b] = fused
            for reader in self.readers.get(b, ()):
                self.visit(reader)  # (fused, reader) is a new pair
        self.parts.forget(consumer)
        consumer.detach()
        consumer.erase()
        self.visit(fused)

    def drop_if_dead(self, kernel: loop.KernelOp) -> None:
        """Erase a producer whose buffer nothing reads any more (it was inlined into its last
        reader), with its allocation: kernels fully inlined need not be fused into."""
        if any(self.readers.get(b) or b in self.returned or not isinstance(b.owner, memref.AllocOp) for b in kernel.outs):
            return
        del self.order[kernel]
        for b in kernel.ins:
            self.readers[b].discard(kernel)
        for b in kernel.outs:
            self.writer.pop(b, None)
        allocs = [b.owner for b in kernel.outs]
        self.parts.forget(kernel)
        kernel.detach()
        kernel.erase()
        for alloc in allocs:
            if not alloc.results[0].uses:
                alloc.detach()
                alloc.erase()


def producer_values(producer: ProducerNest) -> int:
    """How many values a producer nest writes: the product of its free loops' extents."""
    return math.prod(f.extent.data for f in producer.loops)


# The counts below walk `root`: a kernel, or one op of a kernel's body (a kernel's count is the
# sum, or for widths and areas the maximum, of its body's ops' counts; see `Parts`).


def reduce_iterations(root: Operation) -> int:
    """How many reduce-loop iterations a kernel runs in all."""
    return sum(
        executions(o) * o.extent.data
        for o in root.walk()
        if isinstance(o, loop.ForOp) and o.is_reduce
    )


def leaf_iterations(root: Operation) -> int:
    """How many times a kernel's innermost loop bodies run in all (its iteration space, less
    the 1 of a kernel without loops: the outputs of an elementwise nest, outputs times the
    reduced length of a reduction)."""
    return sum(
        executions(o) * o.extent.data
        for o in root.walk()
        if isinstance(o, loop.ForOp) and not any(isinstance(i, loop.ForOp) for i in o.body.walk())
    )


def work(root: Operation) -> int:
    """Op executions of a kernel: each arith/math op or load weighted by its enclosing loops."""
    return sum(
        executions(o)
        for o in root.walk()
        if (o.dialect_name() in ("arith", "math") and not isinstance(o, arith.ConstantOp))
        or isinstance(o, loop.LoadOp)
    )


def outputs(root: Operation) -> int:
    """How many values a kernel stores: its stores' free iterations, summed."""
    return sum(free_iterations(o) for o in root.walk() if isinstance(o, loop.StoreOp))


COSTLY = (arith.DivfOp,)


def _costly(op: Operation) -> bool:
    """A math op (a transcendental) or a division: many instructions each on a GPU."""
    return op.dialect_name() == "math" or isinstance(op, COSTLY)


def costly_work(root: Operation) -> int:
    """Executions of a kernel's costly ops (`_costly`), each weighted by its enclosing loops."""
    return sum(executions(o) for o in root.walk() if _costly(o))


def reduce_bodies(root: Operation) -> tuple[list[Operation], list[Operation]]:
    """The loads and arith/math ops (constants aside) of the busiest reduce-loop body (the first
    of the longest), and the loops inside reduce loops."""
    busiest: list[Operation] = []
    nested: list[Operation] = []
    for red in root.walk():
        if isinstance(red, loop.ForOp) and red.is_reduce:
            ops = [
                o
                for o in red.body.walk()
                if (o.dialect_name() in ("arith", "math") and not isinstance(o, arith.ConstantOp))
                or isinstance(o, loop.LoadOp)
            ]
            busiest = max(busiest, ops, key=len)
            nested += [o for o in red.body.walk() if isinstance(o, loop.ForOp)]
    return busiest, nested


def prologue_cost(busiest: list[Operation], nested: list[Operation]) -> tuple[int, list[Operation]]:
    """The loads and arith/math ops (constants aside) of the busiest reduce-loop body beyond a
    plain multiply-add's two loads and one product, and the ops among them that are costly on a
    GPU (math ops, divisions) or keep the operands from being plain loads (a comparison of loop
    indices: a padded convolution input's select, which the tensor cores' stages cannot take;
    a load at an index read from memory: a reflect-padded input's; a loop inside the reduce
    loop: a max-pool's window read by the linear after it, which makes the nest no matmul)."""
    costly = nested + [o for o in busiest if _costly(o) or _index_compare(o) or _gathered(o)]
    return max(len(busiest) - 3, 0), costly


def _index_compare(op: Operation) -> bool:
    return isinstance(op, arith.CmpiOp) and isinstance(op.lhs.type, IndexType)


def _gathered(op: Operation) -> bool:
    """A load at an index read from memory (an index_select's, a gather's): no tile stage of
    the tensor cores takes it."""
    return isinstance(op, loop.LoadOp) and any(isinstance(v.owner, arith.IndexCastOp) for v in op.indices)


def compared_copies(loads: list[loop.LoadOp]) -> bool:
    """Whether reads of one buffer in one nest take an element and every element (a compare of
    all pairs: one load inside a reduce loop indexed by it, another at other indices), so that
    a value meets its own copy (a stencil's neighbours or a read per nest do not)."""
    for inner in loads:
        red = next((p for p in enclosing(inner) if isinstance(p, loop.ForOp) and p.is_reduce), None)
        if red is None or red.iv not in inner.indices:
            continue
        nest = list(enclosing(inner))[-1]
        if any(o is not inner and nest.is_ancestor(o) and (o.map, tuple(o.indices)) != (inner.map, tuple(inner.indices))
               for o in loads):  # fmt: skip
            return True
    return False


def rounded_reduction(kernel: loop.KernelOp) -> bool:
    """Whether `kernel` folds floats by add or mul (whose result depends on the order)."""
    rounded = (loop.CombineKind.ADD, loop.CombineKind.MUL)
    return any(
        kind.data in rounded and isinstance(v.type, AnyFloat)
        for acc in kernel.walk() if isinstance(acc, loop.AccumulateOp)
        for kind, v in zip(acc.kinds.data, acc.values)
    )  # fmt: skip


def in_reduce(op: Operation) -> bool:
    """Whether `op` runs inside one of its kernel's reduce loops."""
    return any(isinstance(p, loop.ForOp) and p.is_reduce for p in enclosing(op))


def free_iterations(op: Operation) -> int:
    """The product of the free loops' extents around `op` in its kernel (its outputs' count)."""
    return math.prod(p.extent.data for p in enclosing(op) if isinstance(p, loop.ForOp) and not p.is_reduce)


def has_reduce(root: Operation) -> bool:
    return any(isinstance(o, loop.ForOp) and o.is_reduce for o in root.walk())


def indexed_by(load: loop.LoadOp) -> set[SSAValue]:
    """The index values a load's map actually uses."""
    return {load.indices[d] for d in load.map.data.used_dims()}


def multiply_adds(red: loop.ForOp) -> bool:
    """Whether reduce loop `red` accumulates a product by add (a count or a masked sum of
    compares, as a sort's ranks, is no matmul even where its loads look like one's)."""
    acc = red.body.block.last_op
    return isinstance(acc, loop.AccumulateOp) and any(
        k.data == loop.CombineKind.ADD and isinstance(v.owner, arith.MulfOp | arith.MuliOp)
        for k, v in zip(acc.kinds, acc.values)
    )


def _multiply_add_sides(root: Operation, unit: bool) -> Iterator[tuple[dict[SSAValue, int], list[set[SSAValue]]]]:
    """For each reduce loop of `kernel` that multiply-adds: the extents of the free loops around
    it (of extent 1 too where `unit`), and for each load over its index the set of those loops
    the load uses (its side)."""
    for red in root.walk():
        if not (isinstance(red, loop.ForOp) and red.is_reduce and multiply_adds(red)):
            continue
        iv = red.body.block.args[0]
        extent: dict[SSAValue, int] = {}
        for parent in enclosing(red):
            if isinstance(parent, loop.ForOp) and not parent.is_reduce and (unit or parent.extent.data > 1):
                extent[parent.body.block.args[0]] = parent.extent.data
        used = [indexed_by(o) for o in red.body.walk() if isinstance(o, loop.LoadOp)]
        yield extent, [u & set(extent) for u in used if iv in u]


def contraction_width(root: Operation, buffer: SSAValue | None, unit: bool = True) -> int:
    """0 if `kernel` is no contraction; else the largest extent of the free loops that only the
    operand on the far side from `buffer`'s reads indexes (a projection's output columns).
    `unit=False`: free loops of extent 1 are no side (x[0, k] w[k, n] is a vector-matrix product,
    no contraction)."""
    reads: set[SSAValue] = set()
    for o in root.walk():
        if isinstance(o, loop.LoadOp) and o.memref == buffer:
            reads |= indexed_by(o)
    width = 0
    for extent, sides in _multiply_add_sides(root, unit):
        for a in sides:
            for b in sides:
                far = b - a
                if a - b and far and not (far & reads):
                    width = max(width, math.prod(extent[v] for v in far))
    return width


def contraction_area(root: Operation) -> int:
    """The largest M x N of `kernel`'s contractions: for a reduce loop that multiply-adds loads
    over its index, the product of the extents of the free loops (of extent > 1) around it that
    index only one of two of them times that of those that index only the other (0 if none)."""
    area = 0
    for extent, sides in _multiply_add_sides(root, unit=False):
        for a in sides:
            for b in sides:
                if a - b and b - a:
                    area = max(area, math.prod(extent[v] for v in a - b) * math.prod(extent[v] for v in b - a))
    return area


def is_contraction(kernel: loop.KernelOp) -> bool:
    """Some reduce loop multiply-adds two loads, each also indexed by a free loop the other is not."""
    return contraction_width(kernel, None) > 0
