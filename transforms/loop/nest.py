"""Helpers shared by the loop-level passes: reading a producer nest, inlining it at a load,
folding index arithmetic into loads, hoisting invariant code, folding invariant reductions and
deduplicating pure ops."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType, MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import Rewriter

from dpl.dialects import loop
from dpl.dialects.loop import defined_inside


@dataclass
class ProducerNest:
    """A kernel in producer form: `out[i0, .., in] = f(i)` over a chain of free loops.

    `levels[k]` holds the ops at depth k (kernel body first) other than the chain loop; the
    innermost level ends with the one store `out[%i0, .., %in]`.
    """

    kernel: loop.KernelOp
    loops: list[loop.ForOp]
    levels: list[list[Operation]]
    store: loop.StoreOp

    @property
    def ivs(self) -> list[SSAValue]:
        return [f.iv for f in self.loops]


def match_producer(kernel: loop.KernelOp) -> ProducerNest | None:
    """The kernel as a ProducerNest, or None when it is not one (several stores, outs, ...)."""
    if len(kernel.outs) != 1:
        return None
    out = kernel.outs[0]
    levels: list[list[Operation]] = []
    loops: list[loop.ForOp] = []
    block: Block = kernel.body.block
    while True:
        ops = [op for op in block.ops if not isinstance(op, loop.YieldOp)]
        chain = [op for op in ops if isinstance(op, loop.ForOp) and not op.is_reduce]
        if any(isinstance(op, loop.StoreOp) for op in ops):
            break
        if len(chain) != 1:
            return None
        levels.append([op for op in ops if op is not chain[0]])
        loops.append(chain[0])
        block = chain[0].body.block
    ops = [op for op in block.ops if not isinstance(op, loop.YieldOp)]
    store = ops[-1]
    if not isinstance(store, loop.StoreOp) or store.memref != out:
        return None
    levels.append(ops[:-1])
    for op in ops[:-1]:
        for inner in op.walk():
            if isinstance(inner, loop.StoreOp) or (
                isinstance(inner, loop.ForOp) and not inner.is_reduce
            ):
                return None
    assert isinstance(out.type, MemRefType)
    shape = list(out.type.get_shape())
    ivs = [f.iv for f in loops]
    if [f.extent.data for f in loops] != shape:
        return None
    if list(store.indices) != ivs or store.map.data != AffineMap.identity(len(ivs)):
        return None
    return ProducerNest(kernel, loops, levels, store)


def index_values(load: loop.LoadOp) -> list[tuple[AffineExpr, SSAValue | None]]:
    """Each index of a load as (expression over the load's operands, the SSA value if it is one)."""
    amap = load.map.data
    result = []
    for expr in amap.results:
        value = None
        if isinstance(expr, AffineDimExpr):
            value = load.indices[expr.position]
        result.append((expr, value))
    return result


def materialize_index(expr: AffineExpr, load: loop.LoadOp) -> tuple[SSAValue, list[Operation]]:
    """An SSA index value equal to `expr` over `load`'s operands, and the ops that compute it."""
    if isinstance(expr, AffineDimExpr) and expr.position < load.map.data.num_dims:
        return load.indices[expr.position], []
    if isinstance(expr, AffineConstantExpr):
        const = arith.ConstantOp(IntegerAttr(expr.value, IndexType()))
        return const.result, [const]
    amap = load.map.data
    apply = affine.ApplyOp(
        list(load.indices), AffineMapAttr(AffineMap(amap.num_dims, amap.num_symbols, (expr,)))
    )
    return apply.result, [apply]


def inline_at(producer: ProducerNest, load: loop.LoadOp) -> None:
    """Replace `load` (a read of the producer's output) by a copy of the producer's computation."""
    mapper: dict[SSAValue, SSAValue] = {}
    block = load.parent_block()
    assert block is not None
    for iv, (expr, _) in zip(producer.ivs, index_values(load)):
        value, ops = materialize_index(expr, load)
        for op in ops:
            block.insert_op_before(op, load)
        mapper[iv] = value
    for level in producer.levels:
        for op in level:
            block.insert_op_before(op.clone(mapper), load)
    stored = producer.store.value
    Rewriter.replace_op(load, [], [mapper.get(stored, stored)])


def drop_unused_indices(root: Operation) -> None:
    """Give each load and store under `root` only the index operands its map uses (the map
    renumbered). Fused loads may carry every loop index of their nest; the tile schedule reads
    an access's operands as what it depends on, and a region cloned from it reads no loop index
    it does not need."""
    for op in [o for o in root.walk() if isinstance(o, loop.LoadOp | loop.StoreOp)]:
        amap = op.map.data
        used = sorted(amap.used_dims())
        if len(used) == len(op.indices):
            continue
        new_dims = [AffineExpr.dimension(used.index(i)) if i in used else AffineExpr.constant(0)
                    for i in range(amap.num_dims)]  # fmt: skip
        new_map = amap.replace_dims_and_symbols(new_dims, [], len(used), 0)
        indices = [op.indices[i] for i in used]
        if isinstance(op, loop.LoadOp):
            new: Operation = loop.LoadOp(op.memref, indices, new_map)
        else:
            new = loop.StoreOp(op.value, op.memref, indices, new_map)
        new.attributes |= op.attributes
        Rewriter.replace_op(op, new)


def fold_index_ops(root: Operation) -> None:
    """Fold `affine.apply` / index constants that feed loads and stores into their index maps."""
    for op in list(root.walk()):
        if not foldable_access(op):
            continue
        assert isinstance(op, (loop.LoadOp, loop.StoreOp))
        amap = op.map.data
        operands = list(op.indices)
        dims: list[AffineExpr] = []
        new_operands: list[SSAValue] = []
        for position, value in enumerate(operands[: amap.num_dims]):
            owner = value.owner
            if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
                dims.append(AffineExpr.constant(owner.value.value.data))
            elif isinstance(owner, affine.ApplyOp) and owner.map.data.num_symbols == 0:
                base = len(new_operands)
                inner = owner.map.data.results[0]
                shift = [AffineExpr.dimension(base + i) for i in range(owner.map.data.num_dims)]
                dims.append(inner.replace_dims_and_symbols(shift, []))
                new_operands.extend(owner.mapOperands)
            else:
                dims.append(AffineExpr.dimension(len(new_operands)))
                new_operands.append(value)
        # Deduplicate operands so each distinct value is one dimension.
        unique: list[SSAValue] = []
        remap: list[AffineExpr] = []
        for value in new_operands:
            if value not in unique:
                unique.append(value)
            remap.append(AffineExpr.dimension(unique.index(value)))
        dims = [d.replace_dims_and_symbols(remap, []) for d in dims]
        new_map = AffineMap(len(unique), 0, tuple(e.replace_dims_and_symbols(dims, []) for e in amap.results))
        if isinstance(op, loop.LoadOp):
            new = loop.LoadOp(op.memref, unique, new_map)
        else:
            new = loop.StoreOp(op.value, op.memref, unique, new_map)
        if isinstance(op, loop.LoadOp):
            new.result.name_hint = op.result.name_hint
        Rewriter.replace_op(op, new)
    erase_unused_index_ops(root)


def _foldable_index(value: SSAValue) -> bool:
    owner = value.owner
    return (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)) or (
        isinstance(owner, affine.ApplyOp) and owner.map.data.num_symbols == 0
    )


def foldable_access(op: Operation) -> bool:
    """Whether `fold_index_ops` rewrites `op`: a load or store (of a map without symbols) with
    an index that an index constant or an `affine.apply` computes."""
    if not isinstance(op, (loop.LoadOp, loop.StoreOp)) or op.map.data.num_symbols:
        return False
    return any(_foldable_index(v) for v in list(op.indices)[: op.map.data.num_dims])


def is_pure(op: Operation) -> bool:
    """Has no effect but its results: arith/math, affine.apply, loads, and reduce loops of such."""
    if isinstance(op, (loop.StoreOp, loop.YieldOp, loop.AccumulateOp)):
        return False
    if isinstance(op, loop.ForOp):
        return op.is_reduce and all(
            is_pure(inner) or isinstance(inner, (loop.AccumulateOp, loop.YieldOp))
            for inner in op.body.block.ops
        )
    if isinstance(op, loop.KernelOp):
        return False
    return op.dialect_name() in ("arith", "math", "affine") or isinstance(op, loop.LoadOp)


def is_dead(op: Operation) -> bool:
    """A pure op whose results nothing uses (a reduce loop without results aside)."""
    if not is_pure(op) or isinstance(op, loop.ForOp) and not op.res:
        return False
    return all(not r.uses for r in op.results)


def erase_unused_index_ops(root: Operation) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(root.walk()):
            # (an op inside a dead loop erased before it in this sweep has gone with it)
            if op is not root and root.is_ancestor(op) and is_dead(op):
                op.detach()
                op.erase()
                changed = True


def uses_only_outside(candidate: Operation, loop_op: Operation) -> bool:
    """Whether every value `candidate` (or its regions) reads is defined outside `loop_op`."""
    for inner in candidate.walk():
        for operand in inner.operands:
            if defined_inside(operand, loop_op) and not defined_inside(operand, candidate):
                return False
    return True


def hoistable(op: Operation, for_op: loop.ForOp) -> bool:
    """Whether `hoist_invariants` moves `op`, of `for_op`'s body, out of the loop."""
    return is_pure(op) and uses_only_outside(op, for_op)


def hoist_invariants(root: Operation) -> bool:
    """Move pure ops that do not depend on a loop out of it, innermost loops first."""
    changed_any = False
    changed = True
    while changed:
        changed = False
        for for_op in [op for op in root.walk() if isinstance(op, loop.ForOp)]:
            for op in list(for_op.body.block.ops):
                if hoistable(op, for_op):
                    op.detach()
                    for_op.parent_block().insert_op_before(op, for_op)  # type: ignore[union-attr]
                    changed = changed_any = True
    return changed_any


def fold_invariant_reductions(root: Operation) -> bool:
    """Replace each reduce loop whose body is only its `loop.accumulate` of values defined
    outside the loop (what `hoist_invariants` leaves of a sum of a constant) by its closed form:
    n copies of v fold to v * n + 0.0 by `add` (floats; the + 0.0 gives the accumulation's +0 for
    -0), v * n (integers wider than a bit), and to v by `max` and `min`. A loop with an
    accumulate of another kind (`mul`), of a bool, or of no iterations stays. Returns whether
    anything folded.

    Such a loop left at a kernel's top level is a reduction the schedule sees as the whole kernel's
    row (one block for all of it: a Cholesky's first column, `(l * l).sum(-1)` of l = zeros)."""
    changed = False
    for red in [op for op in root.walk() if isinstance(op, loop.ForOp) and op.is_reduce]:
        if not foldable_reduction(red):
            continue
        acc = red.body.block.last_op
        assert isinstance(acc, loop.AccumulateOp)
        folds = [_folded(kind.data, v, red.extent.data) for kind, v in zip(acc.kinds.data, acc.values)]
        ops = [op for f in folds for op in f[0]]
        Rewriter.replace_op(red, ops, [f[1] for f in folds])
        changed = True
    return changed


def foldable_reduction(red: loop.ForOp) -> bool:
    """Whether `fold_invariant_reductions` folds reduce loop `red` (builds nothing)."""
    n = red.extent.data
    acc = red.body.block.last_op
    if n == 0 or not isinstance(acc, loop.AccumulateOp) or red.body.block.first_op is not acc:
        return False
    if any(defined_inside(v, red) for v in acc.values):
        return False
    return all(_closed_form(kind.data, v.type, n) for kind, v in zip(acc.kinds.data, acc.values))


def _closed_form(kind: loop.CombineKind, t, n: int) -> bool:
    """Whether n copies of a value of type `t` folded by `kind` have a simple closed form."""
    if kind in (loop.CombineKind.MAX, loop.CombineKind.MIN) or n == 1 and kind == loop.CombineKind.MUL:
        return True
    if kind != loop.CombineKind.ADD:
        return False
    return isinstance(t, AnyFloat) or isinstance(t, IntegerType | IndexType) and not (isinstance(t, IntegerType) and t.width.data == 1)


def _folded(kind: loop.CombineKind, v: SSAValue, n: int) -> tuple[list[Operation], SSAValue]:
    """The ops computing n copies of `v` folded by `kind`, and their result (`_closed_form`)."""
    if kind in (loop.CombineKind.MAX, loop.CombineKind.MIN) or n == 1 and kind == loop.CombineKind.MUL:
        return [], v
    t = v.type
    if isinstance(t, AnyFloat):
        count, zero = arith.ConstantOp(FloatAttr(float(n), t)), arith.ConstantOp(FloatAttr(0.0, t))
        mul = arith.MulfOp(v, count.result)
        add = arith.AddfOp(mul.result, zero.result)
        return [count, zero, mul, add], add.result
    count = arith.ConstantOp(IntegerAttr(n, t))
    mul = arith.MuliOp(v, count.result)
    return [count, mul], mul.result


def _dedup_key(op: Operation) -> tuple | None:
    """What makes two region-free ops structurally equivalent (name, operands, types, attributes),
    as a hashable key; None for an op with regions (compared by structure instead)."""
    if op.regions or op.successors:
        return None
    key = (op.name, tuple(op.operands), tuple(r.type for r in op.results),
           tuple(sorted(op.properties.items())), tuple(sorted(op.attributes.items())))  # fmt: skip
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _twin(op: Operation, block: Block, seen: dict[tuple, Operation], seen_regions: list[Operation]) -> Operation | None:
    """The earlier op of `block` that `op` is structurally identical to, among those `seen`
    (region-free, by key) and `seen_regions`; None when there is none, and `op` is seen."""
    key = _dedup_key(op)
    if key is not None:
        twin = seen.get(key)
        if twin is None:
            seen[key] = op
        return twin
    twin = next((s for s in seen_regions if s.is_structurally_equivalent(op, {block: block})), None)
    if twin is None:
        seen_regions.append(op)
    return twin


def has_twins(block: Block) -> bool:
    """Whether `dedup_pure_ops` merges two ops of `block`."""
    seen: dict[tuple, Operation] = {}
    seen_regions: list[Operation] = []
    return any(is_pure(op) and _twin(op, block, seen, seen_regions) is not None for op in block.ops)


def settled(root: Operation) -> bool:
    """Whether the cleanups after an inlining (`fold_index_ops` with `erase_unused_index_ops`,
    `hoist_invariants`, `fold_invariant_reductions`, `dedup_pure_ops`) change nothing inside
    `root` (and do not move `root`'s own ops out of it)."""
    for op in root.walk():
        if foldable_access(op) or (op is not root and is_dead(op)):
            return False
        if isinstance(op, loop.ForOp):
            if any(hoistable(inner, op) for inner in op.body.block.ops):
                return False
            if op.is_reduce and foldable_reduction(op):
                return False
        if any(has_twins(b) for r in op.regions for b in r.blocks):
            return False
    return True


def dedup_pure_ops(root: Operation) -> bool:
    """Replace a pure op by an earlier structurally identical one in the same block (region-free
    ops by a hash of what makes them equal, so a block of n ops costs O(n)). The blocks inside a
    replaced op (a repeated reduce loop) go with it and are not visited."""
    changed = False
    blocks = [b for op in root.walk() for r in op.regions for b in r.blocks]
    gone: set[Block] = set()
    for block in blocks:
        if block in gone:
            continue
        seen: dict[tuple, Operation] = {}
        seen_regions: list[Operation] = []
        for op in list(block.ops):
            if not is_pure(op):
                continue
            twin = _twin(op, block, seen, seen_regions)
            if twin is None:
                continue
            gone.update(b for inner in op.walk() for r in inner.regions for b in r.blocks)
            Rewriter.replace_op(op, [], twin.results)
            changed = True
    return changed


def sink_unindexed_loops(kernel: loop.KernelOp, buffer: SSAValue) -> list[SSAValue]:
    """Interchange the perfect chain of free loops of `kernel` (loads and stores inside its
    innermost loop only) so that the loops no load of `buffer` indexes run innermost, the
    others keeping their order; returns the moved loops' induction variables ([] when the
    kernel is no such chain or they are innermost already).

    Free loops are independent, so any order computes the same values. Inlining a reduction
    that `buffer` holds then puts it inside the loops it does not depend on only, where
    `hoist_invariants` moves it out of them: RMSNorm over dim 1 of (N, C, H, W) reads its
    statistic `red[n, 0, h, w]` in a nest over (n, c, h, w); in the order (n, h, w, c) the
    statistic is computed once per (n, h, w) beside a loop over c that normalizes."""
    chain: list[loop.ForOp] = []
    block = kernel.body.block
    while True:
        ops = [o for o in block.ops if not isinstance(o, loop.YieldOp)]
        loops = [o for o in ops if isinstance(o, loop.ForOp)]
        if len(loops) != 1 or loops[0].is_reduce:
            break
        if chain and len(ops) != 1:
            return []  # ops between the loops: not a perfect chain
        chain.append(loops[0])
        block = loops[0].body.block
    if not chain or any(isinstance(o, loop.ForOp) for o in block.walk()):
        return []
    used: set[SSAValue] = set()
    for ld in [o for o in block.walk() if isinstance(o, loop.LoadOp) and o.memref == buffer]:
        used |= {ld.indices[d] for d in ld.map.data.used_dims()}
    if not used:
        return []
    order = [f for f in chain if f.iv in used] + [f for f in chain if f.iv not in used]
    if order == chain:
        return []
    uses = {f.iv: [(u.operation, u.index) for u in f.iv.uses] for f in chain}
    extents = {f.iv: f.extent for f in chain}
    hints = {f.iv: f.iv.name_hint for f in chain}
    for slot, moved in zip(chain, order):  # loop `slot` now runs what `moved` ran
        slot.extent = extents[moved.iv]
        for op, index in uses[moved.iv]:
            op.operands[index] = slot.iv
    for slot, moved in zip(chain, order):
        slot.iv.name_hint = hints[moved.iv]
    kept = sum(f.iv in used for f in order)
    return [f.iv for f in chain[kept:]]


def inline_unit_loop(f: loop.ForOp) -> None:
    """Replace the extent-1 free loop `f` by its body, its index the constant 0."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    block = f.parent_block()
    assert block is not None
    block.insert_op_before(zero, f)
    f.iv.replace_all_uses_with(zero.result)
    for op in list(f.body.block.ops):
        if not isinstance(op, loop.YieldOp):
            op.detach()
            block.insert_op_before(op, f)
    f.detach()
    f.erase()
