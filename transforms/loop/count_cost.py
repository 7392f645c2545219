"""count-cost: record each loop kernel's flops and bytes in the IR, while it is still whole.

Every `loop.kernel` gets two attributes (64-bit integers):

- `kernel.flops`: each float `arith` / `math` op (constants aside), and each operand a
  `loop.accumulate` folds, counts once per iteration of the loops around it;
- `kernel.bytes`: the bytes of the buffers it reads and writes (its distinct ins and outs), each
  once: a floor of its memory traffic.

    loop.kernel @k_sum ins(%x : memref<8x4xf32>) outs(%s : memref<8xf32>) {...}
 -> loop.kernel @k_sum ins(%x : memref<8x4xf32>) outs(%s : memref<8xf32>) {...}
        {kernel.bytes = 160 : i64, kernel.flops = 64 : i64}

The counts travel with the kernel from here on: the passes that split a kernel at loop level
(split-nests, split-epilogue) divide them with `divide` (each part gets the count of its own
nests, which sum to the whole's flops), tileify and outline-kernels carry them to `tile.kernel`
and `kernel.func`, atomic-init-kernels gives a fill kernel 0 flops and its buffers' bytes, and
fuse-launches sums them. The driver reads them from each kernel.func (`driver/compile.py`).

Counts every `loop.kernel` (one already counted again, to the same numbers); declines the kernels
of the levels below (`tile.kernel`, `kernel.func`), whose loops no longer show the work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.dialects.types import memref_bytes

FLOPS = "kernel.flops"
BYTES = "kernel.bytes"

#: Float ops that count as one flop each (the CUDA they print is one instruction or close).
_FLOP_DIALECTS = ("arith.", "math.")
_FLOATS = ("f16", "bf16", "f32", "f64")


def count_flops(kernel: loop.KernelOp) -> int:
    """The float ops of `kernel`'s loop nests, each times the trips of the loops around it."""

    def walk(block: Block, trips: int) -> int:
        n = 0
        for op in block.ops:
            if isinstance(op, loop.ForOp):
                n += walk(op.body.block, trips * op.extent.data)
                continue
            if isinstance(op, loop.AccumulateOp):
                n += trips * len(op.operands)
            elif (op.name.startswith(_FLOP_DIALECTS) and op.name != "arith.constant"
                  and any(str(r.type) in _FLOATS for r in op.results)):  # fmt: skip
                n += trips
            n += sum(walk(b, trips) for region in op.regions for b in region.blocks)
        return n

    return walk(kernel.body.block, 1)


def buffer_bytes(buffers: Sequence[SSAValue]) -> int:
    """The bytes of the distinct statically shaped memrefs among `buffers`."""
    total = 0
    for v in dict.fromkeys(buffers):
        t = v.type
        if isinstance(t, MemRefType) and t.has_static_shape():
            total += memref_bytes(t)
    return total


def record(op: Operation, flops: int, nbytes: int) -> None:
    op.attributes[FLOPS] = IntegerAttr(flops, 64)
    op.attributes[BYTES] = IntegerAttr(nbytes, 64)


def count(kernel: loop.KernelOp) -> None:
    """Record `kernel`'s flops and bytes on it."""
    record(kernel, count_flops(kernel), buffer_bytes([*kernel.ins, *kernel.outs]))


def cost(op: Operation) -> tuple[int, int] | None:
    """(flops, bytes) recorded on a kernel (loop.kernel, tile.kernel or kernel.func), or None."""
    flops, nbytes = op.attributes.get(FLOPS), op.attributes.get(BYTES)
    if isinstance(flops, IntegerAttr) and isinstance(nbytes, IntegerAttr):
        return flops.value.data, nbytes.value.data
    return None


def divide(whole: Operation, parts: Sequence[loop.KernelOp]) -> None:
    """A split of counted loop kernel `whole` into `parts`: each part gets the count of its own
    nests (nothing when `whole` was not counted)."""
    if cost(whole) is not None:
        for part in parts:
            count(part)


def carry(old: Operation, new: Operation) -> None:
    """Give `new` (the same kernel at a lower level) the counts recorded on `old`, if any."""
    found = cost(old)
    if found is not None:
        record(new, *found)


def total(parts: Sequence[Operation], into: Operation) -> None:
    """Record on `into` the sums of the counts of `parts` (fused into it), if all have them."""
    costs = [cost(p) for p in parts]
    if all(c is not None for c in costs):
        record(into, sum(c[0] for c in costs), sum(c[1] for c in costs))  # type: ignore[index]


@dataclass(frozen=True)
class CountCost(ModulePass):
    """Record each loop.kernel's flops and bytes as its `kernel.flops` / `kernel.bytes`."""

    name = "count-cost"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            count(kernel)
