"""NumPy reference executor for loop-level programs.

A loop-level program is `func.func @main(%inputs: memref...) -> (memref...)` whose body allocates
buffers (`memref.alloc`), runs `loop.kernel`s in order and returns its outputs. Buffers are
allocated poisoned with NaN, so an element no kernel writes shows up in any comparison.

A kernel runs vectorised: loop nesting depth d is NumPy axis d of every value (size 1 where a
value does not vary), so a free loop is one array operation over its whole extent and a reduce
loop is a NumPy reduction along its axis. This is exact for the loop dialect's semantics because
free iterations are independent and a kernel never reads what it writes in another iteration.
A reduce loop whose iteration space would be too large to hold at once (a big matmul) runs in
chunks along its axis, combining the partial results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import affine, func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from dpl.interpreters.affine_np import eval_map
from dpl.interpreters.scalar_eval import eval_op, is_scalar_op, numpy_dtype
from dpl.dialects import attn, loop

#: Largest number of elements an iteration space may have before a reduce loop is chunked.
CHUNK_ELEMENTS = 1 << 22

_REDUCERS = {
    loop.CombineKind.ADD: np.sum,
    loop.CombineKind.MUL: np.prod,
    loop.CombineKind.MAX: np.max,
    loop.CombineKind.MIN: np.min,
}


_IDENTITY = {
    loop.CombineKind.ADD: 0.0,
    loop.CombineKind.MUL: 1.0,
    loop.CombineKind.MAX: -np.inf,
    loop.CombineKind.MIN: np.inf,
}


def identity_of(kind: loop.CombineKind, dtype: np.dtype):
    """The kind's identity in `dtype` (integers: their extreme values for max / min)."""
    if np.issubdtype(dtype, np.integer) and kind in (loop.CombineKind.MAX, loop.CombineKind.MIN):
        info = np.iinfo(dtype)
        return np.asarray(info.min if kind == loop.CombineKind.MAX else info.max, dtype=dtype)
    return np.asarray(_IDENTITY[kind], dtype=dtype)


UFUNCS = {
    loop.CombineKind.ADD: np.add,
    loop.CombineKind.MUL: np.multiply,
    loop.CombineKind.MAX: np.maximum,
    loop.CombineKind.MIN: np.minimum,
}


def main_func(module: ModuleOp) -> func.FuncOp:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise ValueError("the module has no func.func @main")


def alloc_poisoned(memref_type: MemRefType) -> np.ndarray:
    shape = tuple(memref_type.get_shape())
    dtype = numpy_dtype(memref_type.element_type)
    if np.issubdtype(dtype, np.floating):
        return np.full(shape, np.nan, dtype=dtype)
    if dtype == np.bool_:  # no poison value: False
        return np.zeros(shape, dtype=dtype)
    return np.full(shape, np.iinfo(dtype).min, dtype=dtype)


def run(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    kernel_runners: dict[type[Operation], Callable[[Operation, dict], None]] | None = None,
) -> list[np.ndarray]:
    """Run `@main` on `inputs` (one array per argument); return its results.

    `kernel_runners` maps further kernel op classes to their runners (the tile executor adds
    `tile.kernel`); `loop.kernel` always runs here.
    """
    runners = {loop.KernelOp: run_kernel, **(kernel_runners or {})}
    main = main_func(module)
    args = main.body.block.args
    if len(inputs) != len(args):
        raise ValueError(f"@main takes {len(args)} inputs, {len(inputs)} given")
    env: dict[SSAValue, np.ndarray] = {}
    for arg, value in zip(args, inputs):
        assert isinstance(arg.type, MemRefType)
        shape = tuple(arg.type.get_shape())  # (ascontiguousarray makes a 0-d input 1-d)
        env[arg] = np.ascontiguousarray(value, dtype=numpy_dtype(arg.type.element_type)).reshape(shape)
    for op in main.body.block.ops:
        if isinstance(op, memref.AllocOp):
            env[op.memref] = alloc_poisoned(op.memref.type)
        elif isinstance(op, loop.ViewOp):  # the same memory: writes through it land in the source
            view = env[op.source].view()
            view.shape = tuple(op.result.type.get_shape())
            env[op.result] = view
        elif type(op) in runners:
            runners[type(op)](op, env)
        elif isinstance(op, memref.DeallocOp):
            pass
        elif isinstance(op, func.ReturnOp):
            return [env[v].copy() for v in op.arguments]
        else:
            raise ValueError(f"unexpected '{op.name}' at the top of @main")
    return []


def nest_depth(block: Block) -> int:
    depth = 0
    for op in block.ops:
        for region in op.regions:
            for inner in region.blocks:
                depth = max(depth, nest_depth(inner) + isinstance(op, (loop.ForOp, attn.SoftmaxReduceOp)))
    return depth


def run_kernel(kernel: loop.KernelOp, env: dict[SSAValue, np.ndarray]) -> None:
    for op in kernel.walk():
        if isinstance(op, loop.AtomicOp):  # the buffers it folds into start at the identity
            env[op.memref][...] = identity_of(op.kind.data, env[op.memref].dtype)
    _Nest(nest_depth(kernel.body.block), env).block(kernel.body.block, 0)


class _Nest:
    def __init__(self, rank: int, env: dict[SSAValue, np.ndarray]):
        self.rank = max(rank, 1)
        self.env = env
        self.extents = [1] * self.rank

    def full(self, value) -> np.ndarray:
        """A value as an array of the nest's rank (broadcastable over every loop axis)."""
        array = np.asarray(value)
        if array.ndim == 0:
            return array.reshape((1,) * self.rank)
        return array

    def block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.op(op, depth)

    def op(self, op: Operation, depth: int) -> None:
        env = self.env
        if isinstance(op, loop.ForOp):
            extent = op.extent.data
            self.extents[depth] = extent
            outer = int(np.prod(self.extents[:depth])) or 1
            step = extent
            if op.is_reduce and outer * extent > CHUNK_ELEMENTS:
                step = max(1, CHUNK_ELEMENTS // outer)
            partial: list[list[np.ndarray]] = []
            for start in range(0, extent, step):
                shape = [1] * self.rank
                shape[depth] = min(step, extent - start)
                env[op.iv] = np.arange(start, start + shape[depth]).reshape(shape)
                self.block(op.body.block, depth + 1)
                if op.is_reduce:
                    partial.append(self._reduce(op, depth, shape[depth]))
            self.extents[depth] = 1
            if op.is_reduce:
                acc = op.body.block.last_op
                assert isinstance(acc, loop.AccumulateOp)
                for i, (result, kind) in enumerate(zip(op.res, acc.kinds)):
                    parts = np.concatenate([p[i] for p in partial], axis=depth)
                    env[result] = _REDUCERS[kind.data](parts, axis=depth, keepdims=True)
        elif isinstance(op, attn.SoftmaxReduceOp):
            self._softmax_reduce(op, depth)
        elif isinstance(op, loop.LoadOp):
            idx = eval_map(op.map.data, [env[i] for i in op.indices])
            env[op.result] = self.full(env[op.memref][tuple(idx)])
        elif isinstance(op, loop.StoreOp):
            idx = eval_map(op.map.data, [env[i] for i in op.indices])
            if not idx:  # a rank-0 buffer holds one element
                env[op.memref][()] = np.asarray(env[op.value]).reshape(-1)[-1]
                return
            arrays = np.broadcast_arrays(env[op.value], *[self.full(i) for i in idx])
            env[op.memref][tuple(arrays[1:])] = arrays[0]
        elif isinstance(op, loop.AtomicOp):
            idx = eval_map(op.map.data, [env[i] for i in op.indices])
            arrays = np.broadcast_arrays(env[op.value], *[self.full(i) for i in idx])
            UFUNCS[op.kind.data].at(env[op.memref], tuple(arrays[1:]), arrays[0])
        elif isinstance(op, affine.ApplyOp):
            env[op.result] = self.full(eval_map(op.map.data, [env[v] for v in op.mapOperands])[0])
        elif isinstance(op, (loop.YieldOp, loop.AccumulateOp, attn.YieldOp)):
            pass
        elif is_scalar_op(op):
            for result, value in zip(op.results, eval_op(op, [env[o] for o in op.operands])):
                env[result] = self.full(value)
        else:
            raise ValueError(f"the loop executor does not know '{op.name}'")

    def _softmax_reduce(self, op: attn.SoftmaxReduceOp, depth: int) -> None:
        """The key axis is nest axis `depth`: both regions are evaluated over every key at once,
        then o = sum(exp(x - max x) v) / sum(exp(x - max x)) along it."""
        extent = op.extent.data
        self.extents[depth] = extent
        shape = [1] * self.rank
        shape[depth] = extent
        keys = np.arange(extent).reshape(shape)
        for region in (op.score, op.value):
            self.env[region.block.args[0]] = keys
            self.block(region.block, depth + 1)
        self.extents[depth] = 1
        x = self.full(self.env[op.score_value])
        v = self.full(self.env[op.value_value])
        target = list(np.broadcast_shapes(x.shape, v.shape))
        target[depth] = extent
        x, v = np.broadcast_to(x, target), np.broadcast_to(v, target)
        with np.errstate(invalid="ignore"):
            e = np.exp(x - np.max(x, axis=depth, keepdims=True))
            out = np.sum(e * v, axis=depth, keepdims=True) / np.sum(e, axis=depth, keepdims=True)
        self.env[op.result] = out.astype(x.dtype)

    def _reduce(self, op: loop.ForOp, depth: int, count: int) -> list[np.ndarray]:
        """The partial results of one chunk of a reduce loop, each of extent 1 along `depth`."""
        acc = op.body.block.last_op
        assert isinstance(acc, loop.AccumulateOp)
        partial = []
        for kind, value in zip(acc.kinds, acc.values):
            v = self.env[value]
            target = list(v.shape)
            target[depth] = count
            partial.append(_REDUCERS[kind.data](np.broadcast_to(v, target), axis=depth, keepdims=True))
        return partial
