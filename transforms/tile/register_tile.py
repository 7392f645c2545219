"""register-tile: give each thread of a matmul tile a rows x cols block of outputs in registers.

In a matmul tile (see `dpl.transforms.tile.matmul`), the M thread axis `%a` (extent E, a multiple
of `rows`) becomes a thread axis of E / rows plus a `cell` axis `%a_c` of `rows`, and every index
`%a` is rewritten into `%a * rows + %a_c` (likewise N with `cols`):

    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread)            x[%a0, k], w[k, %a1]
 -> tile.tile (%a0 : 4 = thread, %a1 : 4 = thread, %a0_c : 4 = cell, %a1_c : 4 = cell)
                                                                 x[%a0 * 4 + %a0_c, k], ...

Cells are virtual threads one thread runs unrolled: each A value loaded for a row of cells is
reused across the `cols` cells of that row (and B across `rows`). The (thread, cell) pair covers
the same outputs as the old axis, so meaning is kept. Run it before blockify-launch (whose matmul
case then makes 16 x 16 threads of 4 x 4 cells, a 64 x 64 block tile) and before stage-inputs
(which then builds slabs with `cell : R at d` dims from these indices). An extent-1 side adds no
cell axis.

Declines (logged to `dpl.passes`) a tile that is not a matmul, that already has cell axes or
stages, whose M or N is not held by a thread axis, or whose M / N thread extent is not a multiple
of rows / cols.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, rebuild_tile
from dpl.transforms.tile.matmul import fold_applies, for_each_tile, matmul_info

K = tile.AxisKind


def _thread_axis(t: tile.TileOp, axes: list[SSAValue]) -> tuple[SSAValue, int] | None:
    """The fastest thread axis among `axes`, with its extent."""
    found = [(v, e) for v, e, k in t.axes if k == K.THREAD and v in axes]
    return found[-1] if found else None


def register_tile(t: tile.TileOp, rows: int, cols: int) -> str | None:
    info = matmul_info(t)
    if info is None:
        return "not a matmul tile"
    if any(k == K.CELL for _, _, k in t.axes):
        return "the tile already has cell axes"
    if any(isinstance(o, tile.StageOp) for o in t.walk()):
        return "the tile already holds stages (run register-tile before stage-inputs)"
    m, n = _thread_axis(t, info.m_axes), _thread_axis(t, info.n_axes)
    if m is None or n is None:
        return "M or N is not held by a thread axis"
    for (v, e), r, what in ((m, rows, "rows"), (n, cols, "cols")):
        if e % r:
            return f"thread axis %{v.name_hint} of {e} is not a multiple of {what} = {r}"
    split = {m[0]: rows, n[0]: cols}
    axes: list[tuple[int, K, str]] = []
    cells: list[tuple[int, K, str]] = []
    for i, (v, e, k) in enumerate(t.axes):
        name = v.name_hint or f"a{i}"
        r = split.get(v, 1)
        axes.append((e // r, k, name))
        if r > 1:
            cells.append((r, K.CELL, f"{name}_c"))
    cell_of = {}
    pos = len(axes)
    for i, (v, _, _) in enumerate(t.axes):
        if split.get(v, 1) > 1:
            cell_of[i] = pos
            pos += 1

    def replacement(block: Block):
        values, ops = [], []
        for i, (v, _, _) in enumerate(t.axes):
            if i not in cell_of:
                values.append(block.args[i])
                continue
            amap = AffineMap(2, 0, (AffineDimExpr(0) * split[v] + AffineDimExpr(1),))
            apply = affine.ApplyOp([block.args[i], block.args[cell_of[i]]], AffineMapAttr(amap))
            apply.result.name_hint = v.name_hint
            ops.append(apply)
            values.append(apply.result)
        return values, ops

    new = rebuild_tile(t, axes + cells, replacement)
    fold_applies(new)
    return None


@dataclass(frozen=True)
class RegisterTile(ModulePass):
    """Register-tile a matmul tile: each thread owns rows x cols outputs as `cell` axes."""

    name = "register-tile"

    rows: int = 4
    cols: int = 4

    def __post_init__(self):
        check_option(self, "rows", 1, 16)
        check_option(self, "cols", 1, 16)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: register_tile(t, self.rows, self.cols)):
            if reason is None:
                LOG.info("register-tile: %s: %dx%d cells per thread", where, self.rows, self.cols)
            else:
                LOG.info("register-tile: declined %s: %s", where, reason)
