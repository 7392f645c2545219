"""split-nests: give each top-level loop nest of a `loop.kernel` its own kernel.

A kernel whose body holds several loop nests side by side (a `concat` lowers to one nest per
operand, each writing its slice of the output) cannot be one GPU grid: `tileify` lifts one chain
of free loops. This pass splits such a kernel in place into one kernel per nest, in order, named
`<kernel>`, `<kernel>_part1`, ...; each takes the buffers its nest reads as `ins` and writes as
`outs`, and copies the constants it uses; a counted kernel's flops and bytes (count-cost) are
divided among the parts. The nests write disjoint elements (or, in order, the
same ones), so running the kernels one after another keeps meaning.

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
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop
from dpl.transforms.loop.count_cost import divide

LOG = logging.getLogger("dpl.passes")


def _buffers(nest: Operation, kernel: loop.KernelOp) -> tuple[list[SSAValue], list[SSAValue]]:
    reads: list[SSAValue] = []
    writes: list[SSAValue] = []
    for op in nest.walk():
        if isinstance(op, loop.LoadOp) and op.memref not in reads:
            reads.append(op.memref)
        if isinstance(op, loop.StoreOp) and op.memref not in writes:
            writes.append(op.memref)
    order = list(kernel.ins) + list(kernel.outs)
    ins = [b for b in order if b in reads and b not in writes]
    outs = [b for b in order if b in writes]
    return ins, outs


def split_kernel(kernel: loop.KernelOp) -> list[loop.KernelOp] | None:
    ops = [op for op in kernel.body.block.ops if not isinstance(op, loop.YieldOp)]
    nests = [op for op in ops if isinstance(op, loop.ForOp)]
    rest = [op for op in ops if not isinstance(op, loop.ForOp)]
    if len(nests) < 2 or not all(isinstance(op, arith.ConstantOp) for op in rest):
        return None
    name = kernel.sym_name.data
    kernels = []
    for i, nest in enumerate(nests):
        block = Block()
        mapping: dict[SSAValue, SSAValue] = {}
        used = {o for op in nest.walk() for o in op.operands}
        for c in rest:
            if c.results[0] in used:
                copy = c.clone()
                block.add_op(copy)
                mapping[c.results[0]] = copy.results[0]
        block.add_op(nest.clone(value_mapper=mapping))
        ins, outs = _buffers(nest, kernel)
        kernels.append(loop.KernelOp(name if i == 0 else f"{name}_part{i}", ins, outs, block))
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
