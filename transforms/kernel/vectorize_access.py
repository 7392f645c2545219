"""vectorize-access: float4 loads and stores for elementwise loops over the innermost dimension.

A `kernel.for %i = %lb to N step S` whose body reads and writes `buf[..., %i]` becomes a loop
over groups of 4 elements: `kernel.for %i = %lb to N/4 step S` whose accesses are
`buf[..., %i * 4] vector 4` (one 16-byte `float4` each), with the body's scalar computation
repeated for the 4 lanes (`kernel.extract` / `kernel.pack` between the two). A load whose
lanes go straight into a store is stored as the loaded vector (smem fill loops). In a reduce
loop the 4 lanes are combined first (`(v0 + v1) + (v2 + v3)`) and accumulated once, which
reorders fp sums.

Rewritten when it is provable that:
- the upper bound N is a constant multiple of 4 and the step S a constant;
- the loop's elements stay covered: either `%lb` is a constant multiple of 4 and S = 1 (a
  thread's own sequential loop: each thread keeps its elements), or `%lb` is a thread index
  ranging over exactly [0, S) (`kernel.thread_id d` with block extent S along d, `kernel.lane_id`
  with S = 32, `kernel.warp_id` with S = warps per block), so the block still covers [0, N) but
  threads own other elements than before; then every other access in the kernel that conflicts
  with the loop's (one of them writes the same buffer) must be separated from the loop by a
  `kernel.barrier` in their common block (and around the loop-carried path if that block is in
  a loop);
- every access indexed by `%i` has it only in the innermost index, with coefficient 1, and the
  rest of that index is a multiple of 4 (other operands times multiples of 4, constants
  multiple of 4); the buffer is f32, global or shared, with an innermost extent that is a
  multiple of 4. With buffer bases 16-byte aligned (cudaMalloc'd arguments, `__align__(16)`
  static and 16-byte-offset dynamic shared memory), every group starts on a 16-byte boundary;
- a buffer the loop writes is accessed in the loop only at that one index (lanes of different
  groups never touch the same element);
- the body holds only loads, stores, `arith`/`math` and the loop terminator.

Otherwise the loop is left scalar and the reason is logged to `dpl.passes`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import kernel as K
from dpl.dialects.loop import CombineKind
from dpl.transforms.tile.common import const_index, linear

LOG = logging.getLogger("dpl.passes")

W = K.VECTOR_WIDTH
LANES = "xyzw"


def _lane_name(v: SSAValue, k: int) -> str | None:
    """`%a` -> `%a_x`, `%a_y`, ... (the float4 field names)."""
    return f"{v.name_hint}_{LANES[k]}" if v.name_hint else None


class Decline(Exception):
    """Why a loop stays scalar."""


def _dims_of(expr: AffineExpr) -> set[int]:
    found: set[int] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, AffineDimExpr):
            found.add(e.position)
        for attr in ("lhs", "rhs"):
            if hasattr(e, attr):
                stack.append(getattr(e, attr))
    return found


def _as_dims(amap: AffineMap) -> AffineMap:
    """The map with its symbols turned into dims (operand i is dim i)."""
    nd, ns = amap.num_dims, amap.num_symbols
    return amap.replace_dims_and_symbols(
        [AffineDimExpr(i) for i in range(nd)], [AffineDimExpr(nd + j) for j in range(ns)], nd + ns, 0
    )


def _describe(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "a buffer"


# ---------------------------------------------------------------------------------------------
# Who covers which elements


def _thread_index_covers(lb: SSAValue, step: int, func: K.KernelFuncOp) -> bool:
    """`lb` takes exactly the values [0, step) across the block's threads."""
    owner = lb.owner
    n = func.num_threads
    if isinstance(owner, K.ThreadIdOp):
        return func.block_extents["xyz".index(owner.dim.data.value)] == step
    if isinstance(owner, K.LaneIdOp):
        return step == 32 and n % 32 == 0
    if isinstance(owner, K.WarpIdOp):
        return n % 32 == 0 and step == n // 32
    return False


def _key(memref: SSAValue) -> object:
    """Buffers that may overlap share a key: all dynamic shared views are one."""
    owner = memref.owner
    if isinstance(owner, K.SmemOp) and owner.is_dynamic:
        return "dynamic smem"
    return memref


def _effects(op: Operation) -> tuple[set[object], set[object]]:
    """(read keys, written keys) of one op (not its regions)."""
    if isinstance(op, K.LoadOp):
        return {_key(op.memref)}, set()
    if isinstance(op, K.StoreOp):
        return set(), {_key(op.memref)}
    if isinstance(op, K.CpAsyncOp | K.TmaLoadOp):
        return {_key(op.src)}, {_key(op.dst)}
    return set(), set()


def _in_loop_body(block: Block, func: K.KernelFuncOp) -> bool:
    parent = block.parent_op()
    while parent is not None and parent is not func:
        if isinstance(parent, K.ForOp):
            return True
        parent = parent.parent_op()
    return False


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def _barrier_separated(a: Operation, b: Operation, func: K.KernelFuncOp) -> bool:
    """A `kernel.barrier` lies between `a` and `b` in their common block (and, if that block
    repeats in a loop, also on the way from the later back to the earlier)."""
    block = a.parent_block()
    while block is not None:
        a_anc, b_anc = _ancestor_in(a, block), _ancestor_in(b, block)
        if a_anc is not None and b_anc is not None:
            break
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    if block is None or a_anc is b_anc:
        return False
    ops = list(block.ops)
    i, j = sorted((ops.index(a_anc), ops.index(b_anc)))
    barrier = [isinstance(o, K.BarrierOp) for o in ops]
    if not any(barrier[i + 1 : j]):
        return False
    if _in_loop_body(block, func):
        return any(barrier[:i]) or any(barrier[j + 1 :])
    return True


def _check_ownership(loop: K.ForOp, func: K.KernelFuncOp) -> None:
    reads: set[object] = set()
    writes: set[object] = set()
    for op in loop.body.walk():
        r, w = _effects(op)
        reads |= r
        writes |= w
    for other in func.body.walk():
        if loop.is_ancestor(other):
            continue
        r, w = _effects(other)
        if (writes & (r | w)) or (w & reads):
            if not _barrier_separated(loop, other, func):
                raise Decline(
                    f"threads would own other elements, and a conflicting '{other.name}' "
                    "elsewhere in the kernel is not separated from the loop by a barrier"
                )


# ---------------------------------------------------------------------------------------------
# The element index


@dataclass
class Shape:
    """How a loop walks its elements: the element index `elem` (the loop variable, or
    `%t + %j * S` computed by `index_ops` at the top of a `0 to T step 1` body) takes
    `lb, lb + step, ...` below `ub`; the rewritten loop has bounds `new_bounds`."""

    elem: SSAValue
    index_ops: list[Operation]
    lb: SSAValue | int
    step: int
    ub: int
    new_bounds: tuple[SSAValue | int, int, int]


def _exact_trip_index(loop: K.ForOp) -> tuple[SSAValue, list[Operation], SSAValue, int] | None:
    """`kernel.for %j = 0 to T step 1 { %m = arith.muli %j, S; %e = arith.addi %t, %m; ...}`
    with %j used only there and %t defined outside: (%e, [muli, addi], %t, S)."""
    if loop.bound("lb") != 0 or loop.bound("step") != 1:
        return None
    iv, body = loop.iv, loop.body.block
    uses = list(iv.uses)
    if len(uses) != 1 or not isinstance(mul := uses[0].operation, arith.MuliOp):
        return None
    scale = const_index(mul.rhs if mul.lhs is iv else mul.lhs)
    mul_uses = list(mul.result.uses)
    if scale is None or mul.parent_block() is not body or len(mul_uses) != 1:
        return None
    add = mul_uses[0].operation
    if not isinstance(add, arith.AddiOp) or add.parent_block() is not body:
        return None
    start = add.rhs if add.lhs is mul.result else add.lhs
    owner = start.owner
    inside = owner.parent_op() if isinstance(owner, Block) else owner
    if inside is not None and loop.is_ancestor(inside):
        return None
    return add.result, [mul, add], start, scale


def _shape(loop: K.ForOp) -> Shape:
    ub, lb, step = loop.bound("ub"), loop.bound("lb"), loop.bound("step")
    if not isinstance(ub, int):
        raise Decline("the upper bound is not a constant")
    if not isinstance(step, int):
        raise Decline("the step is not a constant")
    exact = _exact_trip_index(loop)
    if exact is not None:
        elem, ops, start, scale = exact
        if ub % W:
            raise Decline(f"the trip count {ub} is not a multiple of 4")
        return Shape(elem, ops, start, scale, ub * scale, (0, ub // W, 1))
    if ub % W:
        raise Decline(f"the upper bound {ub} is not a multiple of 4")
    new_lb = lb // W if isinstance(lb, int) else lb
    return Shape(loop.iv, [], lb, step, ub, (new_lb, ub // W, step))


# ---------------------------------------------------------------------------------------------
# The body


ALLOWED = ("kernel.load", "kernel.store", "kernel.accumulate", "kernel.yield")


class Access:
    """A load or store of the body, with how it is rewritten."""

    def __init__(self, op: K.LoadOp | K.StoreOp, vector_map: AffineMap | None):
        self.op = op
        self.vector_map = vector_map  # None: the access does not use the loop variable


def _classify(op: K.LoadOp | K.StoreOp, iv: SSAValue, varying: set[SSAValue]) -> Access:
    t = op.memref.type
    assert isinstance(t, MemRefType)
    what = f"the access to {_describe(op.memref)}"
    amap = _as_dims(op.map.data)
    uses_iv = iv in op.indices
    for v in op.indices:
        if v is not iv and v in varying:
            raise Decline(f"{what} has an index computed from the loop variable")
    if not uses_iv:
        if isinstance(op, K.StoreOp):
            raise Decline(f"{what} stores to one element on every iteration")
        return Access(op, None)
    if not isinstance(t.element_type, Float32Type):
        raise Decline(f"{what} is of {t.element_type}, not f32")
    if isinstance(op.memref.owner, K.AllocaOp):
        raise Decline(f"{what} is to a register array")
    if not (K.is_global(t) or K.is_shared(t)):
        raise Decline(f"{what} is to a buffer neither global nor shared")
    shape = t.get_shape()
    if shape[-1] % W:
        raise Decline(f"{what} has an innermost extent {shape[-1]} that is not a multiple of 4")
    iv_dims = {p for p, v in enumerate(op.indices) if v is iv}
    for expr in amap.results[:-1]:
        if _dims_of(expr) & iv_dims:
            raise Decline(f"{what} has the loop variable outside the innermost index")
    form = linear(amap.results[-1], op.indices)
    if form is None:
        raise Decline(f"{what} has an innermost index that is not linear")
    terms, const = form
    if terms.get(iv) != 1:
        raise Decline(f"{what} has the loop variable with a coefficient other than 1")
    if const % W or any(c % W for v, c in terms.items() if v is not iv):
        raise Decline(f"{what} is not provably 16-byte aligned (offsets not multiples of 4)")
    scaled = [AffineDimExpr(p) * W if p in iv_dims else AffineDimExpr(p) for p in range(amap.num_dims)]
    return Access(op, amap.replace_dims_and_symbols(scaled, [], amap.num_dims, 0))


def _analyse_body(loop: K.ForOp, shape: Shape) -> dict[Operation, Access]:
    iv = shape.elem
    varying: set[SSAValue] = {iv}
    accesses: dict[Operation, Access] = {}
    for op in loop.body.block.ops:
        if op in shape.index_ops:
            continue
        if op.regions or not (op.name in ALLOWED or op.name.startswith(("arith.", "math."))):
            raise Decline(f"the body holds '{op.name}'")
        if isinstance(op, K.LoadOp | K.StoreOp):
            moved = op.result.type if isinstance(op, K.LoadOp) else op.value.type
            if isinstance(moved, VectorType):
                raise Decline("the loop is already vectorised")
            accesses[op] = _classify(op, iv, varying)
        if any(o in varying for o in op.operands) or (
            op in accesses and accesses[op].vector_map is not None
        ):
            varying.update(op.results)
    if not any(a.vector_map is not None for a in accesses.values()):
        raise Decline("no access is indexed by the loop variable")
    # A buffer the loop writes must be accessed at one index only.
    by_buffer: dict[SSAValue, list[Access]] = {}
    for a in accesses.values():
        by_buffer.setdefault(a.op.memref, []).append(a)
    for memref, group in by_buffer.items():
        if any(isinstance(a.op, K.StoreOp) for a in group):
            first = group[0].op
            for a in group[1:]:
                if a.op.map != first.map or list(a.op.indices) != list(first.indices):
                    raise Decline(
                        f"{_describe(memref)} is written and accessed at another index in the loop"
                    )
    return accesses


# ---------------------------------------------------------------------------------------------
# The rewrite


COMBINE = {  # kind -> (float op, integer op)
    CombineKind.ADD: (arith.AddfOp, arith.AddiOp),
    CombineKind.MUL: (arith.MulfOp, arith.MuliOp),
    CombineKind.MAX: (arith.MaximumfOp, arith.MaxSIOp),
    CombineKind.MIN: (arith.MinimumfOp, arith.MinSIOp),
}


class _Rewriter:
    def __init__(self, loop: K.ForOp, shape: Shape, accesses: dict[Operation, Access]):
        self.loop = loop
        self.shape = shape
        self.accesses = accesses
        self.block = Block(arg_types=[IndexType()])
        self.block.args[0].name_hint = loop.iv.name_hint
        # the group index (the new element index / 4), the old element index
        self.iv: SSAValue = self.block.args[0]
        self.elem = shape.elem
        mapper: dict[SSAValue, SSAValue] = {loop.iv: self.block.args[0]}
        for op in shape.index_ops:  # %t + %j * S again, over the new %j
            clone = self.add(op.clone(value_mapper=mapper))
            for old, new in zip(op.results, clone.results):
                new.name_hint = old.name_hint
                mapper[old] = new
        if shape.index_ops:
            self.iv = mapper[shape.elem]
        # value per lane for every old body value (uniform ones map to the same value 4 times)
        self.lanes: dict[SSAValue, list[SSAValue]] = {}
        self.lane_ivs: list[SSAValue] | None = None

    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def lane(self, v: SSAValue, k: int) -> SSAValue:
        if v is self.elem:
            return self.lane_iv(k)
        return self.lanes[v][k] if v in self.lanes else v

    def lane_iv(self, k: int) -> SSAValue:
        """`%i * 4 + k`: the scalar index of lane k, for uses of the loop variable as a value."""
        if self.lane_ivs is None:
            c4 = self.add(arith.ConstantOp(IntegerAttr(W, IndexType())))
            base = self.add(arith.MuliOp(self.iv, c4.results[0]))
            self.lane_ivs = [base.results[0]]
            for j in range(1, W):
                cj = self.add(arith.ConstantOp(IntegerAttr(j, IndexType())))
                self.lane_ivs.append(self.add(arith.AddiOp(base.results[0], cj.results[0])).results[0])
        return self.lane_ivs[k]

    def varies(self, op: Operation) -> bool:
        return any(
            o is self.elem or (o in self.lanes and len(set(self.lanes[o])) > 1)
            for o in op.operands
        )

    def rewrite(self) -> K.ForOp:
        for op in self.loop.body.block.ops:
            if op in self.shape.index_ops:
                continue
            access = self.accesses.get(op)
            if access is not None and access.vector_map is not None:
                self.vector_access(access)
            elif isinstance(op, K.AccumulateOp):
                self.accumulate(op)
            elif isinstance(op, K.YieldOp):
                self.add(K.YieldOp())
            elif not self.varies(op):
                clone = self.add(op.clone(value_mapper={v: self.lane(v, 0) for v in op.operands}))
                for old, new in zip(op.results, clone.results):
                    new.name_hint = old.name_hint
                    self.lanes[old] = [new] * W
            else:
                copies = []
                for k in range(W):
                    mapper = {v: self.lane(v, k) for v in op.operands}
                    clone = self.add(op.clone(value_mapper=mapper))
                    for new, old in zip(clone.results, op.results):
                        new.name_hint = _lane_name(old, k)
                    copies.append(clone)
                for n, old in enumerate(op.results):
                    self.lanes[old] = [c.results[n] for c in copies]
        for op in list(self.block.ops):  # lanes nobody reads (a vector stored as loaded)
            if isinstance(op, K.ExtractOp) and not op.result.uses:
                op.detach()
                op.erase()
        lb, ub, step = self.shape.new_bounds
        new = K.ForOp(
            lb,
            ub,
            step,
            self.block,
            [r.type for r in self.loop.res],
            self.loop.unroll.data if self.loop.unroll is not None else None,
        )
        new.attributes |= self.loop.attributes
        for old, res in zip(self.loop.res, new.res):
            res.name_hint = old.name_hint
        return new

    def vector_access(self, access: Access) -> None:
        op = access.op
        assert access.vector_map is not None
        indices = [self.iv if v is self.elem else self.lane(v, 0) for v in op.indices]
        if isinstance(op, K.LoadOp):
            load = self.add(K.LoadOp(op.memref, indices, access.vector_map, vector=W))
            vec = load.results[0]
            vec.name_hint = op.result.name_hint
            extracts = []
            for k in range(W):
                e = self.add(K.ExtractOp(vec, k))
                e.results[0].name_hint = _lane_name(op.result, k)
                extracts.append(e.results[0])
            self.lanes[op.result] = extracts
            return
        assert isinstance(op, K.StoreOp)
        values = [self.lane(op.value, k) for k in range(W)]
        owners = [v.owner for v in values]
        if (
            all(isinstance(o, K.ExtractOp) and o.lane.data == k for k, o in enumerate(owners))
            and len({o.vector for o in owners}) == 1  # type: ignore[union-attr]
        ):
            vec = owners[0].vector  # type: ignore[union-attr]
        else:
            pack = self.add(K.PackOp(values))
            if op.value.name_hint:
                pack.results[0].name_hint = op.value.name_hint + "_v"
            vec = pack.results[0]
        self.add(K.StoreOp(vec, op.memref, indices, access.vector_map))

    def accumulate(self, op: K.AccumulateOp) -> None:
        combined = []
        for kind, value in zip(op.kinds, op.values):
            float_op, int_op = COMBINE[kind.data]
            make = float_op if not isinstance(value.type, IntegerType | IndexType) else int_op
            vals = [self.lane(value, k) for k in range(W)]
            names = list(LANES)
            while len(vals) > 1:
                vals = [
                    self.add(make(vals[i], vals[i + 1])).results[0] for i in range(0, len(vals), 2)
                ]
                names = [names[i] + names[i + 1] for i in range(0, len(names), 2)]
                if value.name_hint:
                    for v, n in zip(vals, names):
                        v.name_hint = f"{value.name_hint}_{n}"
            combined.append(vals[0])
        self.add(K.AccumulateOp([k.data for k in op.kinds], combined))


def _vectorize(loop: K.ForOp, func: K.KernelFuncOp) -> None:
    shape = _shape(loop)
    lb, step = shape.lb, shape.step
    if isinstance(lb, int):
        if step != 1 or lb % W:
            raise Decline("a constant lower bound needs step 1 and a multiple of 4")
        private = True
    elif _thread_index_covers(lb, step, func):
        private = False
    else:
        raise Decline(f"the lower bound is not a thread index ranging over [0, {step})")
    for res in loop.res:
        if not isinstance(res.type, Float32Type | Float64Type | IntegerType | IndexType):
            raise Decline(f"an accumulator of type {res.type}")
    accesses = _analyse_body(loop, shape)
    if not private:
        _check_ownership(loop, func)
    new = _Rewriter(loop, shape, accesses).rewrite()
    parent = loop.parent_block()
    assert parent is not None
    parent.insert_op_before(new, loop)
    for old, res in zip(loop.res, new.res):
        old.replace_all_uses_with(res)
    loop.detach()
    loop.erase()


@dataclass(frozen=True)
class VectorizeAccess(ModulePass):
    """Turn elementwise f32 loops over the innermost index into float4 loads and stores.

    `kernel.for %i = %lb to N step S` with accesses `buf[..., %i]` becomes
    `kernel.for %i = %lb to N/4 step S` with `buf[..., %i * 4] vector 4` accesses and the body
    repeated per lane, when N % 4 == 0, the accesses are provably 16-byte aligned f32 and the
    block still covers every element (see the module docstring); otherwise logs why not.
    """

    name = "vectorize-access"

    reductions: bool = True
    """Also loops with results (reductions, whose sums the lanes regroup); the default kernel
    pipeline says false: a matmul's K loop must stay one multiply-add per product."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            for loop in [o for o in func.body.walk() if isinstance(o, K.ForOp)]:
                if loop.res and not self.reductions:
                    continue
                try:
                    _vectorize(loop, func)
                except Decline as why:
                    iv = loop.iv.name_hint or "?"
                    LOG.info("vectorize-access: @%s: loop %%%s stays scalar: %s",
                             func.sym_name.data, iv, why)  # fmt: skip
