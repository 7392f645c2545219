"""lower-to-loops: turn each tensor-level op into a loop-dialect kernel over buffers.

`func.func @main` on tensors becomes `func.func @main` on memrefs: arguments keep their shapes,
each op result gets a `memref.alloc`, each op becomes one `loop.kernel @k_<name>` that writes it,
and `func.return` returns the result buffers. Per op:

- `tensor.elementwise`: free loops over the result; a load per operand; the body's arith/math ops
  (index arguments become the loop variables); a store.
- `tensor.reduce`: free loops over the result (extent 1 on reduced axes), then one reduce loop per
  reduced axis around the load, folded with `loop.accumulate <kind>`; a store.
- `tensor.index_map`: free loops over the result; a load at `map(i)`; a store.
- `tensor.gather`: a load of the index, `arith.index_cast`, a load of the table row element.
- `tensor.scatter`: free loops over the source; a load of the index, clamped into the dim and
  cast; a load of the source element; a `loop.atomic` of its kind into the result (which starts
  at the combiner's identity).
- `tensor.concat`: one free nest per operand, each storing at its offset along the axis; a
  concat used only by another concat is no buffer of its own: its operands' nests store into
  the outer one's at their offsets along both axes.
- `tensor.constant`: one store per element (small literals only; the frontend passes a larger
  constant, such as a rotary table, as an argument of @main).

Every kernel but a scatter's is in producer form, ready for fuse-loops. Ops whose results
nothing reads (an empty slice's arithmetic, whose operand the frontend dropped from a concat)
are erased first: they would be kernels of their own, an empty one with a loop of extent 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tensor

_COMBINE = {
    tensor.ReduceKind.SUM: loop.CombineKind.ADD,
    tensor.ReduceKind.PROD: loop.CombineKind.MUL,
    tensor.ReduceKind.MAX: loop.CombineKind.MAX,
    tensor.ReduceKind.MIN: loop.CombineKind.MIN,
}

MAX_CONSTANT_ELEMENTS = 4096


def memref_of(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def identity(rank: int) -> AffineMap:
    return AffineMap.identity(rank)


class _Nest:
    """Builds a chain of free loops over `shape`; `body` is the innermost block."""

    def __init__(self, shape):
        self.outer = Block()
        self.ivs: list[SSAValue] = []
        block = self.outer
        for extent in shape:
            inner = Block(arg_types=[IndexType()])
            inner.args[0].name_hint = f"a{len(self.ivs)}"
            block.add_op(loop.ForOp(loop.IterKind.FREE, extent, inner))
            self.ivs.append(inner.args[0])
            block = inner
        self.body = block

    def close(self) -> Block:
        """Add the free loops' terminators and return the kernel body."""
        block = self.outer
        while True:
            loops = [op for op in block.ops if isinstance(op, loop.ForOp) and not op.is_reduce]
            if block is not self.outer:
                block.add_op(loop.YieldOp())
            if not loops:
                break
            block = loops[0].body.block
        return self.outer


def _reduce_kernel(op: tensor.ReduceOp, src: SSAValue, out: SSAValue) -> Block:
    in_shape = list(op.input.type.get_shape())
    axes = sorted(a.data for a in op.axes)
    nest = _Nest(op.result.type.get_shape())
    kind = _COMBINE[op.kind.data]
    elem = op.result.type.element_type

    def build(level: int, outer_ivs: dict[int, SSAValue]) -> Block:
        axis = axes[level]
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = f"r{level}"
        ivs = {**outer_ivs, axis: block.args[0]}
        if level + 1 < len(axes):
            inner = build(level + 1, ivs)
            sub = loop.ForOp(loop.IterKind.REDUCE, in_shape[axes[level + 1]], inner, [elem])
            block.add_op(sub)
            block.add_op(loop.AccumulateOp([kind], [sub.res[0]]))
        else:
            indices = [ivs.get(d, nest.ivs[d]) for d in range(len(in_shape))]
            load = loop.LoadOp(src, indices, identity(len(indices)))
            load.result.name_hint = "in"
            block.add_op(load)
            block.add_op(loop.AccumulateOp([kind], [load.result]))
        return block

    red = loop.ForOp(loop.IterKind.REDUCE, in_shape[axes[0]], build(0, {}), [elem])
    red.res[0].name_hint = "acc"
    nest.body.add_op(red)
    nest.body.add_op(loop.StoreOp(red.res[0], out, nest.ivs, identity(len(nest.ivs))))
    return nest.close()


def _elementwise_kernel(op: tensor.ElementwiseOp, srcs: list[SSAValue], out: SSAValue) -> Block:
    nest = _Nest(op.result.type.get_shape())
    mapper: dict[SSAValue, SSAValue] = {}
    args = op.body.block.args
    for arg, src in zip(args, srcs):
        load = loop.LoadOp(src, nest.ivs, identity(len(nest.ivs)))
        load.result.name_hint = arg.name_hint or "in"
        nest.body.add_op(load)
        mapper[arg] = load.result
    for arg, iv in zip(args[len(srcs) :], nest.ivs):
        mapper[arg] = iv
    value = None
    for inner in op.body.block.ops:
        if isinstance(inner, tensor.YieldOp):
            value = mapper.get(inner.operands[0], inner.operands[0])
            break
        nest.body.add_op(inner.clone(mapper))
    assert value is not None
    nest.body.add_op(loop.StoreOp(value, out, nest.ivs, identity(len(nest.ivs))))
    return nest.close()


def _index_map_kernel(op: tensor.IndexMapOp, src: SSAValue, out: SSAValue) -> Block:
    nest = _Nest(op.result.type.get_shape())
    load = loop.LoadOp(src, nest.ivs, op.map.data)
    load.result.name_hint = "in"
    nest.body.add_op(load)
    nest.body.add_op(loop.StoreOp(load.result, out, nest.ivs, identity(len(nest.ivs))))
    return nest.close()


def _gather_kernel(op: tensor.GatherOp, table: SSAValue, ids: SSAValue, out: SSAValue) -> Block:
    axis = op.axis.data
    id_rank = len(op.indices.type.get_shape())
    nest = _Nest(op.result.type.get_shape())
    ivs = nest.ivs
    id_load = loop.LoadOp(ids, ivs[axis : axis + id_rank], identity(id_rank))
    id_load.result.name_hint = "id"
    cast = arith.IndexCastOp(id_load.result, IndexType())
    row = [*ivs[:axis], cast.result, *ivs[axis + id_rank :]]
    load = loop.LoadOp(table, row, identity(len(row)))
    load.result.name_hint = "in"
    nest.body.add_ops([id_load, cast, load])
    nest.body.add_op(loop.StoreOp(load.result, out, ivs, identity(len(ivs))))
    return nest.close()


def _scatter_kernel(op: tensor.ScatterOp, src: SSAValue, ids: SSAValue, out: SSAValue) -> Block:
    """Free loops over the source, each element folded into `out` by a `loop.atomic` of the
    scatter's kind at its index along the axis, clamped into [0, n) (never outside the buffer);
    `out` starts at the combiner's identity."""
    axis, shape = op.axis.data, op.src.type.get_shape()
    nest = _Nest(shape)
    ivs = nest.ivs
    id_load = loop.LoadOp(ids, ivs, identity(len(ivs)))
    id_load.result.name_hint = "id"
    it = id_load.result.type
    lo = arith.ConstantOp(IntegerAttr(0, it))
    hi = arith.ConstantOp(IntegerAttr(op.result.type.get_shape()[axis] - 1, it))
    below = arith.MinSIOp(id_load.result, hi.result)
    clamped = arith.MaxSIOp(below.result, lo.result)
    cast = arith.IndexCastOp(clamped.result, IndexType())
    load = loop.LoadOp(src, ivs, identity(len(ivs)))
    load.result.name_hint = "in"
    at = [*ivs[:axis], cast.result, *ivs[axis + 1 :]]
    nest.body.add_ops([id_load, lo, hi, below, clamped, cast, load])
    nest.body.add_op(loop.AtomicOp(_COMBINE[op.kind.data], load.result, out, at, identity(len(at))))
    return nest.close()


def _concat_kernel(
    op: tensor.ConcatOp, buffers: dict[SSAValue, SSAValue], inlined: dict[SSAValue, tensor.ConcatOp], out: SSAValue
) -> tuple[Block, list[SSAValue]]:
    """One free nest per operand of `op`, each storing at its offset along the axis; an operand
    that is itself a concat used only here (`inlined`) contributes its own operands' nests at
    their offsets, so a tree of concats (slice assignments along several axes) writes `out`
    directly. Returns the body and the buffers it reads."""
    body = Block()
    reads: list[SSAValue] = []

    def emit(concat: tensor.ConcatOp, base: list[int]) -> None:
        axis = concat.axis.data
        offsets = list(base)
        for value in concat.operands:
            if value in inlined:
                emit(inlined[value], offsets)
            else:
                src = buffers[value]
                reads.append(src)
                shape = src.type.get_shape()
                nest = _Nest(shape)
                load = loop.LoadOp(src, nest.ivs, identity(len(shape)))
                load.result.name_hint = "in"
                nest.body.add_op(load)
                results = [AffineExpr.dimension(d) + offsets[d] for d in range(len(shape))]
                nest.body.add_op(
                    loop.StoreOp(load.result, out, nest.ivs, AffineMap(len(shape), 0, tuple(results)))
                )
                for inner in list(nest.close().ops):
                    inner.detach()
                    body.add_op(inner)
            offsets[axis] += value.type.get_shape()[axis]

    emit(op, [0] * len(op.result.type.get_shape()))
    return body, reads


def _inlined_into_concat(op) -> bool:
    """A concat whose only use is another concat: lowered as part of that one."""
    if not isinstance(op, tensor.ConcatOp) or op.result.uses.get_length() != 1:
        return False
    return isinstance(next(iter(op.result.uses)).operation, tensor.ConcatOp)


def _fill_kernel(value, elem, shape: list[int], out: SSAValue) -> Block:
    """Free loops over `shape` storing `value` into `out`."""
    nest = _Nest(shape)
    attr = IntegerAttr(int(value), elem) if isinstance(elem, IntegerType) else FloatAttr(float(value), elem)
    const = arith.ConstantOp(attr)
    nest.body.add_op(const)
    nest.body.add_op(loop.StoreOp(const.result, out, nest.ivs, identity(len(shape))))
    return nest.close()


def _constant_kernel(op: tensor.ConstantOp, out: SSAValue) -> Block:
    """Each element's value stored at its index; a splat (one value for every element, the
    zeros a transposed convolution interleaves) as a loop nest storing it, of any size."""
    t = op.result.type
    shape = list(t.get_shape())
    count = int(np.prod(shape)) if shape else 1
    value = op.splat() if shape and count > 1 else None
    if value is not None:
        return _fill_kernel(value, t.element_type, shape, out)
    if count > MAX_CONSTANT_ELEMENTS:
        raise ValueError(
            f"lower-to-loops: tensor.constant with {count} elements is too large to inline "
            f"(limit {MAX_CONSTANT_ELEMENTS}); pass it as an argument of @main instead, as the "
            f"frontend does with its tables"
        )
    values = [v for v in op.value.get_values()]
    body = Block()
    for flat, value in enumerate(values):
        index = np.unravel_index(flat, shape) if shape else ()
        attr = (
            IntegerAttr(int(value), t.element_type)
            if isinstance(t.element_type, IntegerType)
            else FloatAttr(float(value), t.element_type)
        )
        const = arith.ConstantOp(attr)
        body.add_op(const)
        body.add_op(
            loop.StoreOp(
                const.result, out, [], AffineMap(0, 0, tuple(AffineExpr.constant(int(i)) for i in index))
            )
        )
    return body


def _kernel_name(value: SSAValue, used: set[str]) -> str:
    base = f"k_{value.name_hint or 'op'}"
    name, n = base, 1
    while name in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name)
    return name


def lower_function(f: func.FuncOp) -> func.FuncOp:
    """The loop-level version of a tensor-level function."""
    arg_types = [memref_of(t) for t in f.function_type.inputs]
    body = Block(arg_types=arg_types)
    buffers: dict[SSAValue, SSAValue] = {}
    for old, new in zip(f.body.block.args, body.args):
        new.name_hint = old.name_hint
        buffers[old] = new
    used: set[str] = set()
    results: list[SSAValue] = []
    inlined: dict[SSAValue, tensor.ConcatOp] = {}
    for op in f.body.block.ops:
        if isinstance(op, func.ReturnOp):
            results = [buffers[v] for v in op.arguments]
            break
        if _inlined_into_concat(op):
            inlined[op.results[0]] = op
            continue
        if len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
            raise ValueError(f"lower-to-loops: cannot lower '{op.name}'")
        result = op.results[0]
        alloc = memref.AllocOp([], [], memref_of(result.type))
        alloc.memref.name_hint = result.name_hint
        body.add_op(alloc)
        out = alloc.memref
        srcs = [buffers[v] for v in op.operands if v not in inlined]
        if isinstance(op, tensor.ElementwiseOp):
            kernel_body = _elementwise_kernel(op, srcs, out)
        elif isinstance(op, tensor.ReduceOp):
            kernel_body = _reduce_kernel(op, srcs[0], out)
        elif isinstance(op, tensor.IndexMapOp):
            kernel_body = _index_map_kernel(op, srcs[0], out)
        elif isinstance(op, tensor.GatherOp):
            kernel_body = _gather_kernel(op, srcs[0], srcs[1], out)
        elif isinstance(op, tensor.ScatterOp):
            kernel_body = _scatter_kernel(op, srcs[0], srcs[1], out)
        elif isinstance(op, tensor.ConcatOp):
            kernel_body, srcs = _concat_kernel(op, buffers, inlined, out)
        elif isinstance(op, tensor.ConstantOp):
            kernel_body = _constant_kernel(op, out)
        else:
            raise ValueError(f"lower-to-loops: cannot lower '{op.name}' (run decompose-torch first)")
        ins = list(dict.fromkeys(srcs))
        body.add_op(loop.KernelOp(_kernel_name(result, used), ins, [out], Region(kernel_body)))
        buffers[result] = out
    body.add_op(func.ReturnOp(*results))
    new = func.FuncOp(
        f.sym_name.data, FunctionType.from_lists(arg_types, [r.type for r in results]), Region(body)
    )
    return new


@dataclass(frozen=True)
class LowerToLoops(ModulePass):
    """Lower each tensor-level op of every function to a loop.kernel over memrefs."""

    name = "lower-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            region_dce(f.body)
            Rewriter.replace_op(f, lower_function(f))
