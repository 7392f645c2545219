"""NumPy reference executor for the tensor level.

`run(module, inputs)` executes `func.func @main` op by op: each tensor-dialect op becomes a few
whole-array NumPy operations (an elementwise body is evaluated once, on whole arrays, with
`dpl.interpreters.scalar_eval`), and `func.return`'s values come back as ndarrays. Run it on f64 IR to
compare a pass's output with PyTorch in float64.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

from dpl.interpreters.affine_np import eval_expr, scatter_into
from dpl.interpreters.exec_loop import UFUNCS, identity_of
from dpl.interpreters.scalar_eval import eval_op, is_scalar_op, numpy_dtype
from dpl.dialects import loop
from dpl.dialects import tensor as T


def find_main(module: ModuleOp) -> func.FuncOp:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise ValueError("no 'func.func @main' in the module")


def _shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return tuple(v.type.get_shape())


def _dtype(v: SSAValue) -> np.dtype:
    assert isinstance(v.type, TensorType)
    return numpy_dtype(v.type.element_type)


def eval_body(block: Block, args: Sequence[np.ndarray], where: str) -> np.ndarray:
    """Evaluate a scalar body once on whole arrays; return the yielded value."""
    env: dict[SSAValue, np.ndarray] = dict(zip(block.args, args))
    for op in block.ops:
        if isinstance(op, T.YieldOp):
            return env[op.value]
        if not is_scalar_op(op):
            raise ValueError(f"{where}: cannot evaluate '{op.name}' in an elementwise body")
        env.update(zip(op.results, eval_op(op, [env[v] for v in op.operands])))
    raise ValueError(f"{where}: elementwise body has no tensor.yield")


def dense_to_numpy(value) -> np.ndarray:
    """A DenseIntOrFPElementsAttr (splat or not) as an ndarray of its type."""
    t = value.type
    values = np.array(value.get_values(), dtype=numpy_dtype(t.element_type))
    shape = tuple(t.get_shape())
    if values.size == 1:
        return np.array(np.broadcast_to(values.reshape(()), shape))
    return values.reshape(shape)


#: tensor.scatter's kinds as the loop level's combiners (their identity and ufunc).
_COMBINE = {T.ReduceKind.SUM: loop.CombineKind.ADD, T.ReduceKind.MAX: loop.CombineKind.MAX,
            T.ReduceKind.MIN: loop.CombineKind.MIN}  # fmt: skip

_REDUCE = {
    T.ReduceKind.SUM: np.sum,
    T.ReduceKind.PROD: np.prod,
    T.ReduceKind.MAX: np.max,
    T.ReduceKind.MIN: np.min,
}


def eval_tensor_op(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    """One tensor-dialect op on NumPy arrays."""
    if isinstance(op, T.ElementwiseOp):
        shape = _shape(op.result)
        idx = list(np.indices(shape, sparse=True)) if op.with_indices is not None else []
        value = eval_body(op.body.block, [*args, *idx], op.name)
        return np.array(np.broadcast_to(value, shape), dtype=_dtype(op.result))
    if isinstance(op, T.ReduceOp):
        return _REDUCE[op.kind.data](args[0], axis=tuple(op.axis_list), keepdims=True)
    if isinstance(op, T.IndexMapOp):
        shape = _shape(op.result)
        dims = list(np.indices(shape, sparse=True))
        index = tuple(np.asarray(eval_expr(e, dims), dtype=np.int64) for e in op.map.data.results)
        return np.array(np.broadcast_to(args[0][index], shape))
    if isinstance(op, T.GatherOp):
        return np.take(args[0], args[1].astype(np.int64), axis=op.axis.data)
    if isinstance(op, T.ScatterOp):
        kind = _COMBINE[op.kind.data]
        out = np.full(_shape(op.result), identity_of(kind, _dtype(op.result)))
        return scatter_into(out, UFUNCS[kind], op.axis.data, args[1], args[0])
    if isinstance(op, T.ConcatOp):
        return np.concatenate(args, axis=op.axis.data)
    if isinstance(op, T.ConstantOp):
        return dense_to_numpy(op.value)
    raise ValueError(f"the tensor executor cannot run '{op.name}'")


def _contraction(op: Operation):
    """For `sum(mul(index_map(a), index_map(b)))` with projection maps: the two index_maps.

    Such a reduce is evaluated with one `np.einsum` on `a` and `b` directly, so the broadcast
    product box of a matmul or attention is never materialised. A source dim longer than the
    box's (a slice, q.chunk(2, -1)[0] @ ...) is read up to the box's extent only.
    """
    if not isinstance(op, T.ReduceOp) or op.kind.data != T.ReduceKind.SUM:
        return None
    ew = op.input.owner
    if not isinstance(ew, T.ElementwiseOp) or len(ew.ins) != 2 or ew.with_indices is not None:
        return None
    body = list(ew.body.block.ops)
    if len(body) != 2 or body[0].name not in ("arith.mulf", "arith.muli"):
        return None
    if set(body[0].operands) != set(ew.body.block.args) or body[1].operands[0] is not body[0].results[0]:
        return None
    maps = [v.owner for v in ew.ins]
    if not all(
        isinstance(m, T.IndexMapOp)
        and all(isinstance(e, AffineDimExpr | AffineConstantExpr) for e in m.map.data.results)
        for m in maps
    ):
        return None
    return maps


def _einsum(op: T.ReduceOp, maps, args: list[np.ndarray]) -> np.ndarray:
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    box = _shape(op.input)
    subs, arrays = [], []
    for m, a in zip(maps, args):
        index, sub = [], ""
        for e in m.map.data.results:
            if isinstance(e, AffineConstantExpr):
                index.append(e.value)
            else:
                index.append(slice(0, box[e.position]))
                sub += letters[e.position]
        arrays.append(a[tuple(index)])
        subs.append(sub)
    axes = op.axis_list
    out = "".join(letters[i] for i in range(len(box)) if i not in axes)
    used = set("".join(subs))
    # dims a source never reads (pure broadcast) are summed as multiplicities or kept by broadcasting
    result = np.einsum(f"{subs[0]},{subs[1]}->{''.join(c for c in out if c in used)}", *arrays)
    shape_kept = [1 if i in axes or letters[i] not in used else n for i, n in enumerate(box)]
    result = result.reshape(shape_kept)
    missing = [i for i in axes if letters[i] not in used]
    scale = 1
    for i in missing:
        scale *= box[i]
    if scale != 1:
        result = result * scale
    return np.array(np.broadcast_to(result, _shape(op.result)))


def run(module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Execute `@main` on `inputs` (one ndarray per argument); return its results."""
    main = find_main(module)
    block = main.body.block
    if len(inputs) != len(block.args):
        raise ValueError(f"@main takes {len(block.args)} inputs, {len(inputs)} given")
    env: dict[SSAValue, np.ndarray] = {}
    for arg, value in zip(block.args, inputs):
        want = _shape(arg)
        value = np.asarray(value)
        if value.shape != want:
            raise ValueError(f"@main input {arg.index} has shape {value.shape}, expected {want}")
        env[arg] = value.astype(_dtype(arg), copy=False)
    # Which ops must run: walk backwards from the return; a contraction needs only its sources.
    ops = list(block.ops)
    contractions = {op: c for op in ops if (c := _contraction(op)) is not None}
    needed_values: set[SSAValue] = set()
    needed: set[Operation] = set()
    for op in reversed(ops):
        if not isinstance(op, func.ReturnOp) and not any(r in needed_values for r in op.results):
            continue
        needed.add(op)
        sources = [m.input for m in contractions[op]] if op in contractions else op.operands
        needed_values.update(sources)
    for op in ops:
        if isinstance(op, func.ReturnOp):
            return [env[v] for v in op.arguments]
        if op not in needed:
            continue
        if op in contractions:
            maps = contractions[op]
            env[op.results[0]] = _einsum(op, maps, [env[m.input] for m in maps])
            continue
        args = [env[v] for v in op.operands]
        if is_scalar_op(op):
            env.update(zip(op.results, eval_op(op, args)))
        else:
            env[op.results[0]] = eval_tensor_op(op, args)
    raise ValueError("@main has no func.return")
