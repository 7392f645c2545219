"""fold-index-maps: compose chains of tensor.index_map and drop identity maps."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects.tensor import IndexMapOp


def simplify(amap: AffineMap) -> AffineMap:
    return AffineMap(
        amap.num_dims,
        amap.num_symbols,
        tuple(e.simplify(amap.num_dims, amap.num_symbols) for e in amap.results),
    )


@dataclass(frozen=True)
class FoldIndexMaps(ModulePass):
    """Fold index_map(index_map(x, m1), m2) into index_map(x, m1 . m2); drop identity maps.

    The inner map is erased once nothing else uses it. A map whose source and result types are
    equal and whose map is the identity is replaced by its source. Index maps that read anything
    else (an elementwise result, a reduce, an argument) are left alone.
    """

    name = "fold-index-maps"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for outer in list(op.walk()):
            if not isinstance(outer, IndexMapOp):
                continue
            inner = outer.input.owner
            if isinstance(inner, IndexMapOp):
                composed = simplify(inner.map.data.compose(outer.map.data))
                outer.operands[0] = inner.input
                outer.properties["map"] = AffineMapAttr(composed)
                if not inner.result.uses:
                    inner.detach(); inner.erase()
            if outer.input.type == outer.result.type and outer.map.data == AffineMap.identity(
                len(outer.map.data.results)
            ):
                Rewriter.replace_op(outer, [], [outer.input])
