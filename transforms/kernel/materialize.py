"""materialize: lower each tile kernel of the program to a `kernel.func` and a `kernel.launch`.

A pipeline name, the way `schedule` is: it runs `MATERIALIZE`, one small pass per job, each of
which can be run on its own with `dpl-opt --pass-pipeline` (their docstrings say what they
rewrite; test/lit/kernel/<pass>.mlir shows each before and after):

    tile-loop-kernels    a loop.kernel no schedule tiled -> a grid-stride tile.kernel
    unroll-cells         the register tile (cell axes) -> per-cell copies of its ops
    outline-kernels      tile.kernel -> kernel.func + kernel.launch; launch geometry and the
                         block/thread indices, the tile bound to them
    atomic-init-kernels  a kernel that folds into outputs atomically -> an @<k>_init launch
                         that fills them with the combiner's identity first
    lower-stages         tile.stage -> kernel.smem + fills (sync, cp.async, TMA/mbarriers),
                         software pipelining of {tile.pipeline} loops
    lower-loops          loop.for / tile.strided_for -> kernel.for / kernel.if / straight code
    lower-accesses       loads, stores, atomics, affine.apply -> kernel ops with folded maps;
                         stores repeated across a thread axis guarded to its first thread
    lower-combines       tile.combine -> warp shuffles or a shared-memory tree
    lower-axes           the bound tile -> its body, each axis read as its index
    dynamic-smem         over 48 KiB of shared memory -> dynamic shared memory

Between outline-kernels and lower-axes a kernel is mixed tile/kernel IR (transforms/kernel/
lowering.py), which prints, parses, verifies and runs on the kernel executor like any other.
What materialize cannot lower ends in a one-line `MaterializeError` naming the op and kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from dpl.transforms import all_passes
from dpl.transforms.kernel.lowering import MaterializeError

__all__ = ["MATERIALIZE", "Materialize", "MaterializeError"]

MATERIALIZE = (
    "tile-loop-kernels,unroll-cells,outline-kernels,atomic-init-kernels,lower-stages,"
    "lower-loops,lower-accesses,lower-combines,lower-axes,dynamic-smem"
)


@dataclass(frozen=True)
class Materialize(ModulePass):
    """Lower each tile kernel to a kernel.func launched in its place (pipeline MATERIALIZE)."""

    name = "materialize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PassPipeline.parse_spec(all_passes(), MATERIALIZE).apply(ctx, op)
