"""The base of materialize-mma's lowering (materialize_mma.py): reading the tensor-core tile's
structure (block, thread and cell axes; the K loop holding two `mma.stage` and one `mma.dot`),
the emission primitives (index arithmetic, cached constants, kernel.for / kernel.if bodies) and
cloning tile-level ops to kernel level (affine.apply as index arithmetic; the rest kernel_twin.py);
a `{tile.masked}` access (pad-matmul's ragged tiles) gets masking.py's guards, as lower-accesses
gives it: a load reads clamped indices and selects 0 outside its buffer, a store or atomic runs
under `kernel.if %inside`.

Operand staging and the K loops build on it in mma_mainloop.py; the kernel's axes, buffers and
epilogue, and the pass, in materialize_mma.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr

from dpl.dialects import kernel as K
from dpl.dialects import loop, mma, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel import masking
from dpl.transforms.kernel.kernel_twin import kernel_twin
from dpl.transforms.kernel.lowering import affine_value

AK = tile.AxisKind
K_STEP = 32


class MmaLoweringError(ValueError):
    """A tensor-core tile materialize-mma cannot lower; the message is one line."""


class MmaKernelBuilder:
    """The structure of one tensor-core `tile.kernel` and the primitives that emit its `kernel.func`."""

    def __init__(self, kop: tile.KernelOp):
        self.kop = kop
        self.name = kop.sym_name.data
        self.tile = kop.tile
        self.old_args = [*kop.ins, *kop.outs]
        self.fblock = Block(arg_types=[a.type for a in self.old_args])
        self.ip = self.fblock
        self.vm: dict[SSAValue, SSAValue] = {}
        self.consts: dict[tuple, SSAValue] = {}
        for new, old in zip(self.fblock.args, self.old_args):
            new.name_hint = old.name_hint
            self.vm[old] = new
        self.atomic_outs: dict[SSAValue, CombineKind] = {}
        self._structure()

    # -- errors and emission --------------------------------------------------------------------

    def fail(self, what: str):
        raise MmaLoweringError(f"materialize-mma: @{self.name}: {what}")

    def emit(self, op: Operation) -> Operation:
        self.ip.add_op(op)
        return op

    def const(self, value: int | float, t: Attribute | None = None) -> SSAValue:
        t = IndexType() if t is None else t
        key = (value, str(t))
        if key not in self.consts:
            is_int = isinstance(t, IndexType | IntegerType)
            attr = IntegerAttr(int(value), t) if is_int else FloatAttr(float(value), t)
            op = arith.ConstantOp(attr)
            if isinstance(t, IndexType):
                op.result.name_hint = f"c{int(value)}" if value >= 0 else f"cm{-int(value)}"
            self.fblock.insert_op_before(op, self.fblock.first_op) if self.fblock.first_op else self.fblock.add_op(op)
            self.consts[key] = op.result
        return self.consts[key]

    def index(self, e: AffineExpr, leaves: Sequence[SSAValue], name: str = "") -> SSAValue:
        """An affine expression over `leaves` as index arithmetic."""
        return affine_value(e, leaves, self.const, self.named, name)

    def named(self, op: Operation, name: str = "") -> SSAValue:
        r = self.emit(op).results[0]
        r.name_hint = name or None
        return r

    def expr_value(self, e: AffineExpr, leaves: Sequence[SSAValue], name: str = "") -> SSAValue:
        """`index` under the name masking.py's guards call it by."""
        return self.index(e, leaves, name)

    def cmp(self, a: SSAValue, b: SSAValue | int, pred: str, name: str = "") -> SSAValue:
        return self.named(arith.CmpiOp(a, self.const(b) if isinstance(b, int) else b, pred), name)

    def block_of(self, ops_fn) -> Block:
        """A new block filled by `ops_fn()` (emission redirected into it)."""
        blk, saved = Block(), self.ip
        self.ip = blk
        try:
            ops_fn()
        finally:
            self.ip = saved
        return blk

    def if_(self, cond: SSAValue, body) -> None:
        blk = self.block_of(body)
        blk.add_op(K.YieldOp())
        self.emit(K.IfOp(cond, Region(blk)))

    def for_(self, ub: int, body, unroll: bool = False, name: str = "i") -> None:
        blk = Block(arg_types=[IndexType()])
        blk.args[0].name_hint = name
        saved = self.ip
        self.ip = blk
        try:
            body(blk.args[0])
        finally:
            self.ip = saved
        blk.add_op(K.YieldOp())
        self.emit(K.ForOp(0, ub, 1, Region(blk), unroll=0 if unroll else None))

    # -- structure ------------------------------------------------------------------------------

    def _structure(self) -> None:
        t = self.tile
        self.blocks = [(v, e) for v, e, k in t.axes if k == AK.BLOCK]
        self.threads = [(v, e) for v, e, k in t.axes if k == AK.THREAD]
        self.cells = [(v, e) for v, e, k in t.axes if k == AK.CELL]
        loops = [op for op in t.body.block.ops if isinstance(op, loop.ForOp)]
        dots = [op for op in t.walk() if isinstance(op, mma.DotOp)]
        if len(dots) != 1 or len(loops) != 1 or dots[0].parent_op() is not loops[0]:
            self.fail("needs one K loop holding one 'mma.dot'")
        self.kloop, self.dot = loops[0], dots[0]
        self.sync = self.dot.layout.data == mma.Layout.MMA_SYNC
        kops = list(self.kloop.body.block.ops)
        acc = kops[-1]
        if (
            len(kops) != 4
            or not isinstance(acc, loop.AccumulateOp)
            or list(acc.values) != [self.dot.result]
            or {self.dot.a.owner, self.dot.b.owner} != set(kops[:2])
        ):
            self.fail("the K loop must hold the two stages, the mma.dot and its accumulate only")
        self.a_stage, self.b_stage = self.dot.a.owner, self.dot.b.owner
        assert isinstance(self.a_stage, mma.StageOp) and isinstance(self.b_stage, mma.StageOp)
        self.bm, self.bn = self.a_stage.rows, self.b_stage.rows
        if self.a_stage.k != K_STEP:
            self.fail(f"stages must be {K_STEP} wide in K (one 128-byte row), got {self.a_stage.k}")
        self.nt = 1
        for _, e in self.threads:
            self.nt *= e
        self.ko_n = self.kloop.extent.data
        self.precision = self.dot.precision.data
        self.split = 2 if self.precision == mma.Precision.TF32X3 else 1
        self.chain = self.dot.chain  # MMA steps of 8 per accumulation chain (promote)
        self.small, self.large = mma.chain_terms(self.precision)
        # wgmma reads split halves from shared memory; mma.sync reads raw values and splits
        # them in registers
        self.halves = 1 if self.sync else self.split

    def deps(self, v: SSAValue, memo: dict) -> frozenset:
        """The tile axes (thread, cell and block) that `v` depends on."""
        if v in memo:
            return memo[v]
        memo[v] = frozenset()
        if isinstance(v, BlockArgument) and v.block is self.tile.body.block:
            result = frozenset({v})
        elif isinstance(v, BlockArgument):
            result = frozenset()
        else:
            owner = v.owner
            assert isinstance(owner, Operation)
            result = frozenset().union(*(self.deps(o, memo) for inner in owner.walk() for o in inner.operands))
        memo[v] = result
        return result

    # -- op cloning -----------------------------------------------------------------------------

    def clone(self, op: Operation, m: dict[SSAValue, SSAValue]) -> None:
        """Emit `op` (tile level) at kernel level with operands through `m` then `self.vm`."""

        def get(v: SSAValue) -> SSAValue:
            if v in m:
                return m[v]
            if v in self.vm:
                return self.vm[v]
            self.fail(f"a value used before it is lowered ({v.name_hint or v})")

        if isinstance(op, loop.LoadOp) and tile.is_masked(op):  # `in ? x[clamped] : 0`
            v = masking.masked_load(self, get(op.memref), op.map.data, [get(i) for i in op.indices],
                                    tile.masked_dims(op))  # fmt: skip
            v.name_hint = op.result.name_hint
            m[op.result] = v
            return
        if isinstance(op, affine.ApplyOp):
            r = self.index(op.map.data.results[0], [get(v) for v in op.mapOperands], op.result.name_hint or "")
            m[op.result] = r
            return
        new = kernel_twin(op, get)
        if new is None:
            self.fail(f"'{op.name}' is not supported in a tensor-core tile's epilogue or stages")
        if isinstance(op, tile.AtomicOp):
            self.atomic_outs[op.memref] = op.kind.data
        if isinstance(op, loop.StoreOp | tile.AtomicOp) and tile.is_masked(op):  # `if (in) store`
            memref = get(op.memref)
            inside = masking.in_bounds(self, memref.type, op.map.data, list(new.indices), tile.masked_dims(op))  # type: ignore[arg-type]
            self.if_(inside, lambda: self.emit(new))
            return
        self.emit(new)
        for old, r in zip(op.results, new.results):
            r.name_hint = old.name_hint
            m[old] = r
