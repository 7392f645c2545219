"""merge-dims: a kernel takes a buffer whose dims it indexes at one flat position as a view with those dims merged.

collapse-loops runs a norm or reduction over several dims as one loop over their product, and
each access then indexes those dims at the row-major position of the loop's index:

    %v = loop.load %x[%a0, %r floordiv 64 floordiv 17, %r floordiv 64 mod 17, %r mod 64] : memref<64x5x17x64xf32>

The row pipeline's passes read rows along one dim: stage-inputs stages a row by float4s only
where its innermost extent is a multiple of 4, hold-rows holds a row it reads at `[..., %r]`.
Where every access of a kernel's buffer indexes a run of its dims (two or more) at the row-major
position of one expression e (`delinearize(e, dims)`, nested floordivs folded), the kernel takes
the buffer as a `loop.view` with those dims merged, and each access indexes it at e:

    %xv = loop.view %x : memref<64x5x17x64xf32> -> memref<64x5440xf32>
    loop.kernel @k ins(%xv, ...) {
      ... %v = loop.load %xv[%a0, %r] : memref<64x5440xf32> ...

Indices are first simplified with the loop bounds (`simplify_map`), which also spells `e mod c`
again where fold-index-maps' composed maps left `e + (e floordiv c) * -c`.

Every access was inside the buffer, so along the run 0 <= e < the run's element count (the
outermost index e floordiv P is inside its dim), and e is the run's row-major offset: each access
reads or writes the same element, and meaning is kept. The view is no copy; outline-kernels
launches the kernel with the buffer itself, taken as the view's type. H200 (2026-11-30, session
31, bench/results/session31/tools/probe31.py, over the dims / the same data as 2-D rows, us):
RMSNorm over (5, 17, 64) of 64 rows 5.9 / 3.2, LayerNorm over (64, 83) of 16384 rows 252 / 176,
over (79, 79) of 896 rows 20.4 / 17.2, mean over dims 1, 2 of 576 x 64 x 27 3.8 / 3.2.

Declines (logged to `dpl.passes`) a buffer that an op other than a load or store uses inside
the kernel, that the kernel takes twice, or with no run of two or more dims that every access
indexes at one flat position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop
from dpl.transforms.tile.common import LOG, flat_offset, simplify_map, with_map

Run = tuple[int, int]


def fold_divs(e: AffineExpr) -> AffineExpr:
    """`e` with each `(a floordiv c1) floordiv c2` (positive constants) as `a floordiv (c1 * c2)`,
    and each `(a mod (c1 * c2)) floordiv c2` as `(a floordiv c2) mod c1` and `(a mod (c1 * c2))
    mod c2` as `a mod c2` (equal for every integer a under floor division: decompose-windows'
    kernel offsets `%r mod 9 floordiv 3, %r mod 3` are then `delinearize`'s)."""
    if not isinstance(e, AffineBinaryOpExpr):
        return e
    lhs, rhs = fold_divs(e.lhs), fold_divs(e.rhs)
    if not (isinstance(rhs, AffineConstantExpr) and rhs.value > 0 and isinstance(lhs, AffineBinaryOpExpr)
            and isinstance(lhs.rhs, AffineConstantExpr) and lhs.rhs.value > 0):  # fmt: skip
        return AffineBinaryOpExpr(e.kind, lhs, rhs)
    c1, c2 = lhs.rhs.value, rhs.value
    if e.kind == AffineBinaryOpKind.FloorDiv and lhs.kind == AffineBinaryOpKind.FloorDiv:
        return lhs.lhs // (c1 * c2)
    if lhs.kind == AffineBinaryOpKind.Mod and c1 % c2 == 0 and c1 > c2:
        if e.kind == AffineBinaryOpKind.FloorDiv:
            return (lhs.lhs // c2) % (c1 // c2)
        if e.kind == AffineBinaryOpKind.Mod:
            return lhs.lhs % c2
    return AffineBinaryOpExpr(e.kind, lhs, rhs)


def _runs(results: list[AffineExpr], shape: tuple[int, ...]) -> set[Run]:
    """The runs [k, m) of two or more dims that `results` index at one flat position."""
    return {
        (k, m)
        for k in range(len(shape))
        for m in range(k + 2, len(shape) + 1)
        if flat_offset(results[k:m], shape[k:m]) is not None
    }


def _disjoint(runs: set[Run]) -> list[Run]:
    """The longest runs first, each not overlapping one taken before, in dim order."""
    taken: list[Run] = []
    for k, m in sorted(runs, key=lambda r: (r[0] - r[1], r[0])):
        if all(m <= k2 or m2 <= k for k2, m2 in taken):
            taken.append((k, m))
    return sorted(taken)


def _merged_shape(shape: tuple[int, ...], runs: list[Run]) -> list[int]:
    """`shape` with each run merged into one dim."""
    merged = list(shape)
    for k, m in reversed(runs):
        merged[k:m] = [math.prod(shape[k:m])]
    return merged


def _merged_index(results: list[AffineExpr], shape: tuple[int, ...], runs: list[Run]) -> list[AffineExpr]:
    """Index `results` with each run's entries replaced by their flat offset there."""
    merged = list(results)
    for k, m in reversed(runs):
        flat = flat_offset(results[k:m], shape[k:m])
        assert flat is not None
        merged[k:m] = [flat]
    return merged


def merge_buffer(kernel: loop.KernelOp, buf: SSAValue) -> str | None:
    """Give `kernel` `buf` as a view with its flat runs merged (logged); a reason where it
    declines."""
    if [*kernel.ins, *kernel.outs].count(buf) != 1:
        return "taken twice"
    t = buf.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    accesses = []
    for use in buf.uses:
        op = use.operation
        if op is kernel or not kernel.is_ancestor(op):
            continue
        if not isinstance(op, loop.LoadOp | loop.StoreOp) or op.memref is not buf:
            return f"{op.name} uses it"
        accesses.append(op)
    if not accesses:
        return "not accessed"
    folded = {op: [fold_divs(e) for e in simplify_map(op.map.data, list(op.indices)).results] for op in accesses}
    common = set.intersection(*(_runs(r, shape) for r in folded.values()))
    if not common:
        return "no run of dims indexed at one flat position by every access"
    runs = _disjoint(common)
    view = loop.ViewOp(buf, _merged_shape(shape, runs))
    view.result.name_hint = buf.name_hint
    Rewriter.insert_op(view, InsertPoint.before(kernel))
    buf.replace_uses_with_if(view.result, lambda use: kernel.is_ancestor(use.operation))
    for op in accesses:
        amap = op.map.data
        new_results = _merged_index(folded[op], shape, runs)
        with_map(op, list(op.indices), AffineMap(amap.num_dims, amap.num_symbols, tuple(new_results)))
    LOG.info("merge-dims: @%s: %s %s -> %s", kernel.sym_name.data, buf.name_hint, t, view.result.type)
    return None


@dataclass(frozen=True)
class MergeDims(ModulePass):
    """Give each loop kernel its buffers with the dims it indexes at one flat position merged
    (a `loop.view` before the kernel)."""

    name = "merge-dims"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            name = kernel.sym_name.data
            for buf in [*kernel.ins, *kernel.outs]:
                t = buf.type
                if not isinstance(t, MemRefType) or t.get_num_dims() < 2:
                    continue
                why = merge_buffer(kernel, buf)
                if why is not None:
                    LOG.info("merge-dims: declined @%s %%%s: %s", name, buf.name_hint, why)
