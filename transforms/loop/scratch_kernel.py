"""A scratch kernel for one fusion attempt of fuse-loops: the consumer less the nests it leaves be.

fuse-loops tries a producer on a consumer by inlining it into a copy of the consumer and cleaning
the copy up (`fold_index_ops`, `hoist_invariants`, `fold_invariant_reductions`,
`dedup_pure_ops`); a refusal drops the copy. A consumer of many nests, each reading other
buffers (a recurrent net's stacked outputs: one nest per time step, each taking its step's
producers one by one), would be copied and cleaned whole at each of its fusions: T steps cost
T^2. `ScratchKernel` copies only the ops of the consumer's body that the attempt may change: the
nests that read the producer's buffer and the body's own ops (constants and values hoisted out
of the nests, which the nests share); each other free nest gets a stand-in, an op the cleanups
leave alone that reads what the nest reads from the body (so no value the nest needs looks
dead). When the fusion is kept, the real nests take their stand-ins' places and read the
values the stand-ins read by then (a body value merged into an equal one is read as the one
kept).

This gives the same kernel as cleaning the whole copy when each nest left out is settled (the
cleanups would change nothing inside it, `nest.settled`) and no two ops of the consumer's body
are merged by `dedup_pure_ops` (`nest.has_twins`): inlining touches only loads of the buffer;
folding, hoisting and folding reductions act within a nest or move its ops up into the body;
deduplication merges ops of one block, and in the body it only maps old values to new equal
ones, one to one, so no two ops of a nest left out become equal. Otherwise, and for a kernel of
fewer than two nests (whose loops fuse-loops may reorder), the caller copies the whole kernel.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import test
from xdsl.ir import Block, Operation, SSAValue

from dpl.dialects import loop
from dpl.transforms.loop.nest import has_twins, settled


def free_nests(kernel: loop.KernelOp) -> list[loop.ForOp]:
    """The free loops of `kernel`'s body."""
    return [o for o in kernel.body.block.ops if isinstance(o, loop.ForOp) and not o.is_reduce]


def body_values_read(nest: Operation) -> list[SSAValue]:
    """The values defined by ops of the kernel body around `nest` that `nest` reads, in order."""
    body = nest.parent_block()
    read: dict[SSAValue, None] = {}
    for op in nest.walk():
        for v in op.operands:
            if isinstance(v.owner, Operation) and v.owner.parent_block() is body:
                read[v] = None
    return list(read)


def can_leave_out(kernel: loop.KernelOp, nests: list[loop.ForOp], is_settled: Callable[[Operation], bool] = settled) -> bool:
    """Whether a scratch kernel of `kernel` may leave `nests` out (see the module's doc);
    `is_settled` answers `settled` (a cache of it)."""
    if not nests or len(free_nests(kernel)) < 2 or has_twins(kernel.body.block):
        return False
    return all(is_settled(n) for n in nests)


class ScratchKernel:
    """`consumer`'s body with stand-ins for `left_out` (free nests whose `reads[nest]` are the
    body values they read); `kernel` is the scratch kernel to fuse into and clean up."""

    def __init__(self, consumer: loop.KernelOp, left_out: list[loop.ForOp], reads: dict[Operation, list[SSAValue]]):
        mapper: dict[SSAValue, SSAValue] = {}
        block = Block()
        leave = set(left_out)
        self.stand_ins: list[tuple[Operation, loop.ForOp, list[SSAValue]]] = []
        for op in consumer.body.block.ops:
            if op in leave:
                stand_in = test.TestOp([mapper[v] for v in reads[op]])
                block.add_op(stand_in)
                self.stand_ins.append((stand_in, op, reads[op]))
            else:
                block.add_op(op.clone(mapper))
        self.kernel = loop.KernelOp(consumer.sym_name.data, list(consumer.ins), list(consumer.outs), block)
        self.kernel.attributes |= consumer.attributes

    def put_back(self) -> dict[Operation, list[SSAValue]]:
        """Move the real nests into the scratch kernel in their stand-ins' places, reading the
        values the stand-ins read; returns what each nest now reads of the body."""
        renamed: dict[SSAValue, SSAValue] = {}
        now_reads: dict[Operation, list[SSAValue]] = {}
        for stand_in, nest, read in self.stand_ins:
            now = list(stand_in.operands)
            renamed.update(zip(read, now))
            now_reads[nest] = now
            nest.detach()
            self.kernel.body.block.insert_op_before(nest, stand_in)
            stand_in.detach()
            stand_in.erase()
        for old, new in renamed.items():
            old.replace_all_uses_with(new)
        return now_reads
