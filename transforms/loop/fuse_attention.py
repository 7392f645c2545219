"""fuse-attention: the scores, softmax and P @ V kernels of an attention as one kernel whose
reduce is an `attn.softmax_reduce` (the reduce, softmax, reduce chain as one reduction).

What decompose-attention, lower-to-loops and fuse-loops leave of an attention is three kernels:

    scores   S[.., l, s] = sum_e q(.., l, e) k(.., s, e)               (a producer nest)
    softmax  P[.., l, s] = exp(x(s) - m) / sum_s' exp(x(s') - m),  m = max_s x(s),
             x(s) = f(S[.., l, s], l, s)                               (scale, causal mask)
    P @ V    O[.., l, c] = sum_s P[.., l, s] * v(.., s, c)             (a reduce loop)

This pass rewrites the P @ V reduce into

    O[.., l, c] = attn.softmax_reduce < S score { x(s) with S's contraction inlined } value { v(s, c) }

and drops the softmax and scores kernels with their buffers, so that no score or probability
reaches memory: the tile level schedules it as one flash-attention kernel (tile-attention).

It fires on a reduce loop of a kernel whose body sums `P[.., s] * w` (or `w * P[.., s]`, s the
loop's index, last in the load, w not reading P) where P is an intermediate buffer read by that
kernel only (once), written by a row softmax kernel: a chain of free loops whose innermost body
holds a max reduce of x, a sum reduce of exp(x - max) and a free loop storing exp(x - max) / sum at
[rows.., c] (the three x the same computation of the loop index). A load of an intermediate buffer
in x written by a producer nest that only the softmax reads (the scores) is replaced by that nest's
computation; the rows' indices in the score region are those of the probability's load, which need
not be plain loop indices (einsum attention on the (b, s, h, d) layout reads them at [(b*h) floordiv
h, (b*h) mod h, l, s] of the scores' merged b*h axis): they are applies of only the indices they
read, folded into the inlined loads and simplified with the loop bounds (`simplify_map`: q[b, l, h,
e]). It declines (logged on `dpl.passes`, `-v`) when the result is not an attention nest
tile-attention can read (`attention.match_attention`: the score must be one contraction of a query
and a key operand and an epilogue, ...), leaving the kernels as they are, when the fused body would
read a value from outside its ins / outs (a guard: the kernel would not verify), and when the flash
kernel cannot take it (`attention.flash_declines`: not f32, a head dim over 256): the schedule then
takes the three kernels its usual way. A boolean mask the epilogue reads (`s.masked_fill(~mask,
-inf)` with a mask tensor of its own, e.g. `torch.ones(n, n, dtype=torch.bool).tril()`, an i1
constant once captured) is no reason to decline: the flash kernel evaluates the epilogue per score
(session 40: Gemma-2's soft-capped causal attention, a 4 x 8 x 1024 x 128 case of the sweep, took
the three kernels before).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, func, math, memref
from xdsl.dialects.builtin import AffineMapAttr, IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from dpl.dialects import attn, loop
from dpl.transforms.loop.attention import clone_values, flash_declines, match_attention
from dpl.transforms.loop.fuse_loops import LOG, intermediate_buffers
from dpl.transforms.tile.common import simplify_map, with_map
from dpl.transforms.loop.nest import drop_unused_indices, fold_index_ops, inline_at, match_producer


@dataclass
class SoftmaxNest:
    """A row softmax kernel: P[rows.., c] = exp(x(c) - max) / sum exp(x - max)."""

    kernel: loop.KernelOp
    rows: list[SSAValue]
    """The free loop indices of the rows, outermost first."""
    column: SSAValue
    """The index of the free loop that stores P (x's index there)."""
    score: SSAValue
    """x(column): the value whose softmax is stored."""
    extent: int


def _same(a: SSAValue, ia: SSAValue, b: SSAValue, ib: SSAValue, memo: dict) -> bool:
    """Whether `a` computes what `b` does with loop index `ia` in place of `ib`."""
    if (a is ia) or (b is ib):
        return (a is ia) and (b is ib)
    if a is b:
        return True
    key = (a, b)
    if key in memo:
        return memo[key]
    oa, ob = a.owner, b.owner
    ok = (
        isinstance(oa, Operation) and isinstance(ob, Operation) and oa.name == ob.name
        and not oa.regions and not ob.regions and len(oa.operands) == len(ob.operands)
        and list(oa.results).index(a) == list(ob.results).index(b)  # type: ignore[arg-type]
        and oa.properties == ob.properties and oa.attributes == ob.attributes
        and all(_same(x, ia, y, ib, memo) for x, y in zip(oa.operands, ob.operands))
    )  # fmt: skip
    memo[key] = ok
    return ok


def _exp_minus(value: SSAValue, m: SSAValue) -> SSAValue | None:
    """x if `value` is exp(x - m), else None."""
    e = value.owner
    if not isinstance(e, math.ExpOp):
        return None
    d = e.operand.owner
    if not isinstance(d, arith.SubfOp) or d.rhs is not m:
        return None
    return d.lhs


def match_softmax(kernel: loop.KernelOp) -> SoftmaxNest | str:
    """The kernel as a row softmax (SoftmaxNest) or a one-line reason it is not one."""
    if len(kernel.outs) != 1:
        return "not one out"
    rows: list[SSAValue] = []
    block = kernel.body.block
    while True:
        loops = [o for o in block.ops if isinstance(o, loop.ForOp)]
        if len(loops) == 3:
            break
        if len(loops) != 1 or loops[0].is_reduce:
            return "not a chain of free loops around a row's max, sum and store"
        rows.append(loops[0].iv)
        block = loops[0].body.block
    mx, sm, st = loops
    if not (mx.is_reduce and sm.is_reduce and not st.is_reduce):
        return "the row is not a max reduce, a sum reduce and a free loop"
    mx_acc, sm_acc = mx.body.block.last_op, sm.body.block.last_op
    assert isinstance(mx_acc, loop.AccumulateOp) and isinstance(sm_acc, loop.AccumulateOp)
    kinds = ([k.data for k in mx_acc.kinds], [k.data for k in sm_acc.kinds])
    if kinds != ([loop.CombineKind.MAX], [loop.CombineKind.ADD]):
        return "the row reduces are not one max and one sum"
    extent = mx.extent.data
    if sm.extent.data != extent or st.extent.data != extent:
        return "the row's loops differ in extent"
    stores = [o for o in st.body.block.ops if isinstance(o, loop.StoreOp)]
    if len(stores) != 1 or stores[0].memref is not kernel.outs[0]:
        return "the row's free loop does not store the out once"
    store = stores[0]
    if list(store.indices) != [*rows, st.iv] or store.map.data != AffineMap.identity(len(rows) + 1):
        return "the softmax is not stored at [rows.., column]"
    div = store.value.owner
    if not isinstance(div, arith.DivfOp) or div.rhs is not sm.res[0]:
        return "the stored value is not a quotient by the row's sum"
    x3 = _exp_minus(div.lhs, mx.res[0])
    x2 = _exp_minus(sm_acc.values[0], mx.res[0])
    if x3 is None or x2 is None:
        return "not exp(x - max) over the row's sum"
    memo: dict = {}
    if not (_same(mx_acc.values[0], mx.iv, x3, st.iv, memo) and _same(x2, sm.iv, x3, st.iv, memo)):
        return "the max, the sum and the store see different scores"
    return SoftmaxNest(kernel, rows, st.iv, x3, extent)


def _weighed_load(red: loop.ForOp, buffer: SSAValue) -> tuple[loop.LoadOp, SSAValue] | None:
    """(the load of `buffer`, the other factor) if `red` sums `buffer[.., iv] * w`."""
    acc = red.body.block.last_op
    if not isinstance(acc, loop.AccumulateOp) or len(acc.values) != 1 or acc.kinds.data[0].data != loop.CombineKind.ADD:
        return None
    prod = acc.values[0].owner
    if not isinstance(prod, arith.MulfOp):
        return None
    loads = [o for o in red.body.walk() if isinstance(o, loop.LoadOp) and o.memref is buffer]
    if len(loads) != 1:
        return None
    load = loads[0]
    if prod.lhs is load.result:
        other = prod.rhs
    elif prod.rhs is load.result:
        other = prod.lhs
    else:
        return None
    amap = load.map.data
    last = amap.results[-1]
    if not isinstance(last, AffineDimExpr) or load.indices[last.position] is not red.iv:
        return None
    if any(load.indices[d] is red.iv for e in amap.results[:-1] for d in _dims(e)):
        return None
    seen, work = set(), [other]
    while work:  # the other factor must not read the probabilities
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        if v is load.result:
            return None
        if isinstance(v.owner, Operation) and red.is_ancestor(v.owner):
            work.extend(v.owner.operands)
    return load, other


def _dims(expr) -> set[int]:
    if isinstance(expr, AffineDimExpr):
        return {expr.position}
    return set().union(*(_dims(e) for e in (getattr(expr, "lhs", None), getattr(expr, "rhs", None)) if e is not None))


def _index_value(load: loop.LoadOp, position: int, block: Block) -> SSAValue:
    """Index `position` of `load` as an SSA value (an affine.apply appended to `block` unless it is
    one of the load's operands)."""
    amap = load.map.data
    expr = amap.results[position]
    if isinstance(expr, AffineDimExpr):
        return load.indices[expr.position]
    # only the indices the expression reads: the load's other operands include the reduce's own
    # index (which the score region does not have: the reduce is replaced), e.g. where the
    # probabilities are read at [(b*h) floordiv h, (b*h) mod h, l, s] of a merged b*h axis
    used = sorted(_dims(expr))
    renumber = [AffineExpr.dimension(used.index(d)) if d in used else AffineExpr.constant(0)
                for d in range(amap.num_dims)]  # fmt: skip
    expr = expr.replace_dims_and_symbols(renumber, [])
    indices = [load.indices[d] for d in used]
    apply = affine.ApplyOp(indices, AffineMapAttr(AffineMap(len(used), 0, (expr,))))
    block.add_op(apply)
    return apply.result


def _applied_indices(root: Operation) -> int:
    """How many index operands of the loads and stores under `root` are affine.apply results."""
    accesses = [o for o in root.walk() if isinstance(o, (loop.LoadOp, loop.StoreOp))]
    return sum(isinstance(v.owner, affine.ApplyOp) for o in accesses for v in o.indices)


@dataclass(frozen=True)
class FuseAttention(ModulePass):
    """Fuse the scores, softmax and P @ V kernels of an attention into one attn.softmax_reduce."""

    name = "fuse-attention"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for main in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            changed = True
            while changed:
                changed = self._fuse_one(main)

    def _fuse_one(self, main: func.FuncOp) -> bool:
        intermediates = intermediate_buffers(main)
        kernels = [k for k in main.body.block.ops if isinstance(k, loop.KernelOp)]
        writer = {b: k for k in kernels for b in k.outs}
        readers: dict[SSAValue, set] = {}
        for k in kernels:
            for b in k.ins:
                readers.setdefault(b, set()).add(k)
        for consumer in kernels:
            for red in [o for o in consumer.walk() if isinstance(o, loop.ForOp) and o.is_reduce]:
                for buffer in consumer.ins:
                    softmax = writer.get(buffer)
                    if buffer not in intermediates or softmax is None or readers[buffer] != {consumer}:
                        continue
                    if _weighed_load(red, buffer) is None:
                        continue
                    nest = match_softmax(softmax)
                    name = f"@{softmax.sym_name.data} into @{consumer.sym_name.data}"
                    if isinstance(nest, str):
                        LOG.info(f"fuse-attention: keep {name}: {nest}")
                        continue
                    if nest.extent != red.extent.data:
                        LOG.info(f"fuse-attention: keep {name}: the softmax row and the reduce differ in length")
                        continue
                    fused = self._fuse(consumer, red, buffer, nest, writer, readers, intermediates)
                    if isinstance(fused, str):
                        LOG.info(f"fuse-attention: keep {name}: {fused}")
                        continue
                    main.body.block.insert_op_before(fused, consumer)
                    LOG.info(f"fuse-attention: fuse {name} (with the scores) into one attn.softmax_reduce")
                    dropped = [consumer, softmax]
                    for k in kernels:  # the scores, now inlined, if nothing else reads them
                        if k not in dropped and any(b in softmax.ins for b in k.outs) and all(
                            b in intermediates and readers.get(b, set()) <= {softmax} and b not in fused.ins
                            for b in k.outs
                        ):  # fmt: skip
                            dropped.append(k)
                    for k in dropped:
                        outs = [b for b in k.outs if k is not consumer]
                        k.detach()
                        k.erase()
                        for b in outs:
                            if not b.uses and isinstance(b.owner, memref.AllocOp):
                                b.owner.detach()
                                b.owner.erase()
                    return True
        return False

    def _fuse(self, consumer: loop.KernelOp, red: loop.ForOp, buffer: SSAValue, nest: SoftmaxNest,
              writer: dict, readers: dict, intermediates: set) -> loop.KernelOp | str:  # fmt: skip
        index = list(consumer.walk()).index(red)
        candidate = consumer.clone()
        red = list(candidate.walk())[index]
        assert isinstance(red, loop.ForOp)
        load, other = _weighed_load(red, buffer)  # type: ignore[misc]
        # value region: the other factor at key s
        value_block = Block(arg_types=[IndexType()])
        value_block.args[0].name_hint = "s"
        vmap: dict[SSAValue, SSAValue] = {red.iv: value_block.args[0]}
        clone_values([other], vmap, value_block, red)
        value_block.add_op(attn.YieldOp(vmap.get(other, other)))
        # score region: the softmax's x at the probability's row and key s
        score_block = Block(arg_types=[IndexType()])
        score_block.args[0].name_hint = "s"
        smap: dict[SSAValue, SSAValue] = {nest.column: score_block.args[0]}
        for position, row in enumerate(nest.rows):
            smap[row] = _index_value(load, position, score_block)
        clone_values([nest.score], smap, score_block, nest.kernel)
        score = smap.get(nest.score, nest.score)
        score_block.add_op(attn.YieldOp(score))
        for o in list(score_block.ops):  # the scores: inline their producer nest
            if not isinstance(o, loop.LoadOp) or o.memref not in intermediates:
                continue
            producer = writer.get(o.memref)
            if producer is None or not readers.get(o.memref, set()) <= {nest.kernel}:
                continue
            pnest = match_producer(producer)
            if pnest is not None:
                inline_at(pnest, o)
        for o in score_block.walk():
            if isinstance(o, loop.LoadOp) and o.memref is buffer:
                return "the scores read the probabilities"
        op = attn.SoftmaxReduceOp(red.extent.data, Region(score_block), Region(value_block))
        op.result.name_hint = red.res[0].name_hint
        Rewriter.replace_op(red, op)
        # the inlined scores index by applies of the row applies above: fold until the loads read
        # loop indices (one fold takes one level), while that still changes something
        applied, before = _applied_indices(candidate), None
        while applied and applied != before:
            fold_index_ops(candidate)
            applied, before = _applied_indices(candidate), applied
        for o in [o for o in candidate.walk() if isinstance(o, (loop.LoadOp, loop.StoreOp))]:
            simple = simplify_map(o.map.data, list(o.indices))  # e.g. (b * 4 + h) floordiv 4 -> b
            if simple != o.map.data:
                with_map(o, list(o.indices), simple)
        drop_unused_indices(candidate)
        used = []
        for o in candidate.walk():
            if isinstance(o, (loop.LoadOp, loop.StoreOp)) and o.memref not in used:
                used.append(o.memref)
        ins = [b for b in used if b not in candidate.outs]
        fused = loop.KernelOp(consumer.sym_name.data, ins, list(candidate.outs), candidate.detach_region(0))
        fused.attributes |= candidate.attributes
        candidate.erase()
        # the ins are every buffer the fused body reads; any other value from outside (an index
        # the rewrite failed to map into the regions) is a bug: decline, logged, rather than
        # leave a kernel that fails verification
        try:
            name = f"'loop.kernel' @{fused.sym_name.data}"
            loop.verify_kernel_buffers(fused, name, fused.ins, fused.outs)
        except VerifyException as e:
            fused.erase(safe_erase=False)
            return f"the fused kernel would read a value from outside it ({e})"
        why = match_attention(fused)
        if not isinstance(why, str):
            why = flash_declines(why)
        if isinstance(why, str):
            fused.erase()
            return why
        return fused
