"""split-nests: give each top-level loop nest of a `loop.kernel` its own kernel.

A kernel whose body holds several loop nests side by side (a `concat` lowers to one nest per
operand, each writing its slice of the output) cannot be one GPU grid: `tileify` lifts one chain
of free loops. This pass splits such a kernel in place into one kernel per nest, in order, named
`<kernel>`, `<kernel>_part1`, ...; each takes the buffers its nest reads as `ins` and writes as
`outs`, and copies the constants, scalar arith / math and top-level reductions it uses
(fuse-loops hoists a splat times 2, or a whole reduction such as a mean, out of its nest: the
`stack` of a mean and a sum is two stores of two hoisted reductions); a counted kernel's flops
and bytes (count-cost) are divided among the parts. A nest is a top-level loop that yields
nothing; a top-level reduction yields a value and belongs to the nests that use it (one used by
two nests runs in both). The nests write disjoint elements (or, in order, the
same ones), so running the kernels one after another keeps meaning.

Where the parts provably write disjoint boxes of every buffer they share (each store's index
bounded over its loops' extents) and none reads a buffer another writes, as a concat's parts
do, each part is marked `{kernel.apart = "<kernel>"}`: fuse-launches may then run them as one
launch although they write one buffer.

    loop.kernel @k_cat ins(%x) outs(%cat) { loop.for ... {A}  loop.for ... {B} }
    ->
    loop.kernel @k_cat ins(%x) outs(%cat) { loop.for ... {A} }
    loop.kernel @k_cat_part1 ins(%x) outs(%cat) { loop.for ... {B} }

Kernels with one nest are left alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop
from dpl.dialects.kernel import APART
from dpl.dialects.tensor import expr_range
from dpl.transforms.loop.count_cost import divide

LOG = logging.getLogger("dpl.passes")


def _buffers(body: Block, kernel: loop.KernelOp) -> tuple[list[SSAValue], list[SSAValue]]:
    reads: list[SSAValue] = []
    writes: list[SSAValue] = []
    for op in body.walk():
        if isinstance(op, loop.LoadOp) and op.memref not in reads:
            reads.append(op.memref)
        if isinstance(op, loop.StoreOp | loop.AtomicOp) and op.memref not in writes:
            writes.append(op.memref)
    order = list(kernel.ins) + list(kernel.outs)
    ins = [b for b in order if b in reads and b not in writes]
    outs = [b for b in order if b in writes]
    return ins, outs


def _store_boxes(nest: Operation) -> dict[SSAValue, list[tuple[int, int]]] | None:
    """Per buffer `nest` stores to, the box (per dim, [lo, hi]) of every index it stores at;
    None when an index is not a loop variable of the nest or not bounded."""
    extents = {
        f.body.block.args[0]: f.extent.data for f in nest.walk() if isinstance(f, loop.ForOp)
    }
    boxes: dict[SSAValue, list[tuple[int, int]]] = {}
    for op in nest.walk():
        if isinstance(op, loop.AtomicOp):  # a scatter's fold: where it lands is data
            return None
        if not isinstance(op, loop.StoreOp):
            continue
        if not all(i in extents for i in op.indices):
            return None
        box = []
        for expr in op.map.data.results:
            bounds = expr_range(expr, [extents[i] for i in op.indices])
            if bounds is None:
                return None
            box.append(bounds)
        old = boxes.get(op.memref)
        boxes[op.memref] = box if old is None else [
            (min(a, c), max(b, d)) for (a, b), (c, d) in zip(old, box)
        ]
    return boxes


def writes_apart(nests: list[Operation]) -> bool:
    """Whether the nests write disjoint boxes of each buffer they share and none reads a
    buffer another writes (its own output included: `B[i] = B[i + 4]` beside a nest writing
    B[4:8] must run after it)."""
    boxes = [_store_boxes(n) for n in nests]
    if any(b is None for b in boxes):
        return False
    for i, (nest, mine) in enumerate(zip(nests, boxes)):
        reads = {op.memref for op in nest.walk() if isinstance(op, loop.LoadOp)}
        for j, theirs in enumerate(boxes):
            if i == j:
                continue
            if reads & set(theirs):  # type: ignore[arg-type]
                return False
            for buf, box in mine.items():  # type: ignore[union-attr]
                other = theirs.get(buf)  # type: ignore[union-attr]
                if other is not None and all(a <= d and c <= b for (a, b), (c, d) in zip(box, other)):
                    return False
    return True


def _copyable(op: Operation) -> bool:
    """An op outside the nests that a part may copy: a constant, arith / math on scalars (what
    fuse-loops hoists out of a nest, e.g. a splat constant times 2), or a reduction (a mean
    hoisted out of the nest that writes it; reduce loops only accumulate, they store nothing)."""
    if isinstance(op, loop.ForOp):
        return bool(op.results)
    return op.dialect_name() in ("arith", "math") and not op.regions


def split_kernel(kernel: loop.KernelOp) -> list[loop.KernelOp] | None:
    ops = [op for op in kernel.body.block.ops if not isinstance(op, loop.YieldOp)]
    nests = [op for op in ops if isinstance(op, loop.ForOp) and not op.results]
    rest = [op for op in ops if op not in nests]
    if len(nests) < 2 or not all(_copyable(op) for op in rest):
        return None
    name = kernel.sym_name.data
    kernels = []
    for i, nest in enumerate(nests):
        block = Block()
        mapping: dict[SSAValue, SSAValue] = {}
        used = {o for op in nest.walk() for o in op.operands}
        for c in reversed(rest):  # what the nest uses, and what that uses
            if any(r in used for r in c.results):
                used |= {o for op in c.walk() for o in op.operands}
        for c in rest:
            if any(r in used for r in c.results):
                copy = c.clone(value_mapper=mapping)
                block.add_op(copy)
                mapping.update(zip(c.results, copy.results))
        block.add_op(nest.clone(value_mapper=mapping))
        ins, outs = _buffers(block, kernel)
        kernels.append(loop.KernelOp(name if i == 0 else f"{name}_part{i}", ins, outs, block))
    if writes_apart(kernels):
        for k in kernels:
            k.attributes[APART] = StringAttr(name)
    return kernels


@dataclass(frozen=True)
class SplitNests(ModulePass):
    """Split kernels holding several loop nests into one kernel per nest."""

    name = "split-nests"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            parts = split_kernel(kernel)
            if parts is None:
                continue
            LOG.info(f"split-nests: @{kernel.sym_name.data} -> {len(parts)} kernels, one per nest")
            divide(kernel, parts)
            Rewriter.replace_op(kernel, parts, [])
