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
- the body holds only loads, stores, `arith`/`math` and the loop terminator, and a masked load
  (`kernel.load ... if %in`) indexed by `%i` has a mask that does not vary with `%i` (a row
  inside or outside its buffer: the float4 keeps the mask; one per element would differ by lane);
  likewise stores may sit in a `kernel.if %in` (no else) whose condition does not vary with `%i`
  and which holds only stores (a packed row's store past the last row: the float4 store keeps
  the guard). H200 (2026-11-30, session 28, bench/results/session28/tools/ab28r.py, guarded
  stores scalar -> float4, us): LayerNorm over 32 of 333333 x 32 (8 lanes a row) 26.9 -> 23.5,
  RMSNorm over 32 of 16 x 11 x 191 x 32 4.2 -> 3.5.

Otherwise the loop is left scalar and the reason is logged to `dpl.passes`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import kernel as K
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.vectorize_legality import (
    W,
    Access,
    Decline,
    Shape,
    analyse_body,
    check_ownership,
    guarded_stores,
    loop_shape,
    thread_index_covers,
)

LOG = logging.getLogger("dpl.passes")

LANES = "xyzw"


def _lane_name(v: SSAValue, k: int) -> str | None:
    """`%a` -> `%a_x`, `%a_y`, ... (the float4 field names)."""
    return f"{v.name_hint}_{LANES[k]}" if v.name_hint else None


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
        self.target = self.block  # where `add` puts ops: the loop body, or a store guard's body
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
        self.target.add_op(op)
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
            elif isinstance(op, K.IfOp):
                self.guard(op)
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
            mask = None if op.mask is None else self.lane(op.mask, 0)  # the same for the 4 lanes
            load = self.add(K.LoadOp(op.memref, indices, access.vector_map, vector=W, mask=mask))
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

    def guard(self, op: K.IfOp) -> None:
        """The store guard `op` again, over the same condition, its stores float4."""
        body = Block()
        self.target = body
        for store in guarded_stores(op, set()):
            self.vector_access(self.accesses[store])
        self.add(K.YieldOp())
        self.target = self.block
        self.add(K.IfOp(self.lane(op.cond, 0), Region([body])))

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
    shape = loop_shape(loop)
    lb, step = shape.lb, shape.step
    if isinstance(lb, int):
        if step != 1 or lb % W:
            raise Decline("a constant lower bound needs step 1 and a multiple of 4")
        private = True
    elif thread_index_covers(lb, step, func):
        private = False
    else:
        raise Decline(f"the lower bound is not a thread index ranging over [0, {step})")
    for res in loop.res:
        if not isinstance(res.type, Float32Type | Float64Type | IntegerType | IndexType):
            raise Decline(f"an accumulator of type {res.type}")
    accesses = analyse_body(loop, shape)
    if not private:
        check_ownership(loop, func)
    Rewriter.replace_op(loop, _Rewriter(loop, shape, accesses).rewrite())


def _shared(loop: K.ForOp, func: K.KernelFuncOp) -> bool:
    """Whether `loop` starts at a thread index that takes exactly the values [0, step) across
    the block (its iterations are spread over the block's threads)."""
    return loop.lb is not None and loop.step_const is not None and thread_index_covers(loop.lb, loop.step_const.data, func)


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

    strided_reductions: bool = False
    """With `reductions` false, still the reductions shared by a block's threads (the loop
    starts at a thread index and steps by their count: a row reduction's lanes), whose float4
    reads are coalesced; a thread's own sequential loop (a matmul's K loop) stays scalar."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            for loop in [o for o in func.body.walk() if isinstance(o, K.ForOp)]:
                if loop.res and not self.reductions and not (self.strided_reductions and _shared(loop, func)):
                    continue
                try:
                    _vectorize(loop, func)
                except Decline as why:
                    iv = loop.iv.name_hint or "?"
                    LOG.info("vectorize-access: @%s: loop %%%s stays scalar: %s",
                             func.sym_name.data, iv, why)  # fmt: skip
