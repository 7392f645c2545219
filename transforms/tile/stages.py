"""Helpers shared by the passes that annotate `tile.stage`s (double-buffer, async-copy, tma-copy,
split-inner-for-swizzle, pad-smem, pipeline-k-outer): naming, dependence on a loop, rebuilding a
stage with changed annotations and rewriting the loads that read it."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.types import element_bytes
from dpl.transforms.tile.common import uses_outside


def stages(module: ModuleOp) -> list[tuple[tile.KernelOp, tile.StageOp]]:
    """Every stage of every tile kernel, with its kernel, in program order."""
    return [
        (k, s)
        for k in module.walk()
        if isinstance(k, tile.KernelOp)
        for s in k.walk()
        if isinstance(s, tile.StageOp)
    ]


def describe(kernel: tile.KernelOp, stage: tile.StageOp) -> str:
    """`@k_relu: x_smem` for log lines."""
    return f"@{kernel.sym_name.data}: {stage.result.name_hint or stage.source.name_hint or 'stage'}"


def elem_bytes(t: MemRefType) -> int:
    return element_bytes(t.element_type)


def depends_on(value: SSAValue, target: SSAValue) -> bool:
    """Whether `value` is `target` or computed (transitively) from it."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        v = work.pop()
        if v is target:
            return True
        if v in seen or isinstance(v, BlockArgument):
            continue
        seen.add(v)
        owner = v.owner
        assert isinstance(owner, Operation)
        work += list(owner.operands) + (uses_outside(owner) if owner.regions else [])
    return False


def enclosing_loops(op: Operation) -> list[loop.ForOp]:
    """The `loop.for`s around `op` inside its `tile.tile`, innermost first."""
    found = []
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, tile.TileOp):
        if isinstance(parent, loop.ForOp):
            found.append(parent)
        parent = parent.parent_op()
    return found


def rebuild(stage: tile.StageOp, **changes) -> tile.StageOp:
    """A copy of `stage` with some of its annotations changed (keyword names as StageOp's
    constructor: slab, buffers, pad, copy, swizzle); it replaces `stage` in place. The result
    type is recomputed; uses are moved to the new stage (the caller rewrites loads whose
    indexing changes)."""
    args = {
        "slab": list(stage.slab),
        "buffers": (stage.buffers.data, stage.buffer_loop)
        if stage.buffers is not None and stage.buffer_loop is not None
        else None,
        "pad": [p.data for p in stage.pad] if stage.pad is not None else None,
        "copy": stage.copy.data,
        "swizzle": stage.swizzle.data if stage.swizzle is not None else None,
    }
    args |= changes
    slab = args.pop("slab")
    new = tile.StageOp(stage.source, stage.origin.data, list(stage.origin_operands), slab, **args)
    new.attributes |= stage.attributes
    new.result.name_hint = stage.result.name_hint
    Rewriter.replace_op(stage, new)
    return new


def only_loads(stage: tile.StageOp) -> bool:
    """Whether every use of the stage is a `loop.load` of it (what index rewrites can handle)."""
    return all(isinstance(u.operation, loop.LoadOp) for u in stage.result.uses)


def rewrite_loads(
    stage: tile.StageOp,
    reindex: Callable[[loop.LoadOp], tuple[list[SSAValue], AffineMap]],
) -> None:
    """Replace each load of `stage` by one with the indices and map `reindex(load)` gives."""
    for use in list(stage.result.uses):
        load = use.operation
        assert isinstance(load, loop.LoadOp)
        indices, amap = reindex(load)
        new = loop.LoadOp(stage.result, indices, amap)
        new.attributes |= load.attributes
        new.result.name_hint = load.result.name_hint
        Rewriter.replace_op(load, new)
