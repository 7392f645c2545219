"""permute-register-tile: interleave a register tile's cells across threads (bank-friendly).

After register-tile (and blockify-launch), thread `%a` (extent T) owns the R consecutive rows
`%a * R + %c` of its cell axis `%c`, so the threads of a warp read addresses R apart and collide
in shared-memory banks. This pass rewrites every such index into `%c * T + %a`: cell c of all
threads covers T consecutive rows, so neighbouring threads read neighbouring elements.

    x[%b * 64 + %a * 4 + %c, k]   ->   x[%b * 64 + %c * 16 + %a, k]

The pair (a, c) still covers the same T * R rows once each, only which thread computes which row
changes, and it changes consistently in every load and store, so meaning is kept. Run it before
stage-inputs: the stage slab then follows the new order (`[cell : 4 at 0, a : 16 at 0]`).

On a side whose operand the K loop reads along the cells (the operand is stored along M or N:
B of `x @ w`, A of `x.T @ w`; its stage then runs along the cells too), each thread keeps its
cells in runs of `group` (4) consecutive elements instead, so it reads them from shared memory
as one 16-byte load and a quarter warp reads 128 consecutive bytes (no bank conflict):
`a * R + c` stays as it is when R = 4, and for R = 8 the cell axis splits into `%c` (2) and
`%c_v` (4), `c = c * 4 + c_v`, rewritten to `c * 4T + a * 4 + c_v`:

    w[%k, %b * 128 + %a * 8 + %c]   ->   w[%k, %b * 128 + %c * 64 + %a * 4 + %c_v]

Operands read along K (x of `x @ w`, both of `x @ W^T`) are read as 16-byte runs along K already.
A K of at most SHORT_K (64) interleaves the side the output is stored along: its stores then
dominate (H100: 5 x 2027x32 @ 32x215, a.T @ b, 13.6 -> 10.5 us).

Declines (logged to `dpl.passes`) a tile without cell axes, one that already holds stages, and a
tile where some cell axis is not always paired with one thread axis as `s * (a * R + c)` (used
alone, or by something other than a load / store / atomic index, or inside a non-linear
index). Non-linear indices without the permuted axes (the `%k floordiv 128` of a head-major
operand) are kept as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, Linear, rebuild_tile
from dpl.transforms.tile.matmul import ACCESSES, dim_forms, dim_values, fold_applies, for_each_tile, set_access


def linear_only(forms: list[Linear | None]) -> list[Linear]:
    return [f for f in forms if f is not None]


K = tile.AxisKind
VECTOR = 4
"""Cells a thread keeps consecutive on a side whose operand is stored along M or N: one 16-byte
shared-memory read (LDS.128) per 4 of them."""
SHORT_K = 64
"""At most this K, the side the output is stored along (N) is interleaved, runs of 4 or not: with
few K steps its stores outweigh the shared-memory reads, and interleaved cells store a warp's 16
columns as 64 consecutive bytes instead of 4 scalar stores 16 bytes apart."""


def _pairs(t: tile.TileOp) -> dict[SSAValue, SSAValue] | str:
    """Each cell axis with the thread axis it is paired with (`s * (a * R + c)` in every index
    that uses it), or why they are not paired so."""
    cells = t.axes_of_kind(K.CELL)
    threads = dict(t.axes_of_kind(K.THREAD))
    forms = {op: dim_forms(op) for op in t.walk() if isinstance(op, ACCESSES)}
    pairs: dict[SSAValue, SSAValue] = {}
    for c, r in cells:
        candidates: list[SSAValue] | None = None
        for f in forms.values():
            for terms, _ in linear_only(f):
                if c in terms:
                    ok = [a for a in threads if terms.get(a) == terms[c] * r]
                    candidates = ok if candidates is None else [a for a in candidates if a in ok]
        if candidates is None:
            continue
        if not candidates:
            return f"cell axis %{c.name_hint} is not paired with one thread axis as a * {r} + c"
        a = candidates[0]
        if a in pairs.values():
            return f"thread axis %{a.name_hint} pairs with two cell axes"
        pairs[c] = a
    if not pairs:
        return "no index uses a cell axis"
    return pairs


def _k_extent(t: tile.TileOp) -> int:
    """The K a matmul tile sums over: the product of its reduce loops' extents (K-outer and
    K-inner once chunked)."""
    return math.prod(o.extent.data for o in t.walk() if isinstance(o, loop.ForOp) and o.is_reduce)


def _stored_along(t: tile.TileOp) -> set[SSAValue]:
    """The cell axes in the innermost index of a store (the output's contiguous side: N)."""
    out: set[SSAValue] = set()
    for op in t.walk():
        if isinstance(op, loop.StoreOp | tile.AtomicOp):
            forms = dim_forms(op)
            if forms and forms[-1] is not None:
                out |= {v for v, _ in t.axes_of_kind(K.CELL) if v in forms[-1][0]}
    return out


def _vector_side(t: tile.TileOp, c: SSAValue) -> bool:
    """Whether the K loop reads an input with cell axis `c` in its innermost index (an operand
    stored along M or N: B of `x @ w`, A of `x.T @ w`), so its stage runs along the cells."""
    reduces = [o for o in t.walk() if isinstance(o, loop.ForOp) and o.is_reduce]
    for op in [o for r in reduces for o in r.walk()]:
        if isinstance(op, loop.LoadOp) and not tile.is_smem(op.memref):
            forms = dim_forms(op)
            if forms and forms[-1] is not None and forms[-1][0].get(c) == 1:
                return True
    return False


def _split_cells(t: tile.TileOp, split: dict[SSAValue, int]):
    """Replace each cell axis `c` of `split` (extent R) by cell axes `c` (R / G) and `c_v` (G),
    `c = c * G + c_v`; the new tile, and the new axes of each old one."""
    axes: list[tuple[int, K, str]] = []
    for i, (v, e, k) in enumerate(t.axes):
        name = v.name_hint or f"a{i}"
        if v in split:
            axes += [(e // split[v], k, name), (split[v], k, name + "_v")]
        else:
            axes.append((e, k, name))

    def replacement(block: Block):
        values, ops, pos = [], [], 0
        for v, _, _ in t.axes:
            if v in split:
                amap = AffineMap(2, 0, (AffineDimExpr(0) * split[v] + AffineDimExpr(1),))
                apply = affine.ApplyOp([block.args[pos], block.args[pos + 1]], AffineMapAttr(amap))
                ops.append(apply)
                values.append(apply.result)
                pos += 2
            else:
                values.append(block.args[pos])
                pos += 1
        return values, ops

    olds = [v for v, _, _ in t.axes]
    new = rebuild_tile(t, axes, replacement)
    fold_applies(new)
    args, remap, pos = list(new.body.block.args), {}, 0
    for v in olds:
        n = 2 if v in split else 1
        remap[v] = args[pos : pos + n]
        pos += n
    return new, remap


def permute(t: tile.TileOp, group: int = VECTOR, short_k: int = SHORT_K) -> str | None:
    cells = t.axes_of_kind(K.CELL)
    if not cells:
        return "the tile has no cell axes (run register-tile first)"
    if any(isinstance(o, tile.StageOp) for o in t.walk()):
        return "the tile already holds stages (run permute-register-tile before stage-inputs)"
    fold_applies(t)
    found = _pairs(t)
    if isinstance(found, str):
        return found
    pairs = found
    extent = dict(cells)
    threads = dict(t.axes_of_kind(K.THREAD))
    forms = {op: dim_forms(op) for op in t.walk() if isinstance(op, ACCESSES)}
    for c, a in pairs.items():
        for v in (c, a):
            if any(not isinstance(u.operation, ACCESSES) for u in v.uses):
                return f"%{v.name_hint} is used by something other than an index"
        for op, f in forms.items():
            for dim, form in enumerate(f):
                if form is None and dim_values(op, dim) & {a, c}:
                    return f"%{a.name_hint} or %{c.name_hint} in a non-linear index"
            for terms, _ in linear_only(f):
                if (a in terms) != (c in terms):
                    return f"%{a.name_hint} and %{c.name_hint} are used apart"
    stored = _stored_along(t) if _k_extent(t) <= short_k else set()
    vector = {c for c in pairs if group > 1 and c not in stored and extent[c] % group == 0 and _vector_side(t, c)}
    interleave = {c: a for c, a in pairs.items() if c not in vector}
    _rewrite(forms, interleave, threads)
    split = {c: group for c in vector if extent[c] > group}
    if split:
        new, remap = _split_cells(t, split)
        grouped = [(*remap[c], remap[pairs[c]][0]) for c in split]
        threads = dict(new.axes_of_kind(K.THREAD))
        for op in [o for o in new.walk() if isinstance(o, ACCESSES)]:
            out: list[Linear | None] = []
            for form in dim_forms(op):
                if form is not None:
                    terms = dict(form[0])
                    for hi, lo, a in grouped:
                        if lo in terms:  # s * (a * R + hi * G + lo) -> s * (hi * G * T + a * G + lo)
                            s = terms[lo]
                            terms[hi], terms[a] = s * group * threads[a], s * group
                    form = (terms, form[1])
                out.append(form)
            set_access(op, out)
    return None


def _rewrite(forms, pairs: dict[SSAValue, SSAValue], threads: dict[SSAValue, int]) -> None:
    """Rewrite `s * (a * R + c)` into `s * (c * T + a)` for each (c, a) of `pairs`."""
    if not pairs:
        return
    for op, f in forms.items():
        new: list[Linear | None] = []
        for form in f:
            if form is None:  # non-linear (`%k floordiv 128`) without the permuted axes
                new.append(None)
                continue
            terms, const = dict(form[0]), form[1]
            for c, a in pairs.items():
                if c in terms:
                    s = terms[c]
                    terms[c], terms[a] = s * threads[a], s
            new.append((terms, const))
        set_access(op, new)


@dataclass(frozen=True)
class PermuteRegisterTile(ModulePass):
    """Rewrite register-tile indices a * R + c into c * T + a so a warp's loads hit different banks."""

    name = "permute-register-tile"

    group: int = VECTOR
    """Consecutive cells per thread on a side whose operand is stored along M or N (1: none)."""
    short_k: int = SHORT_K
    """At most this K, the side the output is stored along is interleaved even so (0: never)."""

    def __post_init__(self):
        check_option(self, "group", 1)
        check_option(self, "short_k", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: permute(t, self.group, self.short_k)):
            if reason is None:
                LOG.info("permute-register-tile: %s: cells interleaved across threads", where)
            else:
                LOG.info("permute-register-tile: declined %s: %s", where, reason)
