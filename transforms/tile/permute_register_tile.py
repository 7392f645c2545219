"""permute-register-tile: interleave a register tile's cells across threads (bank-friendly).

After register-tile (and blockify-launch), thread `%a` (extent T) owns the R consecutive rows
`%a * R + %c` of its cell axis `%c`, so the threads of a warp read addresses R apart and collide
in shared-memory banks. This pass rewrites every such index into `%c * T + %a`: cell c of all
threads covers T consecutive rows, so neighbouring threads read neighbouring elements.

    x[%b * 64 + %a * 4 + %c, k]   ->   x[%b * 64 + %c * 16 + %a, k]

The pair (a, c) still covers the same T * R rows once each, only which thread computes which row
changes, and it changes consistently in every load and store, so meaning is kept. Run it before
stage-inputs: the stage slab then follows the new order (`[cell : 4 at 0, a : 16 at 0]`).

Declines (logged to `dpl.passes`) a tile without cell axes, one that already holds stages, and a
tile where some cell axis is not always paired with one thread axis as `s * (a * R + c)` (used
alone, or by something other than a load / store / atomic index, or inside a non-linear
index). Non-linear indices without the permuted axes (the `%k floordiv 128` of a head-major
operand) are kept as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from dpl.dialects import tile
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.common import Linear
from dpl.transforms.tile.matmul import ACCESSES, dim_forms, dim_values, fold_applies, for_each_tile, set_access


def linear_only(forms: list[Linear | None]) -> list[Linear]:
    return [f for f in forms if f is not None]


K = tile.AxisKind


def permute(t: tile.TileOp) -> str | None:
    cells = t.axes_of_kind(K.CELL)
    if not cells:
        return "the tile has no cell axes (run register-tile first)"
    if any(isinstance(o, tile.StageOp) for o in t.walk()):
        return "the tile already holds stages (run permute-register-tile before stage-inputs)"
    fold_applies(t)
    threads = dict(t.axes_of_kind(K.THREAD))
    accesses = [o for o in t.walk() if isinstance(o, ACCESSES)]
    forms = {op: dim_forms(op) for op in accesses}
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
    return None


@dataclass(frozen=True)
class PermuteRegisterTile(ModulePass):
    """Rewrite register-tile indices a * R + c into c * T + a so a warp's loads hit different banks."""

    name = "permute-register-tile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, permute):
            if reason is None:
                LOG.info("permute-register-tile: %s: cells interleaved across threads", where)
            else:
                LOG.info("permute-register-tile: declined %s: %s", where, reason)
