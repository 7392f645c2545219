"""collapse-matmul-axes: give each side of a contraction, and its batch, one free loop where it
has several.

A contraction reads A and B in one reduce loop; the free loops that index A but not B are its M
side, those that index B but not A its N side (as the tile schedule's `matmul_info` sees them).
The tensor cores take one loop a side, so a linear over a batch of sequences or a convolution
ran on SIMT ("M spans 2 axes"):

    loop.for free %a0 < 4 {  loop.for free %a1 < 512 {  loop.for free %a2 < 2304 {
      %acc = loop.for reduce %r0 < 768 -> f32 {
        %x = loop.load %x[%a0, %a1, %r0] ...   %w = loop.load %w[%a2, %r0] ... }
      loop.store %acc, %y[%a0, %a1, %a2] ... }}}

Where a side has two or more loops of extent > 1, they become one loop over the product of
their extents, its index split back with floordiv / mod (row-major over the side's loops, in
nest order), in the place of the side's innermost loop:

    loop.for free %a1 < 2048 {  loop.for free %a2 < 2304 {
      ... %x[%a1 floordiv 512, %a1 mod 512, %r0] ...  %y[%a1 floordiv 512, %a1 mod 512, %a2] ... }}

so the side whose fastest loop was innermost stays innermost (a convolution's output positions
(n, h, w) become N beside its output channels, M, and its stores stay contiguous along N). The
loops are free (each iteration writes its own elements), so running their iterations in another
order keeps meaning; every access reads and writes the same element as before. pad-matmul then
rounds such a side up like any other (`padding.past_end` reads the outermost `%m floordiv P`).

The kernel then takes each buffer whose accesses all index a run of its dims at one flat
position as a view with the run merged (merge-dims' `merge_buffer`): the linear's x and y become
2048 x 768 and 2048 x 2304 (a plain matrix product), a convolution's weight [o, c, kh, kw],
read at [%o, %r floordiv 9, %r mod 9 floordiv 3, %r mod 3], becomes [o, c * 9] read at [%o, %r]
(its rows K-contiguous, staged by float4s). A contraction with no side to collapse has its
operands merged the same way: a Gram matrix `f @ f.transpose(1, 2)` of a (b, c, h, w) feature
map reshaped to (b, c, h * w) reads f at `[%b, %i, %r floordiv w, %r mod w]`, which no tensor-core
fill takes; as a view of (b, c, h * w) it is a plain batched product (H200, session 34,
bench/results/session34/, 8 x 256 x 64 x 64: SIMT unstaged 639 us -> wgmma 113 us, eager 171).

H200 (2026-11-30, session 32, bench/results/session32/tools/ab32.py, without / with, us): a
linear 768 -> 2304 over 8 x 197 rows 210 -> 87 (eager 132), a transformer encoder layer over
8 x 128 x 512 418 -> 227 (eager 251), a 3x3 convolution 64 -> 64 over 8 x 56 x 56 514 -> 116
(eager 33 with cuDNN's default TF32, 73 in fp32).

A contraction's operand may carry prologue factors: more loads in the reduce loop, indexed by
K and one side's free loops (a residual added before the projection, x[b, s, k] + r[b, s, k])
or by K alone (an RMSNorm's weight g[k] after its rstd[b, s]: rms_norm then a projection over a
batch of sequences, the standard transformer block; a mask on a convolution's weight). The
sides are those of the two loads that each hold a free loop the other does not, where every
other load's free loops are one of theirs (`_operands`); the collapse rewrites every access
alike. H200 (2026-12-02, session 38,
bench/results/session38/tools/ab38b.py, two loads only / with factors, us): RMSNorm + linear
8 x 512 x 1024 -> 1024 266 -> 132 (eager 187), a scaled linear 8 x 256 x 1024 -> 4096 496 -> 268
(eager 364), nn.TransformerEncoderLayer 4 x 256 x 512 179 -> 149, a mel filterbank 36.6 -> 22.3,
a masked 5x5 convolution 701 -> 342 (eager 113: the mask is read unstaged); no program slower.

Every access of a contraction's nest keeps only the index operands its map uses (nest's
`drop_unused_indices`: fused loads may carry every index of their nest), collapsed or not: the tile schedule reads an access's
operands as what it depends on, and an unused M index on B's load (an einsum's experts-by-
columns weight `w[e, d, h]` read at `[%n floordiv 256, %r, %n mod 256]`) kept it off the tensor
cores ("a factor of the product depends on both M and N").

The batch, the free loops that index both sides (the batch and heads of attention's scores
q @ k^T over (b, h, n, d), read at q[%b, %h, %m, %r] and k[%b, %h, %n, %r]), collapses the same
way where it has two or more loops of extent > 1: one loop over b * h, and q, k and the scores
views of (b * h, n, d) and (b * h, n, n), a plain batched product. The tile schedule lays the
block axes of a tensor-core tile one-to-one on the grid (materialize-mma: at most three), and
a batch of two beside the M and N tiles made four: Gemma-2's soft-capped attention over 4 x 8
heads crashed in materialize-mma (session 40), as did any 4-D batched matmul the schedule put on
the tensor cores. A batch whose loops before its last hold other ops (a per-batch scale hoisted
into its outer loop) stays as it is, logged, its sides collapsed all the same (the schedule then
keeps such a tile off the tensor cores where its block axes do not fit a grid).

A free loop of extent 1 beside the reduce loop (a kept reduced dim, its store alone inside) is
set aside when finding the sides and inlined (its index 0) when the nest collapses.

A loop of the chain may also hold ops hoisted out of the loops below it (a BatchNorm's
per-channel scale beside the output-channel loop), but a side's loops other than its last must
hold only their inner loop.

Declines (logged to `dpl.passes`) a chain of free loops down to a reduce loop where that reduce
loop is not alone or not one contraction (two loads over its index, each indexed by a free loop
the other is not, the other loads' free loops one of theirs, accumulated by add), and a side
whose loops before its last hold other ops or whose indices are used other than as load or
store indices inside its last loop (such a batch is kept and logged; the sides still collapse).
A nest with no reduce loop, or no side and no batch of two loops of extent > 1, is left alone
silently (the common case).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, IntAttr, MemRefType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop
from dpl.transforms.loop.fuse_loops import indexed_by
from dpl.transforms.loop.merge_dims import merge_buffer
from dpl.transforms.loop.nest import drop_unused_indices, fold_index_ops, inline_unit_loop
from dpl.transforms.tile.common import LOG


def _chain(top: loop.ForOp) -> list[loop.ForOp]:
    """The chain of free loops from `top` down, each the one loop of the body before it (which
    may also hold ops hoisted out of the loops below)."""
    chain = [top]
    while True:
        loops = [o for o in chain[-1].body.block.ops if isinstance(o, loop.ForOp)]
        if len(loops) == 1 and not loops[0].is_reduce:
            chain.append(loops[0])
        else:
            return chain


def _alone(f: loop.ForOp) -> bool:
    """Whether `f`'s body holds only its one inner loop."""
    return len([o for o in f.body.block.ops if not isinstance(o, loop.YieldOp)]) == 1


def _sides(chain: list[loop.ForOp]) -> list[tuple[SSAValue | None, list[loop.ForOp]]] | str | None:
    """The free loops of `chain` indexing only A and only B of its contraction, each with the
    buffer that side reads, then its batch: the free loops indexing both (with None); why the
    reduce loop under it is not one; or None where no reduce loop is (an elementwise nest)."""
    loops = [o for o in chain[-1].body.block.ops if isinstance(o, loop.ForOp) and not _unit(o)]
    if not any(o.is_reduce for o in loops):
        return None
    if len(loops) != 1:
        return "not one reduce loop under a chain of free loops"
    red = loops[0]
    acc = red.body.block.last_op
    if not isinstance(acc, loop.AccumulateOp) or any(k.data != loop.CombineKind.ADD for k in acc.kinds):
        return "the reduce loop does not accumulate by add"
    if any(isinstance(o, loop.ForOp) for o in red.body.block.ops):
        return "the reduce loop holds a loop"
    ivs = [f.iv for f in chain]
    loads = [o for o in red.body.block.ops if isinstance(o, loop.LoadOp) and red.iv in indexed_by(o)]
    owns = [indexed_by(o) & set(ivs) for o in loads]
    pair = _operands(owns)
    if pair is None:
        return "not a contraction of two operands"
    a, b = pair
    return [
        *((ld.memref, [f for f in chain if f.iv in own - other])
          for ld, own, other in ((loads[a], owns[a], owns[b]), (loads[b], owns[b], owns[a]))),
        (None, [f for f in chain if f.iv in owns[a] & owns[b]]),
    ]  # fmt: skip


def _operands(owns: list[set[SSAValue]]) -> tuple[int, int] | None:
    """The two loads (positions in `owns`, each load's free loops) that make the contraction's
    sides: each indexed by a free loop the other is not, and every other load indexed by free
    loops of one of them only (a prologue's factor: a residual r[b, s, k] beside x[b, s, k], an
    RMSNorm's weight g[k] or a mask[kh, kw] on a convolution's weight, indexed by K alone). The
    pair with the most loops on its sides, the first of equals; None where no pair is one."""
    best = None
    for a in range(len(owns)):
        for b in range(a + 1, len(owns)):
            if not (owns[a] - owns[b] and owns[b] - owns[a]):
                continue
            if all(o <= owns[a] or o <= owns[b] for o in owns):
                size = len(owns[a] ^ owns[b])
                if best is None or size > best[0]:
                    best = (size, a, b)
    return None if best is None else (best[1], best[2])


def _unit(f: loop.ForOp) -> bool:
    """A free loop of extent 1 (a kept reduced dim's store after the reduce loop)."""
    return not f.is_reduce and f.extent.data == 1


def _collapsible(side: list[loop.ForOp]) -> bool:
    """Whether the loops of `side` can become its last one: those before it hold only their
    inner loop, and each index is used only inside the last one, as a load or store index."""
    last = side[-1]
    return all(_alone(f) for f in side[:-1]) and all(
        isinstance(use.operation, loop.LoadOp | loop.StoreOp) and last.is_ancestor(use.operation)
        and use.index > (0 if isinstance(use.operation, loop.LoadOp) else 1)  # not the value stored
        for f in side for use in f.iv.uses
    )  # fmt: skip


def collapse_side(side: list[loop.ForOp]) -> None:
    """Merge the loops of `side` (outermost first, each inside the one before) into the last:
    one loop over the product of their extents, each index split back row-major."""
    extents = [f.extent.data for f in side]
    last = side[-1]
    m = last.iv
    block = last.body.block
    applies = []
    for i, f in enumerate(side):
        inner = math.prod(extents[i + 1 :])
        e: AffineExpr = AffineDimExpr(0) // inner if inner > 1 else AffineDimExpr(0)
        if i > 0:
            e = e % extents[i]
        apply = affine.ApplyOp([m], AffineMapAttr(AffineMap(1, 0, (e,))))
        apply.result.name_hint = f.iv.name_hint
        applies.append((f.iv, apply))
    for iv, apply in applies:
        iv.replace_uses_with_if(apply.result, lambda use: use.operation is not apply)
    first = block.first_op
    assert first is not None
    block.insert_ops_before([a for _, a in applies], first)
    for _, apply in applies:
        apply.operands[0] = m
    for f in side[:-1]:  # each holds only the next loop of the chain: splice it out
        inner_loop = next(o for o in f.body.block.ops if isinstance(o, loop.ForOp))
        inner_loop.detach()
        parent = f.parent_block()
        assert parent is not None
        parent.insert_op_before(inner_loop, f)
        f.detach()
        f.erase()
    last.properties["extent"] = IntAttr(math.prod(extents))


def collapse_nest(kernel: loop.KernelOp, top: loop.ForOp) -> str | None:
    """Collapse each side of the contraction under `top`, and its batch, that spans several
    loops; why not, or None (also where `top` holds no contraction, or nothing spans several
    loops)."""
    chain = _chain(top)
    sides = _sides(chain)
    if sides is None or isinstance(sides, str):
        return sides
    bigs = [(f"%{buf.name_hint}'s side" if buf is not None and buf.name_hint else which,
             [f for f in side if f.extent.data > 1])
            for (buf, side), which in zip(sides, ("A's side", "B's side", "the batch"))]
    for name, big in bigs[:2]:
        if len(big) >= 2 and not _collapsible(big):
            return f"the loops of {name} hold other ops, or an index used other than to load or store inside them"
    if len(bigs[2][1]) >= 2 and not _collapsible(bigs[2][1]):  # the sides collapse all the same
        LOG.info("collapse-matmul-axes: @%s: the batch kept: its loops hold other ops, or an index used "
                 "other than to load or store inside them", kernel.sym_name.data)
        bigs[2] = (bigs[2][0], [])
    if all(len(big) < 2 for _, big in bigs):
        drop_unused_indices(top)
        merged = [f"%{buf.name_hint}" for buf in dict.fromkeys(buf for buf, _ in sides[:2])
                  if isinstance(buf.type, MemRefType) and buf.type.get_num_dims() >= 2
                  and merge_buffer(kernel, buf) is None]  # fmt: skip
        if merged:
            LOG.info("collapse-matmul-axes: @%s: K read at one flat position of %s: merged",
                     kernel.sym_name.data, ", ".join(merged))
        return None
    for f in [o for o in chain[-1].body.block.ops if isinstance(o, loop.ForOp) and _unit(o)]:
        inline_unit_loop(f)
    done = []
    for name, big in bigs:
        if len(big) < 2:
            continue
        extents = [f.extent.data for f in big]
        collapse_side(big)
        done.append(f"{name} {' x '.join(map(str, extents))} -> {math.prod(extents)}")
    if done:
        fold_index_ops(kernel)
        drop_unused_indices(kernel)
        LOG.info("collapse-matmul-axes: @%s: %s", kernel.sym_name.data, "; ".join(done))
        for buf in [*kernel.ins, *kernel.outs]:  # a run of dims read at one flat position: one dim
            if isinstance(buf.type, MemRefType) and buf.type.get_num_dims() >= 2:
                merge_buffer(kernel, buf)
    return None


@dataclass(frozen=True)
class CollapseMatmulAxes(ModulePass):
    """Give each contraction one free loop per side (M, N) and one for its batch where one
    spans several."""

    name = "collapse-matmul-axes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            for top in [o for o in kernel.body.block.ops if isinstance(o, loop.ForOp) and not o.is_reduce]:
                why = collapse_nest(kernel, top)
                if why is not None:
                    LOG.info("collapse-matmul-axes: declined @%s: %s", kernel.sym_name.data, why)
