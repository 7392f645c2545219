"""When vectorize-access may rewrite a loop (the rules in vectorize_access.py's docstring).

`loop_shape(loop)` reads the element index of a `kernel.for` (its bounds and step),
`analyse_body(loop, shape)` classifies every access in its body, `thread_index_covers` and
`check_ownership` decide whether the block still covers the loop's elements when threads own
other ones; each raises `Decline` with the reason a loop stays scalar.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IntegerAttr, MemRefType, VectorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from dpl.dialects import kernel as K
from dpl.transforms.tile.common import const_index, linear

W = K.VECTOR_WIDTH


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


def thread_index_covers(lb: SSAValue, step: int, func: K.KernelFuncOp) -> bool:
    """`lb` takes exactly the values [0, step) across the block's threads."""
    owner = lb.owner
    n = func.num_threads
    if isinstance(owner, K.ThreadIdOp):
        return func.block_extents["xyz".index(owner.dim.data.value)] == step
    if isinstance(owner, K.LaneIdOp):
        return step == 32 and n % 32 == 0
    if isinstance(owner, K.WarpIdOp):
        return n % 32 == 0 and step == n // 32
    if isinstance(owner, arith.RemUIOp) and isinstance(owner.lhs.owner, K.ThreadIdOp):
        # `%tid mod S` (the lane of rows packed a warp each) takes [0, S) where S divides the extent
        extent = func.block_extents["xyz".index(owner.lhs.owner.dim.data.value)]
        divisor = owner.rhs.owner
        return (isinstance(divisor, arith.ConstantOp) and isinstance(divisor.value, IntegerAttr)
                and divisor.value.value.data == step and extent % step == 0)  # fmt: skip
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


def check_ownership(loop: K.ForOp, func: K.KernelFuncOp) -> None:
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


def loop_shape(loop: K.ForOp) -> Shape:
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
    uses_iv = iv in op.indices and bool(amap.results)  # (a 0-d buffer's element is one for every lane)
    for v in op.indices:
        if v is not iv and v in varying:
            raise Decline(f"{what} has an index computed from the loop variable")
    if not uses_iv:
        if isinstance(op, K.StoreOp):
            raise Decline(f"{what} stores to one element on every iteration")
        return Access(op, None)
    if isinstance(op, K.LoadOp) and op.gather is not None:
        return Access(op, None)  # read once per lane (vectorize-pointwise's `tile.gather`)
    if not isinstance(t.element_type, Float32Type):
        raise Decline(f"{what} is of {t.element_type}, not f32")
    if isinstance(op.memref.owner, K.AllocaOp):
        raise Decline(f"{what} is to a register array")
    if not (K.is_global(t) or K.is_shared(t)):
        raise Decline(f"{what} is to a buffer neither global nor shared")
    shape = t.get_shape()
    if len(shape) > 1 and shape[-1] % W:  # a 1-D buffer is one row from its aligned base
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


def guarded_stores(guard: K.IfOp, varying: set[SSAValue]) -> list[K.StoreOp]:
    """The stores of `guard`, a store guard that the float4 loop keeps as it is: no else
    branch, a condition that does not vary with the loop variable (a row inside its buffer or
    not: one guard for the 4 lanes), and only stores (and the terminator) inside."""
    if guard.else_region.blocks:
        raise Decline("the body holds 'kernel.if' with an else branch")
    if guard.cond in varying:
        raise Decline("a guard's condition varies with the loop variable (its lanes' guards differ)")
    body = list(guard.then_region.block.ops)
    if not all(isinstance(o, K.StoreOp) for o in body[:-1]) or not isinstance(body[-1], K.YieldOp):
        raise Decline("the body holds 'kernel.if' guarding more than stores")
    return body[:-1]  # type: ignore[return-value]


def analyse_body(loop: K.ForOp, shape: Shape) -> dict[Operation, Access]:
    iv = shape.elem
    varying: set[SSAValue] = {iv}
    accesses: dict[Operation, Access] = {}
    for op in loop.body.block.ops:
        if op in shape.index_ops:
            continue
        if isinstance(op, K.IfOp):
            for store in guarded_stores(op, varying):
                accesses[store] = _classify(store, iv, varying)
            continue
        if op.regions or not (op.name in ALLOWED or op.name.startswith(("arith.", "math."))):
            raise Decline(f"the body holds '{op.name}'")
        if isinstance(op, K.LoadOp | K.StoreOp):
            moved = op.result.type if isinstance(op, K.LoadOp) else op.value.type
            if isinstance(moved, VectorType):
                raise Decline("the loop is already vectorised")
            accesses[op] = _classify(op, iv, varying)
            if isinstance(op, K.LoadOp) and op.mask in varying and accesses[op].vector_map is not None:
                raise Decline("a masked load's mask varies with the loop variable (its lanes' masks differ)")
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
