"""Helpers shared by the tile-level passes: rebuilding a `tile.tile` with new axes, folding
constant indices into accesses, reading accesses as linear forms over SSA values, and
simplifying floordiv / mod indices with the loop bounds (`simplify_index`)."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile

LOG = logging.getLogger("dpl.passes")

Linear = tuple[dict[SSAValue, int], int]


def tiles(module: Operation) -> list[tile.TileOp]:
    return [op for op in module.walk() if isinstance(op, tile.TileOp)]


#: The most blocks a launch's grid y and z may hold (CUDA); x takes up to 2^31 - 1.
GRID_YZ_MAX = 65535


def grid_fits(extents: Sequence[int]) -> bool:
    """Whether block axes of these extents (slowest first) map one-to-one onto a CUDA grid, as
    materialize-mma maps them: at most three of extent > 1, all but the last (x) <= GRID_YZ_MAX."""
    real = [e for e in extents if e > 1]
    return len(real) <= 3 and all(e <= GRID_YZ_MAX for e in real[:-1])


def const_index(value: SSAValue) -> int | None:
    """The integer of an `arith.constant` index value, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def linear(expr: AffineExpr, operands: Sequence[SSAValue]) -> Linear | None:
    """`expr` over `operands` as (coefficient per value, constant); None if not linear."""
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if isinstance(expr, AffineDimExpr):
        v = operands[expr.position]
        c = const_index(v)
        return ({}, c) if c is not None else ({v: 1}, 0)
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = linear(expr.lhs, operands), linear(expr.rhs, operands)
        if lhs is None or rhs is None:
            return None
        if expr.kind == AffineBinaryOpKind.Add:
            terms = dict(lhs[0])
            for v, c in rhs[0].items():
                terms[v] = terms.get(v, 0) + c
            return {v: c for v, c in terms.items() if c}, lhs[1] + rhs[1]
        if expr.kind == AffineBinaryOpKind.Mul:
            if not rhs[0]:
                return {v: c * rhs[1] for v, c in lhs[0].items()}, lhs[1] * rhs[1]
            if not lhs[0]:
                return {v: c * lhs[1] for v, c in rhs[0].items()}, lhs[1] * rhs[1]
    return None


def linear_expr(form: Linear, order: Sequence[SSAValue]) -> AffineExpr:
    """The affine expression of a linear form whose values are dims in `order`."""
    expr: AffineExpr = AffineConstantExpr(form[1])
    for v, c in form[0].items():
        expr = expr + AffineDimExpr(order.index(v)) * c
    return expr


def fold_constant_indices(block: Block) -> None:
    """Fold `arith.constant` index operands of loads/stores/atomics into their maps."""
    for op in list(block.walk()):
        if not isinstance(op, (loop.LoadOp, loop.StoreOp, tile.AtomicOp)):
            continue
        amap = op.map.data
        consts = [const_index(v) for v in op.indices]
        if all(c is None for c in consts):
            continue
        kept = [v for v, c in zip(op.indices, consts) if c is None]
        new_dims: list[AffineExpr] = []
        pos = 0
        for c in consts[: amap.num_dims]:
            if c is None:
                new_dims.append(AffineDimExpr(pos))
                pos += 1
            else:
                new_dims.append(AffineConstantExpr(c))
        with_map(op, kept, amap.replace_dims_and_symbols(new_dims, [], pos, 0))


ZERO_INIT = "tile.zero_init"
"""Kernel attribute: positions of the outs that must hold their combiner's identity (0 for add)
before the launch."""


def zero_init_outs(kernel: tile.KernelOp) -> list[int]:
    """The out positions a kernel needs at their combiner's identity before its launch (split-K's,
    split-reduce's and scatters' atomics)."""
    attr = kernel.attributes.get(ZERO_INIT)
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.value.data for a in attr if isinstance(a, IntegerAttr)]


def mark_zero_init(kernel: tile.KernelOp, buffers) -> None:
    """Add the outs `buffers` (atomics fold into them) to the kernel's `{tile.zero_init}`."""
    outs = list(kernel.outs)
    marked = sorted({*zero_init_outs(kernel), *(outs.index(b) for b in buffers)})
    kernel.attributes[ZERO_INIT] = ArrayAttr([IntegerAttr(i, 64) for i in marked])


def atomics_to_tile(kernel: tile.KernelOp) -> None:
    """Make each `loop.atomic` (a scatter's fold) inside `kernel` a `tile.atomic`, and mark the
    buffers they fold into `{tile.zero_init}`: they start at the combiner's identity."""
    atomics = [op for op in kernel.walk() if isinstance(op, loop.AtomicOp)]
    for op in atomics:
        Rewriter.replace_op(op, tile.AtomicOp(op.kind.data, op.value, op.memref, list(op.indices), op.map.data))
    if atomics:
        mark_zero_init(kernel, [op.memref for op in atomics])


def with_map(op: Operation, operands: Sequence[SSAValue], new_map: AffineMap) -> Operation:
    """Replace an access (load, store or atomic) by the same access at `new_map` over
    `operands`; return the new op."""
    assert isinstance(op, loop.LoadOp | loop.StoreOp | tile.AtomicOp)
    if isinstance(op, loop.LoadOp):
        new: Operation = loop.LoadOp(op.memref, operands, new_map)
        new.result.name_hint = op.result.name_hint
    elif isinstance(op, loop.StoreOp):
        new = loop.StoreOp(op.value, op.memref, operands, new_map)
    else:
        new = tile.AtomicOp(op.kind.data, op.value, op.memref, operands, new_map)
    new.attributes |= op.attributes
    Rewriter.replace_op(op, new)
    return new


def index_constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def rebuild_tile(
    old: tile.TileOp,
    axes: Sequence[tuple[int, tile.AxisKind, str]],
    replacement: Callable[[Block], tuple[list[SSAValue], list[Operation]]],
) -> tile.TileOp:
    """Replace `old` by a tile with `axes` (extent, kind, name); `replacement(new_block)` gives
    the value standing for each old axis and the ops (placed first) that compute them."""
    new = tile.TileOp([(e, k) for e, k, _ in axes])
    block = new.body.block
    for arg, (_, _, name) in zip(block.args, axes):
        arg.name_hint = name or None
    values, ops = replacement(block)
    for op in ops:
        block.add_op(op)
    for arg, value in zip(old.body.block.args, values):
        arg.replace_all_uses_with(value)
    for op in list(old.body.block.ops):
        op.detach()
        block.add_op(op)
    new.attributes |= old.attributes
    Rewriter.replace_op(old, new, [])
    return new


def axis_deps(tile_op: tile.TileOp) -> Callable[[SSAValue], set[SSAValue]]:
    """A function giving the tile axes a value (transitively) depends on."""
    axes = set(tile_op.body.block.args)
    memo: dict[SSAValue, set[SSAValue]] = {}

    def deps(v: SSAValue) -> set[SSAValue]:
        if v in memo:
            return memo[v]
        memo[v] = set()
        if v in axes:
            result = {v}
        elif isinstance(v, BlockArgument):
            parent = v.block.parent_op()
            result = set()
            if isinstance(parent, tile.StridedForOp):
                result = deps(parent.start)
        elif isinstance(v.owner, tile.CombineOp):
            # every thread of the combined axes sees the same result
            combined = set(v.owner.axes)
            result = deps(v.owner.value) - combined
        else:
            owner = v.owner
            assert isinstance(owner, Operation)
            result = set()
            for op in owner.walk():
                for o in op.operands:
                    if not _defined_inside(o, owner):
                        result |= deps(o)
        memo[v] = result
        return result

    return deps


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    owner_op = owner if isinstance(owner, Operation) else owner.parent_op()
    return owner_op is not None and owner_op is not op and op.is_ancestor(owner_op)


def uses_outside(op: Operation) -> list[SSAValue]:
    """Values used inside `op` (its regions) that are defined outside it."""
    seen: list[SSAValue] = []
    for inner in op.walk():
        for o in inner.operands:
            if not _defined_inside(o, op) and o not in seen:
                seen.append(o)
    return seen


# --------------------------------------------------------------------------------------------
# Index simplification with loop bounds

Range = tuple[int, int]
_Sum = tuple[dict[AffineExpr, int], int]
"""A sum of atoms (dims, or floordiv / mod / other non-linear subexpressions) times
coefficients, plus a constant."""


def value_range(v: SSAValue) -> Range | None:
    """The values an index takes: [0, extent - 1] for a `loop.for` induction variable or a tile
    axis, [c, c] for an index constant; None when not known."""
    c = const_index(v)
    if c is not None:
        return c, c
    if isinstance(v, BlockArgument):
        parent = v.block.parent_op()
        if isinstance(parent, loop.ForOp) and v is parent.iv:
            return 0, parent.extent.data - 1
        if isinstance(parent, tile.TileOp):
            return 0, parent.extents.data[v.index].data - 1
    return None


def simplify_index(expr: AffineExpr, ranges: Sequence[Range | None]) -> AffineExpr:
    """`expr` with floordiv / mod by constants simplified, dim i ranging over `ranges[i]` (None:
    unknown). A floordiv / mod of `c * V + s` where `s` (the summands whose coefficients `c` does
    not divide, plus a constant) provably lies in [0, c) and `c` divides `D` drops `s`:

        (c * V + s) floordiv D  ->  V floordiv (D / c)
        (c * V + s) mod D       ->  c * (V mod (D / c)) + s

    (summands whose coefficients `D` divides leave the floordiv, and vanish from the mod, first;
    where no such `c` is found, only when what stays under the floordiv / mod is provably
    non-negative, so that no dividend turns negative: the CUDA printer's `/` and `%` assume
    non-negative indices).
    After chunk-matmul-k, attention's head-major operand `[k floordiv 128, k mod 128]` at
    `k = %ko * 32 + %ki` (`%ki < 32`) becomes `[%ko floordiv 4, %ko mod 4 * 32 + %ki]`. A sum
    holding `m * X - m * n * (X floordiv n)` (how `X mod n` is often spelled) gets `m * (X mod n)`.
    """
    terms, const = _fold_mods(_sum_of(expr, ranges), ranges)
    return _expr_of((terms, const))


def simplify_map(amap: AffineMap, operands: Sequence[SSAValue]) -> AffineMap:
    """`simplify_index` of each result of an access map, its dims ranging as `value_range` of
    the operands."""
    ranges = [value_range(v) for v in operands]
    results = tuple(simplify_index(e, ranges) for e in amap.results)
    return AffineMap(amap.num_dims, amap.num_symbols, results)


def _sum_of(expr: AffineExpr, ranges: Sequence[Range | None]) -> _Sum:
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if not isinstance(expr, AffineBinaryOpExpr):
        return {expr: 1}, 0
    K = AffineBinaryOpKind
    lhs, rhs = _sum_of(expr.lhs, ranges), _sum_of(expr.rhs, ranges)
    if expr.kind == K.Add:
        return _add(lhs, rhs)
    if expr.kind == K.Mul and (not lhs[0] or not rhs[0]):
        return _scale(lhs, rhs[1]) if not rhs[0] else _scale(rhs, lhs[1])
    if expr.kind in (K.FloorDiv, K.Mod) and not rhs[0] and rhs[1] > 0:
        return (_floordiv if expr.kind == K.FloorDiv else _mod)(lhs, rhs[1], ranges)
    return {AffineExpr.binary(_expr_of(lhs), _expr_of(rhs), expr.kind): 1}, 0


def _add(a: _Sum, b: _Sum) -> _Sum:
    terms = dict(a[0])
    for e, c in b[0].items():
        terms[e] = terms.get(e, 0) + c
    return {e: c for e, c in terms.items() if c}, a[1] + b[1]


def _scale(a: _Sum, k: int) -> _Sum:
    return {e: c * k for e, c in a[0].items() if c * k}, a[1] * k


def _divisors(n: int) -> list[int]:
    """The divisors of `n` from `n` down to 2."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({x for d in small for x in (d, n // d) if x > 1}, reverse=True)


def _split(s: _Sum, c: int) -> tuple[_Sum, _Sum]:
    """`s` as `c * high + low`: high has the summands whose coefficients `c` divides."""
    terms, const = s
    high = {e: k // c for e, k in terms.items() if k % c == 0}
    low = {e: k for e, k in terms.items() if k % c}
    return (high, const // c), (low, const % c)


def _floordiv(s: _Sum, d: int, ranges: Sequence[Range | None]) -> _Sum:
    if d == 1:
        return s
    out = {e: k // d for e, k in s[0].items() if k % d == 0}
    rest = ({e: k for e, k in s[0].items() if k % d}, s[1])
    if not rest[0]:
        return out, s[1] // d
    # (d * out + rest) floordiv d = out + rest floordiv d
    for c in _divisors(d):
        high, low = _split(rest, c)
        span = _range(low, ranges)
        if span is not None and 0 <= span[0] and span[1] < c:
            return _add((out, 0), _floordiv(high, d // c, ranges))
    if out and not _nonnegative(rest, ranges):
        rest = s  # what is left might be negative where the whole is not (C's `/` truncates)
        out = {}
    div = AffineBinaryOpExpr(AffineBinaryOpKind.FloorDiv, _expr_of(rest), AffineConstantExpr(d))
    return _add((out, 0), ({div: 1}, 0))


def _mod(s: _Sum, d: int, ranges: Sequence[Range | None]) -> _Sum:
    if d == 1:
        return {}, 0
    rest = ({e: k % d for e, k in s[0].items() if k % d}, s[1] % d)
    if not rest[0]:
        return rest
    for c in _divisors(d):
        high, low = _split(rest, c)
        span = _range(low, ranges)
        if span is not None and 0 <= span[0] and span[1] < c:
            return _add(_scale(_mod(high, d // c, ranges), c), low)
    if not _nonnegative(rest, ranges):
        rest = s  # keep the dividend's sign as it was (C's `%` truncates)
    return {AffineBinaryOpExpr(AffineBinaryOpKind.Mod, _expr_of(rest), AffineConstantExpr(d)): 1}, 0


def _fold_mods(s: _Sum, ranges: Sequence[Range | None]) -> _Sum:
    """`m * X + k * (A floordiv D) + rest` with `X = A floordiv d` (`d` dividing `D`, or
    `X = A` where `d = 1`) and `k = -m * (D / d)` as `m * (X mod (D / d)) + rest`, since
    `X floordiv (D / d) = A floordiv D` under floor division: a window's middle offset
    `r floordiv 3 - 3 * (r floordiv 9)` is `(r floordiv 3) mod 3`, as `delinearize` spells it."""
    changed = True
    while changed:
        changed = False
        for atom, k in s[0].items():
            if not (
                isinstance(atom, AffineBinaryOpExpr)
                and atom.kind == AffineBinaryOpKind.FloorDiv
                and isinstance(atom.rhs, AffineConstantExpr)
            ):
                continue
            big = atom.rhs.value
            a = _sum_of(atom.lhs, ranges)
            for d in [1, *reversed(_divisors(big)[1:])]:
                n = big // d
                if k % n:
                    continue
                m = -k // n
                x = _floordiv(a, d, ranges)
                if x[0] and atom not in x[0] and all(s[0].get(e, 0) == m * c for e, c in x[0].items()):
                    # m * X - m * n * (X floordiv n) = m * (X mod n)
                    without = _add(s, _scale(x, -m))
                    without = ({e: c for e, c in without[0].items() if e != atom}, without[1])
                    s = _add(without, _scale(_mod(x, n, ranges), m))
                    changed = True
                    break
            if changed:
                break
    return s


def _nonnegative(s: _Sum, ranges: Sequence[Range | None]) -> bool:
    span = _range(s, ranges)
    return span is not None and span[0] >= 0


def _range(s: _Sum, ranges: Sequence[Range | None]) -> Range | None:
    lo = hi = s[1]
    for e, c in s[0].items():
        r = expr_range(e, ranges)
        if r is None:
            return None
        lo, hi = lo + min(c * r[0], c * r[1]), hi + max(c * r[0], c * r[1])
    return lo, hi


def expr_range(e: AffineExpr, ranges: Sequence[Range | None]) -> Range | None:
    """The smallest and largest value of affine `e` whose dim i ranges over `ranges[i]`
    (interval arithmetic: sums, products, floordiv / ceildiv / mod by a positive constant; None
    if unknown), so `%r floordiv 8` and `%r mod 8` of a collapsed loop %r < 512 stay within
    64 x 8."""
    if isinstance(e, AffineConstantExpr):
        return e.value, e.value
    if isinstance(e, AffineDimExpr):
        return ranges[e.position] if e.position < len(ranges) else None
    if not isinstance(e, AffineBinaryOpExpr):
        return None
    lhs, rhs = expr_range(e.lhs, ranges), expr_range(e.rhs, ranges)
    if lhs is None or rhs is None:
        return None
    K = AffineBinaryOpKind
    if e.kind == K.Add:
        return lhs[0] + rhs[0], lhs[1] + rhs[1]
    if e.kind == K.Mul:
        ends = [a * b for a in lhs for b in rhs]
        return min(ends), max(ends)
    if rhs[0] != rhs[1] or rhs[0] <= 0:
        return None
    d = rhs[0]
    if e.kind == K.FloorDiv:
        return lhs[0] // d, lhs[1] // d
    if e.kind == K.CeilDiv:
        return -(-lhs[0] // d), -(-lhs[1] // d)
    if e.kind == K.Mod:  # within one period: its residues in order, else all of them
        return (lhs[0] % d, lhs[1] % d) if lhs[0] // d == lhs[1] // d else (0, d - 1)
    return None


def _expr_of(s: _Sum) -> AffineExpr:
    """The expression of a sum, largest coefficient first (stable), the constant last."""
    expr: AffineExpr | None = None
    for e, c in sorted(s[0].items(), key=lambda t: -abs(t[1])):
        term = e if c == 1 else e * c
        expr = term if expr is None else expr + term
    if expr is None:
        return AffineConstantExpr(s[1])
    return expr + s[1] if s[1] else expr


def delinearize(flat: AffineExpr, shape: Sequence[int]) -> list[AffineExpr]:
    """The row-major indices of flat offset `flat` in a buffer of `shape`:
    `[f floordiv 16411, f mod 16411]` for (16384, 16411). The outermost index has no `mod` (its
    row-major offset is then `flat` itself for every `flat`, not only those inside the buffer)."""
    out: list[AffineExpr] = []
    stride = math.prod(shape)
    for i, extent in enumerate(shape):
        stride //= extent
        index = flat if stride == 1 else flat // stride
        out.append(index if i == 0 else index % extent)
    return out


def flat_offset(results: Sequence[AffineExpr], shape: Sequence[int]) -> AffineExpr | None:
    """The flat offset `f` whose `delinearize` the index expressions `results` are, or None
    (rank 1: the one index; constants inside `shape`: their row-major offset). collapse-pointwise writes such accesses; vectorize-pointwise and
    flatten-buffers read them as one contiguous index into the buffer seen as 1-D."""
    if len(results) == 1:
        return results[0]
    if all(isinstance(e, AffineConstantExpr) and 0 <= e.value < n for e, n in zip(results, shape)):
        # one element (a tail kernel's, its index folded): its row-major offset
        return AffineConstantExpr(sum(e.value * math.prod(shape[d + 1 :]) for d, e in enumerate(results)))  # type: ignore[union-attr]
    kept = [(e, n) for e, n in zip(results, shape) if not (n == 1 and e == AffineConstantExpr(0))]
    if len(kept) < len(results):  # a dim of extent 1 read at 0 adds nothing to the offset
        return flat_offset([e for e, _ in kept], [n for _, n in kept])
    candidates = [results[0].lhs] if isinstance(results[0], AffineBinaryOpExpr) else [results[0]]
    last = results[-1]
    if isinstance(last, AffineBinaryOpExpr) and last.kind == AffineBinaryOpKind.Mod:
        candidates.append(last.lhs)
    for flat in candidates:
        if list(results) == delinearize(flat, shape):
            return flat
    return None
