"""Capture a PyTorch program (nn.Module + example inputs) into the torch dialect.

The module is exported with `torch.export` (ATen ops at the level PyTorch keeps for export:
`aten.linear`, `aten.rms_norm`, `aten.scaled_dot_product_attention`, ...), then each live FX node
becomes one torch-dialect op (see `HANDLERS`; docs/frontend.md lists them). The result is a
module holding `func.func @main(user inputs..., parameters/buffers..., tables...) -> results`,
block arguments named after the export placeholders (`x`, `p_weight`, `p_self_attn_q_proj_weight`).

Capture-time normalisation: negative dims become non-negative, `-1` in view shapes is resolved,
slices are clamped, Python scalars become 0-d `torch.constant`s, no-op ops (`contiguous`, `clone`,
`detach`, same-dtype `to`, eval-mode `dropout`) disappear, and nodes that depend on no input
(`arange`, `ones`, ...) are evaluated once, on the CPU, and become `torch.constant`s; such a
constant of more than `MAX_INLINE_ELEMENTS` elements that are not all equal (a rotary table, a
mask) becomes a *table* instead: an argument of @main named `c_<node>` whose value is bound at
compile time like a parameter, so kernels read it as a buffer. Equal tables share one argument
(every decoder layer reads the same rotary tables). Parameters may be on the meta device (a model
captured without its weights): only their shapes matter, and folding computes on the CPU.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import fx, nn
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from dpl.dialects import torch as T

aten = torch.ops.aten


class UnsupportedOpError(ValueError):
    """An ATen op (or a use of one) the frontend cannot express in the torch dialect."""


@dataclass
class Program:
    """A captured program: the module, the values of @main's arguments and their names."""

    module: ModuleOp
    args: list[torch.Tensor] = field(default_factory=list)
    arg_names: list[str] = field(default_factory=list)
    #: The captured PyTorch callable, taking the user inputs (the first `num_inputs` args);
    #: parameters stay those of `args`. Used to compute references on fresh inputs.
    fn: Callable[..., object] | None = None
    num_inputs: int = 0
    #: The state-dict name of each parameter/buffer argument (`model.norm.weight`), "" for the
    #: user inputs and the tables (large constants, `c_...`): how weights bind by name.
    targets: list[str] = field(default_factory=list)

    @property
    def main(self) -> func.FuncOp:
        for op in self.module.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
                return op
        raise ValueError("module has no @main")


# ----------------------------------------------------------------------------- types

_DTYPES: dict[torch.dtype, Callable[[], Attribute]] = {
    torch.float64: lambda: Float64Type(),
    torch.float32: lambda: Float32Type(),
    torch.float16: lambda: Float16Type(),
    torch.bfloat16: lambda: BFloat16Type(),
    torch.int64: lambda: IntegerType(64),
    torch.int32: lambda: IntegerType(32),
    torch.int16: lambda: IntegerType(16),
    torch.int8: lambda: IntegerType(8),
    torch.uint8: lambda: IntegerType(8),
    torch.bool: lambda: IntegerType(1),
}


#: The torch dtype of each element type (for tables; IntegerType(8) is int8).
_TORCH_DTYPES: dict[Attribute, torch.dtype] = {
    f(): d for d, f in reversed(_DTYPES.items())
}

#: A constant array with more elements than this (not all equal) is a table (`Converter.table`).
MAX_INLINE_ELEMENTS = 64


def element_type(dtype: torch.dtype) -> Attribute:
    if dtype not in _DTYPES:
        raise UnsupportedOpError(f"unsupported dtype {dtype}")
    return _DTYPES[dtype]()


def tensor_type(shape: Sequence[int], dtype: torch.dtype) -> TensorType:
    return TensorType(element_type(dtype), [int(d) for d in shape])


def where(node: fx.Node) -> str:
    """`file:line in fn` of the user code that made the node, else its module path."""
    trace = node.meta.get("stack_trace") or ""
    lines = [ln.strip() for ln in trace.strip().splitlines() if ln.strip().startswith("File ")]
    lines = [ln for ln in lines if "frontend/capture.py" not in ln or "<expression>" in ln]
    if trace and not lines:
        return "<expression>"
    if lines:
        return lines[-1].replace('"', "").replace("File ", "").replace(", line ", ":")
    stack = node.meta.get("nn_module_stack") or {}
    if stack:
        path, cls = list(stack.values())[-1]
        return f"module '{path or '<root>'}' ({cls})"
    return f"node '{node.name}'"


def _norm_dim(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


# ----------------------------------------------------------------------------- the converter


class Converter:
    """Walks an exported FX graph and builds the torch-dialect @main."""

    def __init__(self, graph: fx.Graph, cast_floats_to: torch.dtype | None = None):
        self.graph = graph
        self.cast_floats_to = cast_floats_to
        self.values: dict[fx.Node, SSAValue] = {}
        self.consts: dict[fx.Node, torch.Tensor | object] = {}
        self.block: Block | None = None
        self.builder: Builder | None = None
        self.node: fx.Node | None = None
        #: The tables (`table`): @main's arguments after the user inputs and the module's state.
        self.tables: list[tuple[SSAValue, torch.Tensor, str]] = []

    # -- helpers used by handlers

    def fail(self, message: str) -> UnsupportedOpError:
        assert self.node is not None
        return UnsupportedOpError(f"{message} (at {where(self.node)})")

    def emit(self, op):
        assert self.builder is not None
        self.builder.insert(op)
        return op.results[0]

    def out_type(self) -> TensorType:
        assert self.node is not None
        val = self.node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise self.fail(f"op {self.node.target} does not produce a single tensor")
        return tensor_type(val.shape, self._dtype(val.dtype))

    def _dtype(self, dtype: torch.dtype) -> torch.dtype:
        if self.cast_floats_to is not None and dtype.is_floating_point:
            return self.cast_floats_to
        return dtype

    def constant(
        self, value, elem: Attribute, shape: Sequence[int] = (), name: str | None = None
    ) -> SSAValue:
        """A torch.constant of `value` (a Python scalar or an array) with element type `elem`;
        an array of more than MAX_INLINE_ELEMENTS elements that are not all equal becomes a table
        instead (`table`)."""
        ttype = TensorType(elem, list(shape))
        arr = np.asarray(value)
        if arr.size > MAX_INLINE_ELEMENTS and not (arr == arr.reshape(-1)[0]).all():
            return self.table(torch.from_numpy(arr.reshape(list(shape))), elem, name)
        if isinstance(elem, IntegerType):
            data = [int(v) for v in arr.reshape(-1)]
        else:
            data = [float(v) for v in arr.reshape(-1)]
        if len(data) > 1 and all(v == data[0] for v in data):
            data = data[:1]
        attr = DenseIntOrFPElementsAttr.from_list(ttype, data)
        return self.emit(T.ConstantOp.create_from([], ttype, {"value": attr}))

    def table(self, value: torch.Tensor, elem: Attribute, name: str | None) -> SSAValue:
        """An argument of @main named `c_<name>` whose value (`value` in `elem`'s dtype) is
        bound at compile time like a parameter: a large constant (rotary table, mask) is a
        buffer kernels read, not code. Equal tables share one argument."""
        assert self.block is not None
        value = value.to(_TORCH_DTYPES[elem]).contiguous()
        for arg, known, _ in self.tables:
            if known.dtype == value.dtype and known.shape == value.shape and torch.equal(known, value):
                return arg
        arg = self.block.insert_arg(TensorType(elem, list(value.shape)), len(self.block.args))
        label = f"c_{name or (self.node.name if self.node else 'table')}"
        arg.name_hint = label  # xDSL drops a trailing _<n>; Program.arg_names keep it
        self.tables.append((arg, value, label))
        return arg

    def value(self, arg, elem: Attribute | None = None) -> SSAValue:
        """The SSA value for an FX argument: a node, a folded constant or a Python scalar."""
        if isinstance(arg, fx.Node):
            if arg in self.values:
                return self.values[arg]
            if arg in self.buffer_args:
                return self.buffer_args[arg]
            if arg in self.consts:
                c = self.consts[arg]
                if not isinstance(c, torch.Tensor):
                    raise self.fail(f"expected a tensor for '{arg.name}'")
                c_elem = element_type(self._dtype(c.dtype))
                c = c.detach().to(torch.float64 if c.is_floating_point() else c.dtype)
                v = self.constant(c.numpy(), c_elem, c.shape, name=arg.name)
                self.values[arg] = v
                return v
            raise self.fail(f"value '{arg.name}' was not captured")
        if isinstance(arg, (bool, int, float)):
            if elem is None:
                elem = Float64Type() if isinstance(arg, float) else IntegerType(64)
            return self.constant(arg, elem)
        raise self.fail(f"unsupported argument {arg!r}")

    def cast(self, v: SSAValue, elem: Attribute) -> SSAValue:
        t = v.type
        assert isinstance(t, TensorType)
        if t.element_type == elem:
            return v
        return self.emit(T.ToDtypeOp.create_from([v], TensorType(elem, t.get_shape())))

    def rank(self, arg) -> int:
        return len(arg.meta["val"].shape)

    def shape(self, arg) -> tuple[int, ...]:
        return tuple(int(d) for d in arg.meta["val"].shape)

    # -- the walk

    def live_nodes(self) -> set[fx.Node]:
        out = next(n for n in self.graph.nodes if n.op == "output")
        live: set[fx.Node] = set()
        stack = [out]
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            stack.extend(n.all_input_nodes)
        return live

    def convert(
        self, arg_nodes: Sequence[fx.Node], arg_names: Sequence[str]
    ) -> ModuleOp:
        live = self.live_nodes()
        arg_types = [self.placeholder_type(n) for n in arg_nodes]
        self.block = Block(arg_types=arg_types)
        for n, a, name in zip(arg_nodes, self.block.args, arg_names):
            a.name_hint = name
            if n in self.consts:
                self.buffer_args[n] = a  # foldable, but an argument where used directly
            else:
                self.values[n] = a
        self.builder = Builder(InsertPoint.at_end(self.block))
        results: list[SSAValue] = []
        for node in self.graph.nodes:
            if node not in live or node.op == "placeholder":
                continue
            self.node = node
            if node.op == "output":
                outs = node.args[0]
                outs = outs if isinstance(outs, (list, tuple)) else [outs]
                for o in outs:
                    if not isinstance(o, fx.Node):
                        raise self.fail("program outputs must be tensors")
                    results.append(self.value(o))
                continue
            if node.op == "get_attr":
                self.consts[node] = getattr(self.graph.owning_module, node.target)
                continue
            if node.op != "call_function":
                raise self.fail(f"unsupported FX node kind '{node.op}'")
            self.call(node)
        self.builder.insert(func.ReturnOp(*results))
        ftype = func.FunctionType.from_lists(
            [a.type for a in self.block.args], [r.type for r in results]
        )
        main = func.FuncOp("main", ftype, Region(self.block))
        return ModuleOp([main])

    def placeholder_type(self, node: fx.Node) -> TensorType:
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise UnsupportedOpError(f"input '{node.name}' is not a tensor")
        return tensor_type(val.shape, self._dtype(val.dtype))

    def call(self, node: fx.Node) -> None:
        target = node.target
        # Fold nodes that depend on no program input (arange, ones, shape arithmetic, ...).
        inputs = node.all_input_nodes
        if all(i in self.consts for i in inputs) and target not in _NEVER_FOLD:
            args, kwargs = fx.node.map_arg((node.args, node.kwargs), lambda n: self.consts[n])
            with _OnCpu():
                self.consts[node] = target(*args, **kwargs)
            return
        if target is operator.getitem:
            src, idx = node.args
            if src in self.multi:
                self.values[node] = self.multi[src][idx]
                return
            raise self.fail(f"unsupported getitem on '{src.name}'")
        key = target.name() if isinstance(target, torch._ops.OpOverload) else str(target)
        handler = HANDLERS.get(key)
        if handler is None and isinstance(target, torch._ops.OpOverload):
            handler = HANDLERS.get(target._schema.name)  # overload-independent entry
        if handler is None:
            name = str(target) if isinstance(target, torch._ops.OpOverload) else key
            raise self.fail(f"unsupported op {name}")
        result = handler(self, node, *node.args, **node.kwargs)
        if result is not None:
            if isinstance(result, SSAValue) and result.name_hint is None:
                result.name_hint = node.name
            self.values[node] = result

    multi: dict[fx.Node, list[SSAValue]] = {}
    buffer_args: dict[fx.Node, SSAValue] = {}


_NEVER_FOLD: set = set()


class _OnCpu(torch.overrides.TorchFunctionMode):
    """Folds constants on the CPU whatever device the traced program named: a model whose
    parameters are on the meta device moves its rotary tables to the hidden states' device,
    meta, which holds no values. Every torch.device argument of a call becomes the CPU."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        cpu = torch.device("cpu")
        args, kwargs = torch.utils._pytree.tree_map(
            lambda a: cpu if isinstance(a, torch.device) else a, (args, kwargs or {})
        )
        return func(*args, **kwargs)

# ----------------------------------------------------------------------------- handlers

Handler = Callable[..., SSAValue | None]
HANDLERS: dict[str, Handler] = {}


def handles(*names: str):
    def register(fn: Handler) -> Handler:
        for n in names:
            HANDLERS[n if "::" in n else "aten::" + n] = fn
        return fn

    return register


_UNARY = {
    "neg": T.NegOp,
    "relu": T.ReluOp,
    "silu": T.SiluOp,
    "sigmoid": T.SigmoidOp,
    "exp": T.ExpOp,
    "tanh": T.TanhOp,
    "rsqrt": T.RsqrtOp,
    "sqrt": T.SqrtOp,
    "reciprocal": T.ReciprocalOp,
    "cos": T.CosOp,
    "sin": T.SinOp,
}


def _unary(op_cls):
    def handler(c: Converter, node, x, *rest, **kw):
        t = c.out_type()
        return c.emit(op_cls.create_from([c.cast(c.value(x), t.element_type)], t))

    return handler


for _name, _cls in _UNARY.items():
    handles(_name)(_unary(_cls))


@handles("gelu")
def _gelu(c: Converter, node, x, approximate="none"):
    t = c.out_type()
    attr = T.GeluApproximateAttr(T.GeluApproximate(approximate))
    return c.emit(T.GeluOp.create_from([c.value(x)], t, {"approximate": attr}))


_BINARY = {
    "add": T.AddOp,
    "sub": T.SubOp,
    "mul": T.MulOp,
    "div": T.DivOp,
    "pow": T.PowOp,
    "maximum": T.MaximumOp,
}


def _operand(c: Converter, arg, elem: Attribute) -> SSAValue:
    return c.cast(c.value(arg, elem), elem)


def _binary(op_cls, swap: bool = False):
    def handler(c: Converter, node, lhs, rhs, alpha=1, rounding_mode=None):
        if rounding_mode is not None:
            raise c.fail(f"unsupported div rounding_mode='{rounding_mode}'")
        t = c.out_type()
        a, b = _operand(c, lhs, t.element_type), _operand(c, rhs, t.element_type)
        if alpha != 1:
            b = c.emit(
                T.MulOp.create_from(
                    [b, c.constant(alpha, t.element_type)], b.type
                )
            )
        if swap:
            a, b = b, a
        return c.emit(op_cls.create_from([a, b], t))

    return handler


for _name, _cls in _BINARY.items():
    handles(_name)(_binary(_cls))
handles("rsub")(_binary(T.SubOp, swap=True))


def _dims(c: Converter, x, dim) -> list[int]:
    rank = c.rank(x)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(rank))
    if isinstance(dim, int):
        dim = [dim]
    return sorted(_norm_dim(d, rank) for d in dim)


def _reduce(op_cls):
    def handler(c: Converter, node, x, dim=None, keepdim=False, *, dtype=None):
        t = c.out_type()
        dims = _dims(c, x, dim)
        return c.emit(
            op_cls.create_from(
                [c.cast(c.value(x), t.element_type)],
                t,
                {
                    "dims": ArrayAttr([IntAttr(d) for d in dims]),
                    "keepdim": IntegerAttr(int(bool(keepdim)), IntegerType(1)),
                },
            )
        )

    return handler


handles("mean")(_reduce(T.MeanOp))
handles("sum")(_reduce(T.SumOp))
handles("amax")(_reduce(T.AmaxOp))


@handles("softmax", "_softmax")
def _softmax(c: Converter, node, x, dim, dtype_or_half=None):
    t = c.out_type()
    d = _norm_dim(dim, c.rank(x))
    return c.emit(
        T.SoftmaxOp.create_from([c.cast(c.value(x), t.element_type)], t, {"dim": IntAttr(d)})
    )


def _norm_props(c: Converter, normalized_shape, eps) -> dict[str, Attribute]:
    return {
        "normalized_rank": IntAttr(len(normalized_shape)),
        "eps": FloatAttr(float(eps), f64),
    }


@handles("rms_norm")
def _rms_norm(c: Converter, node, x, normalized_shape, weight=None, eps=None):
    t = c.out_type()
    if eps is None:
        eps = torch.finfo(node.args[0].meta["val"].dtype).eps
    operands = [c.value(x)] + ([c.value(weight)] if weight is not None else [])
    return c.emit(T.RmsNormOp.create_from(operands, t, _norm_props(c, normalized_shape, eps)))


@handles("layer_norm")
def _layer_norm(c: Converter, node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    t = c.out_type()
    operands = [c.value(x)]
    if weight is None and bias is not None:
        weight_v = c.constant(1.0, t.element_type, normalized_shape)
        operands.append(weight_v)
    elif weight is not None:
        operands.append(c.value(weight))
    if bias is not None:
        operands.append(c.value(bias))
    return c.emit(T.LayerNormOp.create_from(operands, t, _norm_props(c, normalized_shape, eps)))


@handles("linear")
def _linear(c: Converter, node, x, weight, bias=None):
    operands = [c.value(x), c.value(weight)] + ([c.value(bias)] if bias is not None else [])
    return c.emit(T.LinearOp.create_from(operands, c.out_type()))


@handles("matmul", "mm", "bmm")
def _matmul(c: Converter, node, a, b):
    t = c.out_type()
    return c.emit(T.MatmulOp.create_from([c.value(a), c.value(b)], t))


@handles("scaled_dot_product_attention")
def _sdpa(
    c: Converter, node, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *,
    scale=None, enable_gqa=False,
):
    if dropout_p:
        raise c.fail(f"unsupported scaled_dot_product_attention dropout_p={dropout_p}")
    t = c.out_type()
    operands = [c.value(q), c.value(k), c.value(v)]
    if attn_mask is not None and attn_mask.meta["val"].dtype == torch.bool:
        if attn_mask not in c.consts:
            raise c.fail("unsupported input-dependent boolean attn_mask in scaled_dot_product_attention")
        mask = c.consts[attn_mask]
        L, S = c.shape(q)[-2], c.shape(k)[-2]
        if not is_causal and torch.equal(
            torch.broadcast_to(mask, (*mask.shape[:-2], L, S)),
            torch.ones(L, S, dtype=torch.bool).tril().expand(*mask.shape[:-2], L, S),
        ):
            is_causal, attn_mask = True, None  # the causal mask HF builds: use the flag
        else:
            additive = torch.zeros(mask.shape, dtype=torch.float64).masked_fill(~mask, -1e30)
            operands.append(c.constant(additive.numpy(), t.element_type, mask.shape, f"{node.name}_mask"))
            attn_mask = None
    if attn_mask is not None:
        operands.append(c.cast(c.value(attn_mask), t.element_type))
    if scale is None:
        scale = 1.0 / math.sqrt(c.shape(q)[-1])
    props = {
        "is_causal": IntegerAttr(int(bool(is_causal)), IntegerType(1)),
        "scale": FloatAttr(float(scale), f64),
        "enable_gqa": IntegerAttr(int(bool(enable_gqa)), IntegerType(1)),
    }
    return c.emit(T.ScaledDotProductAttentionOp.create_from(operands, t, props))


# -- shape ops


@handles("view", "reshape", "_unsafe_view", "flatten", "squeeze", "unflatten", "view_as",
         "reshape_as")
def _reshape(c: Converter, node, x, *_, **__):
    t = c.out_type()
    v = c.value(x)
    if v.type == t:
        return v
    return c.emit(T.ReshapeOp.create_from([v], t))


@handles("contiguous", "clone", "detach", "alias", "lift_fresh_copy", "dropout",
         "feature_dropout", "alpha_dropout")
def _identity(c: Converter, node, x, *rest, **kw):
    if "dropout" in str(node.target) and len(rest) > 1 and rest[1]:
        raise c.fail("unsupported dropout in training mode (call .eval() first)")
    return c.cast(c.value(x), c.out_type().element_type)


@handles("to", "_to_copy", "type_as")
def _to(c: Converter, node, x, *rest, **kw):
    return c.cast(c.value(x), c.out_type().element_type)


@handles("_assert_tensor_metadata", "_assert_scalar", "sym_constrain_range_for_size")
def _skip(c: Converter, node, *args, **kw):
    return None


@handles("transpose")
def _transpose(c: Converter, node, x, dim0, dim1):
    r = c.rank(x)
    props = {"dim0": IntAttr(_norm_dim(dim0, r)), "dim1": IntAttr(_norm_dim(dim1, r))}
    return c.emit(T.TransposeOp.create_from([c.value(x)], c.out_type(), props))


@handles("t", "numpy_T")
def _t(c: Converter, node, x):
    if c.rank(x) < 2:
        return c.value(x)
    r = c.rank(x)
    dims = ArrayAttr([IntAttr(d) for d in reversed(range(r))])
    return c.emit(T.PermuteOp.create_from([c.value(x)], c.out_type(), {"dims": dims}))


@handles("permute")
def _permute(c: Converter, node, x, dims):
    r = c.rank(x)
    attr = ArrayAttr([IntAttr(_norm_dim(d, r)) for d in dims])
    return c.emit(T.PermuteOp.create_from([c.value(x)], c.out_type(), {"dims": attr}))


@handles("unsqueeze")
def _unsqueeze(c: Converter, node, x, dim):
    d = _norm_dim(dim, c.rank(x) + 1)
    return c.emit(T.UnsqueezeOp.create_from([c.value(x)], c.out_type(), {"dim": IntAttr(d)}))


@handles("expand", "expand_as", "broadcast_to")
def _expand(c: Converter, node, x, *_, **__):
    t = c.out_type()
    v = c.value(x)
    return v if v.type == t else c.emit(T.ExpandOp.create_from([v], t))


def _slice_op(c: Converter, v: SSAValue, shape, dim, start, end, step, t: TensorType):
    size = shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    props = {
        "dim": IntAttr(dim),
        "start": IntAttr(start),
        "end": IntAttr(end),
        "step": IntAttr(step),
    }
    return c.emit(T.SliceOp.create_from([v], t, props))


@handles("slice")
def _slice(c: Converter, node, x, dim=0, start=None, end=None, step=1):
    shape = c.shape(x)
    d = _norm_dim(dim, len(shape))
    t = c.out_type()
    if start in (None, 0) and end in (None,) or (start in (None, 0) and end >= shape[d] and step == 1):
        return c.value(x)
    return _slice_op(c, c.value(x), shape, d, start, end, step, t)


@handles("select")
def _select(c: Converter, node, x, dim, index):
    shape = c.shape(x)
    d = _norm_dim(dim, len(shape))
    i = _norm_dim(index, shape[d])
    kept = list(shape)
    kept[d] = 1
    t = c.out_type()
    s = _slice_op(c, c.value(x), shape, d, i, i + 1, 1, TensorType(t.element_type, kept))
    return c.emit(T.ReshapeOp.create_from([s], t))


@handles("cat", "concat")
def _cat(c: Converter, node, tensors, dim=0):
    t = c.out_type()
    tensors = [x for x in tensors if 0 not in c.shape(x)]
    d = _norm_dim(dim, c.rank(tensors[0]))
    operands = [c.cast(c.value(x), t.element_type) for x in tensors]
    return c.emit(T.CatOp.create_from(operands, t, {"dim": IntAttr(d)}))


@handles("embedding")
def _embedding(c: Converter, node, weight, indices, *rest):
    return c.emit(T.EmbeddingOp.create_from([c.value(weight), c.value(indices)], c.out_type()))


# ----------------------------------------------------------------------------- entry points


def _export(module: nn.Module, inputs: Sequence[torch.Tensor]):
    try:
        return torch.export.export(module, tuple(inputs), strict=False)
    except UnsupportedOpError:
        raise
    except Exception as e:  # noqa: BLE001 - export errors are long; keep the first line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UnsupportedOpError(f"torch.export failed: {first}") from e


def _cast(x: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
    if dtype is not None and isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.to(dtype)
    return x


def capture(
    module: nn.Module,
    *inputs: torch.Tensor,
    dtype: torch.dtype | None = None,
    input_names: Sequence[str] | None = None,
    rename: Callable[[str, str], str] | None = None,
) -> Program:
    """Capture `module(*inputs)` into a torch-dialect Program.

    With `dtype`, the module and floating inputs are cast to it first and every floating value
    in the program computes in it (a float->float `.to()` inside the model, like HF RMSNorm's
    upcast, becomes a no-op). `input_names` overrides the user inputs' argument names; `rename`
    maps (placeholder name, state-dict target) to the argument name of a parameter/buffer.
    """
    from torch.export.graph_signature import InputKind

    if dtype is not None:
        module = module.to(dtype)
        inputs = tuple(_cast(x, dtype) for x in inputs)
    module.eval()
    ep = _export(module, inputs)
    graph = ep.graph
    placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
    user: list[tuple[fx.Node, str, torch.Tensor]] = []
    state: list[tuple[fx.Node, str, torch.Tensor]] = []
    targets: list[str] = []
    user_values = iter(inputs)
    for spec in ep.graph_signature.input_specs:
        node = placeholders[spec.arg.name]
        if spec.kind == InputKind.USER_INPUT:
            value = next(user_values)
            if not isinstance(value, torch.Tensor):
                raise UnsupportedOpError(f"input '{node.name}' is not a tensor")
            name = input_names[len(user)] if input_names else node.name
            user.append((node, name, value))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            if spec.target in ep.state_dict:
                value = ep.state_dict[spec.target]
            else:
                value = ep.constants[spec.target]
            prefix = {InputKind.PARAMETER: "p_", InputKind.BUFFER: "b_"}.get(spec.kind, "c_")
            default = prefix + spec.target.replace(".", "_")
            name = rename(default, spec.target) if rename else default
            state.append((node, name, value.detach()))
            targets.append(spec.target)
        else:
            raise UnsupportedOpError(f"unsupported input kind {spec.kind} for '{node.name}'")
    ordered = user + state
    conv = Converter(graph, cast_floats_to=dtype)
    conv.multi, conv.buffer_args = {}, {}
    # Buffers (rotary inv_freq, masks) are arguments, but computations that depend on nothing
    # else are folded at capture time.
    buffer_names = {
        s.arg.name for s in ep.graph_signature.input_specs
        if s.kind in (InputKind.BUFFER, InputKind.CONSTANT_TENSOR)
    }
    for node, _, value in state:
        if node.name in buffer_names:
            conv.consts[node] = value
    mod = conv.convert([n for n, _, _ in ordered], [name for _, name, _ in ordered])
    return Program(
        mod,
        [_cast(v, dtype) for _, _, v in ordered] + [v for _, v, _ in conv.tables],
        [name for _, name, _ in ordered] + [name for _, _, name in conv.tables],
        fn=module,
        num_inputs=len(user),
        targets=[""] * len(user) + targets + [""] * len(conv.tables),
    )


# ----------------------------------------------------------------------------- expressions

_FACTORIES = (
    "randn", "rand", "randint", "ones", "zeros", "full", "arange", "empty", "tensor",
    "linspace", "eye", "randn_like", "rand_like", "ones_like", "zeros_like", "full_like",
)

#: Names given to the tensors an expression creates, in the order it creates them.
INPUT_NAMES = ("x", "y", "z", "u", "v", "w")


def input_name(i: int) -> str:
    return INPUT_NAMES[i] if i < len(INPUT_NAMES) else f"in{i}"


class _Recorder:
    """Stands in for `torch` / `torch.nn` in an expression: records or replays top-level
    tensor factories and nn.Module constructions."""

    def __init__(self, real, state: _ExprState):
        self._real = real
        self._state = state

    def __getattr__(self, name: str):
        attr = getattr(self._real, name)
        st = self._state
        if self._real is torch and name == "nn":
            return _Recorder(nn, st)
        if self._real is torch and name in _FACTORIES:
            return lambda *a, **k: st.tensor(lambda: attr(*a, **k))
        if isinstance(attr, type) and issubclass(attr, nn.Module):
            return lambda *a, **k: st.module(lambda: attr(*a, **k))
        return attr


class _ExprState:
    def __init__(self):
        self.tensors: list[torch.Tensor] = []
        self.modules: list[nn.Module] = []
        self.replay: list[torch.Tensor] | None = None
        self.t = 0
        self.m = 0

    def tensor(self, make):
        if self.replay is not None:
            self.t += 1
            return self.replay[self.t - 1]
        x = make()
        self.tensors.append(x)
        return x

    def module(self, make):
        if self.replay is not None:
            self.m += 1
            return self.modules[self.m - 1]
        m = make()
        self.modules.append(m)
        return m


def _eval(expr: str, state: _ExprState):
    ns = {
        "torch": _Recorder(torch, state),
        "nn": _Recorder(nn, state),
        "F": torch.nn.functional,
        "math": math,
    }
    return eval(compile(expr, "<expression>", "eval"), ns)  # noqa: S307 - user's own code


class _ExpressionModule(nn.Module):
    def __init__(self, expr: str, state: _ExprState):
        super().__init__()
        self.expr = expr
        self.state = state
        self.mods = nn.ModuleList(state.modules)

    def forward(self, *inputs):
        self.state.replay, self.state.t, self.state.m = list(inputs), 0, 0
        try:
            return _eval(self.expr, self.state)
        finally:
            self.state.replay = None


def capture_expression(expr: str, dtype: torch.dtype | None = None, seed: int = 0) -> Program:
    """Capture a one-line PyTorch expression, e.g. "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))".

    `torch`, `nn`, `F` (torch.nn.functional) and `math` are in scope. Each tensor the expression
    creates with a top-level factory call (torch.randn, rand, randint, ones, zeros, full, arange,
    tensor, ...) becomes an input of @main, named x, y, z, u, v, w, then in6, in7, ... in order of
    creation. Parameters of nn.Modules it constructs become `p_<name>` inputs (`p_<i>_<name>`
    where it constructs several modules, i = construction order). The result must be a tensor or
    a tuple of tensors.
    """
    torch.manual_seed(seed)
    state = _ExprState()
    try:
        result = _eval(expr, state)
    except Exception as e:  # noqa: BLE001 - the user's expression failed; one line
        raise ValueError(f"<expression>: {type(e).__name__}: {e}".splitlines()[0]) from e
    outs = result if isinstance(result, (tuple, list)) else (result,)
    if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
        raise ValueError("<expression>: the expression must evaluate to a tensor or tuple of tensors")
    module = _ExpressionModule(expr, state)
    single = len(state.modules) == 1

    def rename(placeholder: str, target: str) -> str:
        parts = target.split(".")
        if parts[0] == "mods":
            idx, rest = parts[1], parts[2:]
            return "p_" + ("" if single else f"{idx}_") + "_".join(rest)
        return placeholder

    names = [input_name(i) for i in range(len(state.tensors))]
    return capture(module, *state.tensors, dtype=dtype, input_names=names, rename=rename)
