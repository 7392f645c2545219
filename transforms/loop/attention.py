"""Reading an attention loop nest (a `loop.kernel` around `attn.softmax_reduce`) and cloning parts
of it: shared by fuse-attention (which checks that what it builds can be read back) and
tile-attention (which schedules what it reads).

An attention nest is a chain of free loops whose innermost body holds one `attn.softmax_reduce`
over the keys s and one store of (a function of) its result. Its score region computes one
contraction `x = sum_e query(e) * key(s, e)` (a reduce loop whose body multiplies a value that
does not depend on s by one that does) followed by an epilogue on x (scale, mask); its value
region a value of (s, column). `match_attention` names the loops: the query row (the free loop
the query operand varies along and the key operand does not), the value column (the free loop
the value varies along and the score does not) and the batch loops (the rest), or says in one
line why the kernel is not such a nest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, i1
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineDimExpr, AffineExpr

from dpl.dialects import attn, loop


@dataclass
class AttentionNest:
    kernel: loop.KernelOp
    loops: list[loop.ForOp]
    """The free loop chain, outermost first."""
    op: attn.SoftmaxReduceOp
    store: loop.StoreOp
    contraction: loop.ForOp
    """The reduce loop over the depth e in the score region."""
    query: SSAValue
    """The query operand of the contraction's product (does not depend on the key)."""
    key: SSAValue
    row: loop.ForOp | None
    """The query-row loop: the innermost free loop the query varies along and the key does not
    (None: there is none, one row). Outer such loops (the heads of a multi-query attention,
    whose key and value have one head for all) are batch loops."""
    column: loop.ForOp | None
    """The value-column loop (None: one column)."""
    batch: list[loop.ForOp]

    @property
    def sizes(self) -> dict[str, int]:
        return {
            "queries": self.row.extent.data if self.row else 1,
            "keys": self.op.extent.data,
            "depth": self.contraction.extent.data,
            "value_depth": self.column.extent.data if self.column else 1,
        }


def depends_on(value: SSAValue, memo: dict[SSAValue, frozenset]) -> frozenset:
    """The block arguments (loop indices, region arguments) `value` depends on, through the ops
    that compute it and, for an op with regions, everything its regions use."""
    if value in memo:
        return memo[value]
    memo[value] = frozenset()
    if isinstance(value, BlockArgument):
        result = frozenset({value})
    else:
        owner = value.owner
        assert isinstance(owner, Operation)
        found: set = set()
        for inner in owner.walk():
            for o in _operands_read(inner):
                found |= depends_on(o, memo)
        # arguments of the op's own regions are not outside dependencies
        inside = {a for inner in owner.walk() for r in inner.regions for b in r.blocks for a in b.args}
        result = frozenset(found - inside)
    memo[value] = result
    return result


def _operands_read(op: Operation) -> list[SSAValue]:
    """The operands whose values `op` reads: for a load or store, the index operands its map
    does not use are left out (folding index maps leaves such operands in place)."""
    if isinstance(op, loop.LoadOp | loop.StoreOp):
        amap = op.map.data
        used = {d.position for e in amap.results for d in _dim_exprs(e)}
        indices = [v for i, v in enumerate(op.indices) if i in used]
        head = [op.value] if isinstance(op, loop.StoreOp) else []
        return [*head, op.memref, *indices]
    return list(op.operands)


def _dim_exprs(e: AffineExpr) -> list[AffineDimExpr]:
    if isinstance(e, AffineDimExpr):
        return [e]
    if isinstance(e, AffineBinaryOpExpr):
        return [*_dim_exprs(e.lhs), *_dim_exprs(e.rhs)]
    return []


def _free_chain(kernel: loop.KernelOp) -> tuple[list[loop.ForOp], Block] | str:
    loops: list[loop.ForOp] = []
    block = kernel.body.block
    while True:
        frees = [o for o in block.ops if isinstance(o, loop.ForOp) and not o.is_reduce]
        if not frees:
            return loops, block
        if len(frees) != 1 or any(isinstance(o, loop.ForOp) and o.is_reduce for o in block.ops):
            return "not one chain of free loops"
        loops.append(frees[0])
        block = frees[0].body.block


def match_attention(kernel: loop.KernelOp) -> AttentionNest | str:
    """The kernel as an AttentionNest, or a one-line reason it is not one."""
    chain = _free_chain(kernel)
    if isinstance(chain, str):
        return chain
    loops, inner = chain
    ops = [o for o in inner.ops if isinstance(o, attn.SoftmaxReduceOp)]
    stores = [o for o in kernel.walk() if isinstance(o, loop.StoreOp)]
    if len(ops) != 1 or ops[0].parent_block() is not inner:
        return "no attn.softmax_reduce in the innermost free loop"
    op = ops[0]
    if len(stores) != 1 or stores[0].parent_block() is not inner:
        return "not one store of the attention's result"
    if any(o.regions for o in inner.ops if o is not op):
        return "a loop next to the attn.softmax_reduce"
    store = stores[0]
    memo: dict[SSAValue, frozenset] = {}
    if op.result not in _values_used(store.value, memo):
        return "the store does not depend on the attention's result"
    s = op.score.block.args[0]
    reds = [o for o in op.score.block.ops if isinstance(o, loop.ForOp)]
    if len(reds) != 1 or not reds[0].is_reduce or len(reds[0].res) != 1:
        return "the score region is not one contraction and an epilogue"
    red = reds[0]
    acc = red.body.block.last_op
    assert isinstance(acc, loop.AccumulateOp)
    prod = acc.values[0].owner
    if acc.kinds.data[0].data != loop.CombineKind.ADD or not isinstance(prod, arith.MulfOp):
        return "the score's reduce is not a sum of products"
    if any(isinstance(o, loop.ForOp) for o in red.body.walk() if o is not red):
        return "a loop inside the score's contraction"
    sides = [(v, s in depends_on(v, memo)) for v in (prod.lhs, prod.rhs)]
    if sorted(k for _, k in sides) != [False, True]:
        return "the score's product is not a query operand times a key operand"
    query = next(v for v, k in sides if not k)
    key = next(v for v, k in sides if k)
    e = red.iv
    if e not in depends_on(query, memo) or e not in depends_on(key, memo):
        return "an operand of the score's product does not vary along the depth"
    if red.res[0] not in _values_used(op.score_value, memo):
        return "the score does not depend on the contraction"
    ivs = {f.iv: f for f in loops}
    q_free = depends_on(query, memo) & set(ivs)
    k_free = depends_on(key, memo) & set(ivs)
    rows = [f for f in loops if f.iv in q_free - k_free]
    row = rows[-1] if rows else None  # the innermost: the others are batch loops the key is shared along
    score_free = depends_on(op.score_value, memo) & set(ivs)
    value_free = depends_on(op.value_value, memo) & set(ivs)
    cols = value_free - score_free
    if len(cols) > 1:
        return "the value varies along two free loops the score does not"
    column = ivs[next(iter(cols))] if cols else None
    if row is not None and row.iv in value_free:
        return "the value depends on the query row"
    if row is not None and row is column:
        return "the query row and the value column are one loop"
    if column is not None and column.iv in score_free:
        return "the score depends on the value column"
    for o in red.body.block.ops:  # the contraction body: query side, key side, product
        if o is not prod and not isinstance(o, loop.AccumulateOp) and isinstance(o, loop.StoreOp):
            return "a store inside the score's contraction"
    batch = [f for f in loops if f is not row and f is not column]
    return AttentionNest(kernel, loops, op, store, red, query, key, row, column, batch)


#: The largest depth (and value depth) the flash kernel stages: its query, key and value tiles at
#: the default 64 rows and 64 keys then fill at most 200 KiB of the 227 KiB of shared memory.
MAX_FLASH_DEPTH = 256


def flash_declines(nest: AttentionNest) -> str | None:
    """Why the flash kernel (tile-attention, materialize-attention) cannot take `nest`, or None:
    it computes in f32 (every buffer f32 but boolean masks: i1 buffers that only the scores'
    epilogue loads, as `masked_fill` with a mask tensor writes them) and stages rows of at most
    MAX_FLASH_DEPTH elements."""
    buffers = [*nest.kernel.ins, *nest.kernel.outs]
    if nest.op.result.type != Float32Type() or any(
        b.type.element_type != Float32Type() and not _score_mask(nest, b) for b in buffers  # type: ignore[attr-defined]
    ):
        return "not f32 (the flash kernel computes in f32)"
    sizes = nest.sizes
    if max(sizes["depth"], sizes["value_depth"]) > MAX_FLASH_DEPTH:
        return f"head dim {max(sizes['depth'], sizes['value_depth'])} is over {MAX_FLASH_DEPTH}"
    return None


def _score_mask(nest: AttentionNest, buf: SSAValue) -> bool:
    """Whether `buf` is an i1 input that only the score region's epilogue loads (a boolean mask:
    the flash kernel evaluates that epilogue per score, the load's i1 feeding a select)."""
    if buf.type.element_type != i1 or buf in nest.kernel.outs:  # type: ignore[attr-defined]
        return False
    uses = [o for o in nest.kernel.walk() if o is not nest.kernel and buf in o.operands]
    return bool(uses) and all(
        isinstance(o, loop.LoadOp) and nest.op.score.is_ancestor(o) and not nest.contraction.is_ancestor(o)
        for o in uses
    )  # fmt: skip


def _values_used(value: SSAValue, memo: dict) -> set[SSAValue]:
    """Every SSA value `value` is computed from (itself included), through defining ops."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v.owner, Operation):
            for inner in v.owner.walk():
                work.extend(inner.operands)
    return seen


def clone_values(values: Iterable[SSAValue], mapper: dict[SSAValue, SSAValue], block: Block,
                 scope: Operation) -> None:  # fmt: skip
    """Append to `block` clones of the ops of `scope` that `values` are computed from (in program
    order, each once, operands through `mapper`, which gains their results). Block arguments
    must already be in `mapper` (or be defined outside `scope`); ops with regions are cloned
    whole, after what their regions use from outside."""
    order = {o: i for i, o in enumerate(scope.walk())}
    needed: set[Operation] = set()

    def need(v: SSAValue) -> None:
        if v in mapper or isinstance(v, BlockArgument):
            return
        owner = v.owner
        assert isinstance(owner, Operation)
        if owner in needed or owner not in order:
            return
        needed.add(owner)
        inside = {a for inner in owner.walk() for r in inner.regions for b in r.blocks for a in b.args}
        inner_results = {r for inner in owner.walk() for r in inner.results}
        for inner in owner.walk():
            for o in inner.operands:
                if o not in inside and o not in inner_results:
                    need(o)

    for v in values:
        need(v)
    for o in sorted(needed, key=order.__getitem__):
        new = o.clone(value_mapper=mapper)
        block.add_op(new)
        for old, fresh in zip(o.results, new.results):
            mapper[old] = fresh
