"""chunk-variance: a row's sum and its sum of squared deviations from one read of the row.

split-row-stats leaves a LayerNorm (a variance) of few long rows as two statistic kernels that
each read the whole row: its sum, then its sum of squares about a value m that does not vary
along the row (the mean, from the sum):

    loop.kernel @k_stat0 ins(%x) outs(%stat0) { loop.for free %a < 16 {
      %s = loop.for reduce %r0 < 64 { loop.for reduce %r1 < 65536 { ...%x[%a, %r0, %r1]... } }
      loop.store %s, %stat0[%a] } }
    loop.kernel @k_stat1 ins(%x, %stat0) outs(%stat1) { loop.for free %a < 16 {
      %m = ...loop.load %stat0[%a]...
      %v = loop.for reduce ... { %d = arith.subf %x[...], %m; %q = arith.mulf %d, %d; accumulate add %q }
      loop.store %v, %stat1[%a] } }

Where the first kernel directly precedes the second and sums the same elements, this pass has
the row read once, by chunks of L elements: a kernel `@<first>_chunks`, placed before both,
stores each chunk's sum s_c, and the sum e_c of its deviations from its mean m_c = s_c / L (as
rounded) and the sum q_c of their squares (two passes over a chunk, which the row pipeline keeps
in registers or shared memory); the two statistic kernels then read those (16 x 512 triples of
floats instead of 16 x 4M):

    stat0 = sum_c s_c        stat1 = sum_c (q_c + (m_c - m) * (2 e_c + L (m_c - m)))

The second is exact for any m and any m_c (Chan, Golub and LeVeque's update, with its cross term
kept): over a chunk, (x - m)^2 = (x - m_c)^2 + 2 (m_c - m)(x - m_c) + (m_c - m)^2. The cross term
e_c is what the rounding of m_c leaves (zero for an exact mean); without it, a row of mean 1000
and deviation 3 lost 5 digits of 7 in its variance. So meaning is kept up to rounding, and the
rounding is that of the two-pass form (deviations from a mean), not that of a sum of squares less
a squared sum.

A chunk is the shortest run of at least `min-chunk` elements that the row's reduce loops cut at
a divisor give: the innermost loops, and of the loop outside them its smallest divisor that makes
the chunk that long (64 x 256 x 256 -> chunks of 256, the innermost loop; 1024 x 64 -> 4 x 64;
a row of 2^20 -> 256 of one loop split 4096 x 256; 179 x 16 -> 179 x 16, 179 being prime). The
chunk loops outside it become free loops of the chunk kernel and the reduce loops of the
statistic kernels. H200 (session 30, bench/results/session30): over 22 sweep norms whose
statistics are split, chunks of at most 256 ran faster than the longest chunks up to 8192
(16 x (64, 256, 256) 357 -> 321 us, 579 x (1024, 64) 139 -> 123), but lost where they came out at
64 (16 x (211, 29, 64) 29 -> 35 us); the rule kept ran those programs 12.4 -> 13.7x eager against
the statistics' two reads of the row, ahead of chunks of at least 1024 (13.3x). A chunk staged
whole in shared memory or held in registers is read from memory once; one of several loops
(rows of (4, 64)) is read twice, the second time from the L1 or L2 cache.

Declines (logged to `dpl.passes`) a kernel that is not such a sum of squared deviations (its row
body's reduce not a nest of reduce loops, one inside the other, accumulating `add` of (x - m) *
(x - m) for one load x indexed by the loops alone and an m from outside the nest), that is not
directly preceded by a kernel whose row body sums the same load over the same loops and stores
it, whose row is one chunk (or shorter), or whose chunk would be longer than `max-chunk` (a
prime loop of 4194301: one chunk per row would use a block per row, as before).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import FloatAttr, IndexType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop
from dpl.transforms.loop.fuse_loops import LOG
from dpl.transforms.loop.split_row_stats import row_body
from dpl.transforms.options import check_option


def _nest(red: loop.ForOp) -> tuple[list[loop.ForOp], Block] | None:
    """The reduce loops of a perfect nest starting at `red` (each level one reduce loop whose
    result it accumulates with `add`) and the innermost body; None if not such a nest."""
    levels = [red]
    while True:
        ops = list(levels[-1].body.block.ops)
        acc = ops[-1]
        if not isinstance(acc, loop.AccumulateOp) or len(acc.values) != 1 or acc.kinds.data[0].data != loop.CombineKind.ADD:
            return None
        if len(ops) == 2 and isinstance(ops[0], loop.ForOp) and ops[0].is_reduce and acc.values[0] is ops[0].res[0]:
            levels.append(ops[0])
            continue
        if any(isinstance(o, loop.ForOp) for o in ops):
            return None
        return levels, levels[-1].body.block


def _row_load(body: Block, ivs: list[SSAValue]) -> loop.LoadOp | None:
    """The one load of innermost block `body`, if indexed by the loops' `ivs` alone."""
    loads = [o for o in body.ops if isinstance(o, loop.LoadOp)]
    if len(loads) != 1 or not all(v in ivs for v in loads[0].indices):
        return None
    return loads[0]


@dataclass
class Deviations:
    """A kernel's row body storing a sum of squared deviations (x - m)^2 over a reduce nest."""

    chain: list[loop.ForOp]
    levels: list[loop.ForOp]
    load: loop.LoadOp
    mean: SSAValue


@dataclass
class Sum:
    """A kernel's row body storing the sum of one load over a reduce nest."""

    chain: list[loop.ForOp]
    levels: list[loop.ForOp]
    load: loop.LoadOp


def _row_reduce(kernel: loop.KernelOp) -> tuple[list[loop.ForOp], loop.ForOp, list[loop.ForOp], Block] | str:
    found = row_body(kernel, whole=True)
    if isinstance(found, str):
        return found
    chain, block = found
    reds = [o for o in block.ops if isinstance(o, loop.ForOp)]
    stores = [o for o in block.ops if isinstance(o, loop.StoreOp)]
    if len(reds) != 1 or not reds[0].is_reduce or len(stores) != 1 or stores[0].value is not reds[0].res[0]:
        return "its row body is not one reduce and the store of its result"
    nest = _nest(reds[0])
    if nest is None:
        return "its reduce is not a nest of reduce loops accumulating add"
    return chain, reds[0], *nest


def _innermost(kernel: loop.KernelOp) -> tuple[list[loop.ForOp], loop.ForOp, list[loop.ForOp], list, loop.LoadOp] | str:
    """`kernel`'s row loops, its reduce nest (outermost, levels), the innermost body's ops and its
    one load indexed by the loops alone; or why it has no such nest."""
    found = _row_reduce(kernel)
    if isinstance(found, str):
        return found
    chain, red, levels, body = found
    load = _row_load(body, [f.iv for f in chain + levels])
    if load is None:
        return "its innermost body has not one load indexed by the loops alone"
    return chain, red, levels, list(body.ops), load


def deviations(kernel: loop.KernelOp) -> Deviations | str:
    """`kernel`'s sum of squared deviations, or why it is not one."""
    found = _innermost(kernel)
    if isinstance(found, str):
        return found
    chain, red, levels, ops, load = found
    shape = "its innermost body is not (x - m) * (x - m) of its load x"
    if len(ops) != 4 or ops[0] is not load:
        return shape
    sub, sq, acc = ops[1:]
    if not (isinstance(sub, arith.SubfOp) and sub.lhs is load.result and isinstance(sq, arith.MulfOp)
            and sq.lhs is sub.result and sq.rhs is sub.result and acc.operands[0] is sq.result):  # fmt: skip
        return shape
    if _inside(sub.rhs, red):
        return "its m varies along the row"
    return Deviations(chain, levels, load, sub.rhs)


def _inside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined inside `op` (a result of an op in it, or an argument of its blocks)."""
    owner = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()  # type: ignore[union-attr]
    return owner is not None and op.is_ancestor(owner)


def row_sum(kernel: loop.KernelOp) -> Sum | None:
    """`kernel`'s sum of one load over its row, or None."""
    found = _innermost(kernel)
    if isinstance(found, str):
        return None
    chain, _, levels, ops, load = found
    if len(ops) != 2 or ops[1].operands[0] is not load.result:
        return None
    return Sum(chain, levels, load)


def same_row(a: Sum, b: Deviations) -> bool:
    """Whether the two loads read the same elements: the same buffer and map, over loops of the
    same extents in the same places."""
    extents = lambda fs: [f.extent.data for f in fs]  # noqa: E731
    if a.load.memref is not b.load.memref or a.load.map != b.load.map:
        return False
    if extents(a.chain) != extents(b.chain) or extents(a.levels) != extents(b.levels):
        return False
    def places(s: Sum | Deviations) -> list[int]:
        ivs = [f.iv for f in s.chain + s.levels]
        return [ivs.index(v) for v in s.load.indices]

    return places(a) == places(b)


def chunk(extents: list[int], min_chunk: int) -> tuple[int, int] | None:
    """Where to cut the reduce loops of `extents` (outermost first) for the shortest chunk of at
    least `min_chunk` elements: (level, d), the chunk being the loops inside `level` and d of its
    iterations (d = 1: none of them); None if the row is that chunk or shorter."""
    inner = 1
    for level in range(len(extents) - 1, -1, -1):
        e = extents[level]
        d = next((d for d in range(2, e + 1) if e % d == 0 and inner * d >= min_chunk), None)
        if d is None:
            inner *= e
            continue
        if d < e:
            return level, d
        return (level - 1, 1) if level > 0 else None
    return None


def _loops(kind: loop.IterKind, extents: list[int], names: list[str], result_type=None, results: int = 1
           ) -> tuple[list[loop.ForOp], Block]:
    """A nest of fresh loops (outermost first) and its innermost block, each reduce level
    accumulating the `results` values of the one inside it (its body left for the caller to end)."""
    blocks = []
    for name in names:
        b = Block(arg_types=[IndexType()])
        b.args[0].name_hint = name
        blocks.append(b)
    types = [result_type] * results if result_type is not None else []
    fors = [loop.ForOp(kind, e, b, types) for e, b in zip(extents, blocks)]
    for inner, b in zip(fors[1:], blocks):
        b.add_op(inner)
        b.add_op(loop.AccumulateOp([loop.CombineKind.ADD] * results, list(inner.res)) if types else loop.YieldOp())
    return fors, blocks[-1]


def _const(value: float, type_) -> arith.ConstantOp:
    return arith.ConstantOp(FloatAttr(value, type_))


@dataclass(frozen=True)
class ChunkVariance(ModulePass):
    """Compute a row's sum and its sum of squared deviations from one read, by chunks."""

    name = "chunk-variance"

    min_chunk: int = 256
    """The fewest elements a chunk holds: each chunk writes three partial values, which both
    statistic kernels read back; the shortest chunk of at least this many is taken."""
    max_chunk: int = 8192
    """The most (the chunk kernel's rows: 32 KB of f32, within what the row pipeline keeps in
    shared memory)."""

    def __post_init__(self):
        check_option(self, "max_chunk", 1)
        check_option(self, "min_chunk", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            dev = deviations(kernel)
            if isinstance(dev, str):
                LOG.info("chunk-variance: declined @%s: %s", kernel.sym_name.data, dev)
                continue
            why = self.rewrite(kernel, dev)
            if why is not None:
                LOG.info("chunk-variance: declined @%s: %s", kernel.sym_name.data, why)

    def rewrite(self, k1: loop.KernelOp, dev: Deviations) -> str | None:
        """Read the row of variance kernel `k1` (and of the sum kernel before it) by chunks;
        None if done, else why not."""
        k1_name = k1.sym_name.data
        prev = k1.prev_op
        while isinstance(prev, memref.AllocOp):
            prev = prev.prev_op
        total = row_sum(prev) if isinstance(prev, loop.KernelOp) else None
        if total is None or not same_row(total, dev):
            return "not directly after a kernel summing the same row"
        k0: loop.KernelOp = prev  # type: ignore[assignment]
        extents = [f.extent.data for f in dev.levels]
        cut = chunk(extents, self.min_chunk)
        if cut is None:
            return f"its row of {math.prod(extents)} is one chunk of at least min-chunk = {self.min_chunk}"
        level, d = cut
        size = d * math.prod(extents[level + 1 :])
        if size > self.max_chunk:
            return f"its chunk of {size} elements would be longer than max-chunk = {self.max_chunk}"
        outer = extents[:level] + [extents[level] // d]  # (d = 1: the whole loop is a chunk loop)
        inner = ([d] if d > 1 else []) + extents[level + 1 :]
        rows = [f.extent.data for f in dev.chain]
        elem = dev.mean.type
        name = k0.sym_name.data

        allocs = [memref.AllocOp.get(elem, shape=rows + outer) for _ in range(3)]
        for alloc, what in zip(allocs, ("sum", "dev", "sq")):
            alloc.memref.name_hint = f"{name.removeprefix('k_')}_chunk_{what}"
        parts = [a.memref for a in allocs]  # each chunk's sum, deviations' sum, squares' sum
        chunks = self.chunk_kernel(name, dev, level, d, rows, outer, inner, size, parts)
        Rewriter.insert_op([*allocs, chunks], InsertPoint.before(k0))
        self.read_sums(k0, total, outer, parts[0])
        self.read_chunks(k1, dev, outer, size, parts)
        LOG.info("chunk-variance: @%s and @%s read the row once, in @%s: %d chunks of %d per row",
                 name, k1_name, chunks.sym_name.data, math.prod(outer), size)
        return None

    def chunk_kernel(self, name: str, dev: Deviations, level: int, d: int, rows: list[int],
                     outer: list[int], inner: list[int], size: int, parts: list[SSAValue]) -> loop.KernelOp:
        """The kernel storing each chunk's sum, and its deviations' sum and sum of squares
        about its own mean, into `parts`."""
        elem = dev.mean.type
        chain, top = _loops(loop.IterKind.FREE, rows + outer,
                            [f"a{i}" for i in range(len(rows))] + [f"c{i}" for i in range(len(outer))])
        row_ivs = [f.iv for f in chain[: len(rows)]]
        chunk_ivs = [f.iv for f in chain[len(rows) :]]

        # each old loop's iv as an expression of the new ones (rows, chunk loops, chunk inside),
        # and the row's load at those
        old = [f.iv for f in dev.chain + dev.levels]
        exprs: list[AffineExpr] = [AffineDimExpr(i) for i in range(len(row_ivs))]
        for i in range(len(dev.levels)):
            if i < level or (i == level and d == 1):
                exprs.append(AffineDimExpr(len(row_ivs) + i))
            elif i == level:
                exprs.append(AffineDimExpr(len(row_ivs) + i) * d + AffineDimExpr(len(row_ivs) + len(chunk_ivs)))
            else:
                exprs.append(AffineDimExpr(len(row_ivs) + len(chunk_ivs) + i - level - (0 if d > 1 else 1)))
        at = [exprs[old.index(v)] for v in dev.load.indices]
        dims = len(row_ivs) + len(chunk_ivs) + len(inner)
        amap = AffineMap(dims, 0, tuple(r.replace_dims_and_symbols(at, []) for r in dev.load.map.data.results))

        def load(body: Block, ivs: list[SSAValue]) -> SSAValue:
            ld = loop.LoadOp(dev.load.memref, row_ivs + chunk_ivs + ivs, amap)
            ld.result.name_hint = dev.load.result.name_hint
            body.add_op(ld)
            return ld.result

        names = [f"r{i}" for i in range(len(inner))]
        s_nest, s_body = _loops(loop.IterKind.REDUCE, inner, names, elem)
        x = load(s_body, [f.iv for f in s_nest])
        s_body.add_op(loop.AccumulateOp([loop.CombineKind.ADD], [x]))
        s_nest[0].res[0].name_hint = "sum"
        inv = _const(1.0 / size, elem)  # (placed first in the kernel's body)
        mean = arith.MulfOp(s_nest[0].res[0], inv.result)
        mean.result.name_hint = "mean"
        q_nest, q_body = _loops(loop.IterKind.REDUCE, inner, names, elem, results=2)
        x = load(q_body, [f.iv for f in q_nest])
        dx = arith.SubfOp(x, mean.result)
        sq = arith.MulfOp(dx.result, dx.result)
        q_body.add_ops([dx, sq, loop.AccumulateOp([loop.CombineKind.ADD] * 2, [dx.result, sq.result])])
        q_nest[0].res[0].name_hint, q_nest[0].res[1].name_hint = "dev", "sq"
        at = AffineMap.identity(len(row_ivs + chunk_ivs))
        values = [s_nest[0].res[0], *q_nest[0].res]
        top.add_ops([s_nest[0], mean, q_nest[0],
                     *[loop.StoreOp(v, p, row_ivs + chunk_ivs, at) for v, p in zip(values, parts)], loop.YieldOp()])  # fmt: skip
        body = Block()
        body.add_ops([inv, chain[0]])
        return loop.KernelOp(f"{name}_chunks", [dev.load.memref], parts, body)

    def read_sums(self, k0: loop.KernelOp, total: Sum, outer: list[int], sums: SSAValue) -> None:
        """Make `k0` sum the chunks' sums instead of the row."""
        nest, body = _loops(loop.IterKind.REDUCE, outer, [f"c{i}" for i in range(len(outer))], total.load.result.type)
        ivs = [f.iv for f in total.chain] + [f.iv for f in nest]
        ld = loop.LoadOp(sums, ivs, AffineMap.identity(len(ivs)))
        body.add_ops([ld, loop.AccumulateOp([loop.CombineKind.ADD], [ld.result])])
        nest[0].res[0].name_hint = total.levels[0].res[0].name_hint
        Rewriter.replace_op(total.levels[0], nest[0])
        _reconnect(k0, [sums])

    def read_chunks(self, k1: loop.KernelOp, dev: Deviations, outer: list[int], size: int,
                    parts: list[SSAValue]) -> None:
        """Make `k1` sum q_c + (m_c - m)(2 e_c + L (m_c - m)) over the chunks instead of
        (x - m)^2 over the row."""
        elem = dev.mean.type
        nest, body = _loops(loop.IterKind.REDUCE, outer, [f"c{i}" for i in range(len(outer))], elem)
        ivs = [f.iv for f in dev.chain] + [f.iv for f in nest]
        s, e, q = [loop.LoadOp(p, ivs, AffineMap.identity(len(ivs))) for p in parts]
        inv, n = _const(1.0 / size, elem), _const(float(size), elem)
        mean = arith.MulfOp(s.result, inv.result)
        dm = arith.SubfOp(mean.result, dev.mean)
        ldm = arith.MulfOp(dm.result, n.result)
        cross = arith.AddfOp(e.result, e.result)
        inner = arith.AddfOp(cross.result, ldm.result)
        shift = arith.MulfOp(dm.result, inner.result)
        term = arith.AddfOp(q.result, shift.result)
        body.add_ops([s, e, q, mean, dm, ldm, cross, inner, shift, term,
                      loop.AccumulateOp([loop.CombineKind.ADD], [term.result])])  # fmt: skip
        nest[0].res[0].name_hint = dev.levels[0].res[0].name_hint
        Rewriter.insert_op([inv, n], InsertPoint.before(dev.levels[0]))
        Rewriter.replace_op(dev.levels[0], nest[0])
        _reconnect(k1, parts)


def _reconnect(kernel: loop.KernelOp, extra: list[SSAValue]) -> None:
    """Rebuild `kernel` with the inputs its body now reads (its old ones it still uses, then `extra`)."""
    used = {v for o in kernel.body.walk() for v in o.operands}
    ins = [v for v in [*kernel.ins, *extra] if v in used and v not in kernel.outs]
    body = Rewriter.move_region_contents_to_new_regions(kernel.body)
    Rewriter.replace_op(kernel, loop.KernelOp(kernel.sym_name.data, list(dict.fromkeys(ins)), list(kernel.outs), body))
