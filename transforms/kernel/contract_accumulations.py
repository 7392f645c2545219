"""contract-accumulations: a product added into a reduction's accumulator becomes one `math.fma`.

dpl compiles CUDA with NVRTC's `--fmad=false` (backend/runtime.py): nothing is contracted
behind the IR's back, so `a - b * c` rounds the product whether fusion computes it inline or
reads it from a buffer another kernel wrote. (With contraction left to NVRTC, a value computed
in two kernels, once as an fmaf and once from the rounded product, differed in the last bit, and
an argmax that compared it with a maximum from the other kernel found no match.) Fused
multiply-adds are written in the IR instead, where they cannot change such comparisons: in the
sums that only one loop ever forms, a reduction's accumulator. This pass finds them:

- a register-array accumulator: `%a = kernel.load %acc[i]`, a sum of `%a` and other terms,
  `kernel.store %sum, %acc[i]` at the same place of the same `kernel.alloca` (a matmul's
  register tile after accumulate-in-place, flash attention's scores);
- the value a `kernel.accumulate add` folds into its loop's result, when it is a sum (the tree
  vectorize-access builds of a float4's four products);
- a `kernel.accumulate add` of a bare product (`acc += x * y`, RMSNorm's sum of squares): the
  loop's accumulators first move into a register array (accumulate-in-place's
  `hold_in_registers`: `acc[0] = acc[0] + x * y`), which is the first form.

In each such sum, every `arith.addf` with an operand that is an `arith.mulf` used only there
becomes `math.fma %x, %y, %other` (the right-hand product first, when both are products):

    %p = arith.mulf %x, %y : f32                          %s = math.fma %x, %y, %a : f32
    %s = arith.addf %a, %p : f32              ->          kernel.store %s, %acc[0]
    kernel.store %s, %acc[0]

f32 and f64 scalars only. Declined (left as they are): a sum stored anywhere but where its
accumulator was loaded from (an elementwise `a + b * c`, whose value another kernel may compute
again), a store to shared or global memory, a product with other uses, other combiners, and a
bare product accumulated by a loop whose results differ in type (an argmax's value and index).
Builders of their own multiply-accumulate chains (flash attention's online softmax) write
`math.fma` themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, Float64Type, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import kernel as K
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.accumulate_in_place import hold_in_registers
from dpl.transforms.tile.common import LOG


def _single_use(value: SSAValue, kind: type[Operation]) -> Operation | None:
    """The op of `kind` defining `value`, when `value` is a f32/f64 scalar used once."""
    owner = value.owner
    if isinstance(owner, kind) and value.has_one_use() and isinstance(value.type, Float32Type | Float64Type):
        return owner
    return None


def _sum_terms(root: arith.AddfOp) -> tuple[list[arith.AddfOp], list[SSAValue]]:
    """The addfs of the sum rooted at `root` (its operands that are addfs used once, recursively,
    in the same block) and the sum's other terms."""
    adds, terms, todo = [], [], [root]
    while todo:
        add = todo.pop()
        adds.append(add)
        for v in (add.lhs, add.rhs):
            inner = _single_use(v, arith.AddfOp)
            if inner is not None and inner.parent is root.parent:
                todo.append(inner)
            else:
                terms.append(v)
    return adds, terms


def _same_place(load: Operation, store: K.StoreOp) -> bool:
    return (
        isinstance(load, K.LoadOp) and load.mask is None and load.gather is None
        and load.memref == store.memref and load.map == store.map
        and tuple(load.indices) == tuple(store.indices)
    )  # fmt: skip


def _accumulates_a_product(acc: K.AccumulateOp) -> bool:
    return any(
        kind.data == CombineKind.ADD and _single_use(value, arith.MulfOp) is not None
        for kind, value in zip(acc.kinds, acc.values)
    )  # fmt: skip


def accumulations(func: K.KernelFuncOp) -> list[arith.AddfOp]:
    """The addfs of `func` that sum into a reduction's accumulator (the docstring's forms, the
    bare product already moved into a register array)."""
    found: list[arith.AddfOp] = []
    for op in func.walk():
        if isinstance(op, K.StoreOp) and isinstance(op.memref.owner, K.AllocaOp):
            root = _single_use(op.value, arith.AddfOp)
            if root is None:
                continue
            adds, terms = _sum_terms(root)
            if any(_same_place(t.owner, op) for t in terms):
                found += adds
        elif isinstance(op, K.AccumulateOp):
            for kind, value in zip(op.kinds, op.values):
                root = _single_use(value, arith.AddfOp)
                if kind.data == CombineKind.ADD and root is not None:
                    found += _sum_terms(root)[0]
    return found


def contract(add: arith.AddfOp) -> bool:
    """Replace `add` by a math.fma of its single-use product operand (the rhs first); False when
    neither operand is one."""
    for product, other in ((add.rhs, add.lhs), (add.lhs, add.rhs)):
        mul = _single_use(product, arith.MulfOp)
        if mul is not None and mul.parent is add.parent:
            fma = math.FmaOp(mul.lhs, mul.rhs, other)
            fma.result.name_hint = add.result.name_hint
            Rewriter.replace_op(add, fma)
            Rewriter.erase_op(mul)
            return True
    return False


@dataclass(frozen=True)
class ContractAccumulations(ModulePass):
    """Products added into a reduction's accumulator (a register array's load-add-store at one
    place, a `kernel.accumulate add` of a sum or of a product) become `math.fma`."""

    name = "contract-accumulations"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, K.KernelFuncOp)]:
            for acc in [a for a in func.walk() if isinstance(a, K.AccumulateOp) and _accumulates_a_product(a)]:
                loop = acc.parent_op()
                assert isinstance(loop, K.ForOp)
                hold_in_registers(loop)
            count = sum(contract(add) for add in accumulations(func))
            if count:
                LOG.info("contract-accumulations: @%s: %d multiply-adds -> math.fma", func.sym_name.data, count)
            else:
                LOG.info("contract-accumulations: @%s: declined: no product is added into an accumulator",
                         func.sym_name.data)  # fmt: skip
