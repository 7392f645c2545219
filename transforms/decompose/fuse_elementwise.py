"""fuse-elementwise: merge chains of tensor.elementwise whose results have one reader into it."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects.tensor import ElementwiseOp, IndexMapOp, YieldOp


def _unbroadcast(op: ElementwiseOp) -> bool:
    """Whether `op` reads no broadcast tensor (an index map of anything but a 0-d value). Ops
    that read one are left to fuse-loops, which weighs them one at a time against the
    contractions and reductions they feed: merged, session 34's GMM (a sum over d of squared
    scaled differences of broadcasts) lost its matmul schedule and ran 37x slower."""
    for v in op.ins:
        owner = v.owner
        if isinstance(owner, IndexMapOp) and owner.input.type.get_shape():  # type: ignore[attr-defined]
            return False
    return True


def _merged_into(producer: object, consumer: ElementwiseOp) -> bool:
    """Whether `producer` is an elementwise op that only `consumer` reads, once (an operand has
    the result's shape: elementwise operands always do), neither reading a broadcast."""
    if not isinstance(producer, ElementwiseOp) or producer.parent is not consumer.parent:
        return False
    uses = list(producer.result.uses)
    return len(uses) == 1 and uses[0].operation is consumer and _unbroadcast(producer) and _unbroadcast(consumer)


def _members(root: ElementwiseOp) -> list[ElementwiseOp]:
    """`root` and the elementwise ops it reads that nothing else reads, recursively: producers
    before their readers, `root` last."""
    out: list[ElementwiseOp] = []

    def visit(op: ElementwiseOp) -> None:
        for v in op.ins:
            p = v.owner
            if _merged_into(p, op) and p not in out:
                visit(p)  # type: ignore[arg-type]
        out.append(op)

    visit(root)
    return out


def fuse(root: ElementwiseOp) -> ElementwiseOp | None:
    """One elementwise op in place of `root` and its single-reader producers (None when it has
    none): the producers' bodies first, each in the order they are read, then root's. Each body
    op moves once; every external operand becomes one block argument."""
    members = _members(root)
    if len(members) == 1:
        return None
    inside = {m.result for m in members}
    ins: list[SSAValue] = []
    for m in members:
        for v in m.ins:
            if v not in inside and v not in ins:
                ins.append(v)
    rank = len(root.result.type.get_shape())
    indexed = any(m.with_indices is not None for m in members)
    block = Block(arg_types=[v.type.element_type for v in ins] + ([IndexType()] * rank if indexed else []))  # type: ignore[attr-defined]
    scalar = dict(zip(ins, block.args))
    computed: dict[SSAValue, SSAValue] = {}
    for m in members:
        for arg, v in zip(m.scalar_args, m.ins):
            arg.replace_all_uses_with(computed[v] if v in inside else scalar[v])
        for arg, i in zip(m.index_args, block.args[len(ins):]):
            arg.replace_all_uses_with(i)
        for op in list(m.body.block.ops):
            op.detach()
            if isinstance(op, YieldOp):
                computed[m.result] = op.operands[0]
                if m is root:
                    block.add_op(op)
                else:
                    op.erase()
            else:
                block.add_op(op)
    fused = ElementwiseOp(ins, root.result.type, block, with_indices=indexed)
    Rewriter.replace_op(root, fused)
    for m in reversed(members[:-1]):
        m.detach()
        m.erase()
    return fused


@dataclass(frozen=True)
class FuseElementwise(ModulePass):
    """Merge each tensor.elementwise with the elementwise ops it reads that nothing else reads.

    A chain (or tree) of elementwise ops in which every intermediate has one reader becomes one
    op whose body computes them all: what fuse-loops would make of them anyway (one reader, the
    same shape: no value is computed twice), at a cost linear in the ops, where fuse-loops'
    inlining, one producer at a time into a growing nest, is quadratic (a 600-op special
    function: 87 s). Declines an op read twice (fuse-loops weighs recomputing it), read by
    anything but an elementwise op (a reduce, an index map, a return) or in another block, and
    ops that read a broadcast (`_unbroadcast`).
    """

    name = "fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # readers before producers: each root takes its whole single-reader tree at once
        for ew in reversed([o for o in op.walk() if isinstance(o, ElementwiseOp)]):
            if ew.parent is not None:
                fuse(ew)
