"""The FX -> torch-dialect converter: walks an ATen-level FX graph and emits one torch op per node.

`Converter(graph, handlers)` builds `func.func @main`; `handlers` (frontend/aten.py's `HANDLERS`)
maps each ATen op name (`aten::leaky_relu`, or an overload `aten::max.dim`) to the function that
emits its torch ops. What a handler cannot express raises `UnsupportedOpError`, one line ending in
`(at <where>)`: the user's own source line (frames inside torch itself are skipped, so an
`nn.LeakyReLU` inside a user's `nn.Sequential` reports the user's line and the module path).

`unsupported_reason(node, handlers)` runs one node's handler on its own (inputs as fresh
arguments): None when the converter takes it, else the one-line reason. The torch.compile
backend partitions graphs with it (driver/dynamo.py).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import fx
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from dpl.dialects import torch as T


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
    #: Whether the program as written computes in float16 / bfloat16 somewhere (its parameters,
    #: inputs or a cast inside it), before a capture `dtype` cast it: its own error is a half
    #: type's, which single-pass TF32 matmuls stay under.
    half_source: bool = False

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
#: float element types a Python float (a double) is rounded to before it is stored: past their
#: range it is inf, as PyTorch's own conversion gives
_NARROW_FLOATS = {Float32Type(): np.float32, Float16Type(): np.float16}


def element_type(dtype: torch.dtype) -> Attribute:
    if dtype not in _DTYPES:
        raise UnsupportedOpError(f"unsupported dtype {dtype}")
    return _DTYPES[dtype]()


def torch_dtype(elem: Attribute) -> torch.dtype:
    """The torch dtype of an element type (IntegerType(8) is int8)."""
    return _TORCH_DTYPES[elem]


def tensor_type(shape: Sequence[int], dtype: torch.dtype) -> TensorType:
    return TensorType(element_type(dtype), [int(d) for d in shape])


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _own_code(frame: str) -> bool:
    """Whether a `File "...", line N, in f` frame is user code (not torch's, not the capture's)."""
    path = frame.split('"')[1] if '"' in frame else ""
    if "frontend/capture.py" in path or "frontend/convert.py" in path:
        return False
    return not os.path.abspath(path).startswith(_TORCH_DIR) if path.startswith("/") else True


def where(node: fx.Node) -> str:
    """`file:line in fn` of the user code that made the node, else its module path.

    Frames inside torch itself (torch/nn/modules/activation.py, ...) are skipped; when the node
    comes from an nn.Module of torch's (an `nn.LeakyReLU` in a user's `nn.Sequential`), the
    module's path and class follow the user's line. Code of a one-line expression
    (`capture_expression`) is `<expression>`.
    """
    trace = node.meta.get("stack_trace") or ""
    frames = [ln.strip() for ln in trace.strip().splitlines() if ln.strip().startswith("File ")]
    own = [f for f in frames if _own_code(f)]
    stack = node.meta.get("nn_module_stack") or {}
    module, torch_module = "", False
    if stack:
        path, cls = list(stack.values())[-1]
        name = cls if isinstance(cls, str) else f"{cls.__module__}.{cls.__qualname__}"
        module = f"module '{path or '<root>'}' ({name.rsplit('.', 1)[-1]})"
        torch_module = name.startswith("torch.nn.")
    if own and "<expression>" not in own[-1]:
        line = own[-1].replace('"', "").replace("File ", "").replace(", line ", ":")
        return f"{line}, {module}" if torch_module else line
    if own or any("frontend/capture.py" in f for f in frames) or (trace and not frames):
        return f"<expression>, {module}" if torch_module else "<expression>"
    if module:
        return module
    return f"node '{node.name}'"


def find_handler(handlers: dict[str, Handler], target) -> Handler | None:
    """The handler of an FX call target: by its overload name (`aten::max.dim`), else by the
    overload-independent entry (`aten::max`)."""
    key = target.name() if isinstance(target, torch._ops.OpOverload) else str(target)
    handler = handlers.get(key)
    if handler is None and isinstance(target, torch._ops.OpOverload):
        handler = handlers.get(target._schema.name)
    return handler


def decomposed_from(node: fx.Node) -> str | None:
    """The ATen op of the exported program that `node` comes from when PyTorch's decomposition
    of it made the node (capture's `decompose_unhandled`; the node's `from_node` provenance),
    else None."""
    sources = node.meta.get("from_node") or []
    while sources and getattr(sources[-1], "from_node", None):
        sources = sources[-1].from_node
    target = getattr(sources[-1], "target", None) if sources else None
    if isinstance(target, str) and target.startswith("aten.") and target != str(node.target):
        return target
    return None


def unsupported_op(node: fx.Node) -> str:
    """`unsupported op aten.X` for a node no handler takes, naming the op the user's program
    has where the node came from a decomposition of it."""
    original = decomposed_from(node)
    if original is None:
        return f"unsupported op {node.target}"
    return f"unsupported op {original} (PyTorch decomposes it into {node.target})"


def live_nodes(graph: fx.Graph) -> set[fx.Node]:
    """The nodes of `graph` its output depends on (the output among them)."""
    out = next(n for n in graph.nodes if n.op == "output")
    live: set[fx.Node] = set()
    stack = [out]
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(n.all_input_nodes)
    return live


def norm_dim(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def bound_args(node: fx.Node) -> dict[str, object]:
    """The node's arguments by schema name, defaults filled in (for ops whose overloads put
    different arguments in the same position, like var.dim / var.correction)."""
    target = node.target
    assert isinstance(target, torch._ops.OpOverload)
    out: dict[str, object] = {}
    for i, a in enumerate(target._schema.arguments):
        if i < len(node.args) and not a.kwarg_only:
            out[a.name] = node.args[i]
        elif a.name in node.kwargs:
            out[a.name] = node.kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
        else:
            out[a.name] = None
    return out


# ----------------------------------------------------------------------------- the converter

Handler = Callable[..., "SSAValue | list[SSAValue] | None"]


class Converter:
    """Walks an ATen-level FX graph and builds the torch-dialect @main."""

    def __init__(
        self,
        graph: fx.Graph,
        handlers: dict[str, Handler],
        cast_floats_to: torch.dtype | None = None,
    ):
        self.graph = graph
        self.handlers = handlers
        self.cast_floats_to = cast_floats_to
        self.values: dict[fx.Node, SSAValue] = {}
        self.consts: dict[fx.Node, torch.Tensor | object] = {}
        #: Nodes with several results (max.dim, split, native_layer_norm): their values by
        #: index; None where the converter does not compute that result.
        self.multi: dict[fx.Node, list[SSAValue | None]] = {}
        #: Foldable nodes that are also @main arguments (buffers), used directly where needed.
        self.buffer_args: dict[fx.Node, SSAValue] = {}
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

    def out_type(self, index: int | None = None) -> TensorType:
        """The node's result type (or that of result `index` of a node with several)."""
        assert self.node is not None
        val = self.node.meta.get("val")
        if index is not None and isinstance(val, (tuple, list)):
            val = val[index]
        if not isinstance(val, torch.Tensor):
            raise self.fail(f"op {self.node.target} does not produce a single tensor")
        return tensor_type(val.shape, self._dtype(val.dtype))

    def _dtype(self, dtype: torch.dtype) -> torch.dtype:
        if self.cast_floats_to is not None and dtype.is_floating_point:
            return self.cast_floats_to
        return dtype

    def elem(self, dtype: torch.dtype) -> Attribute:
        """The element type values of torch dtype `dtype` have in this program."""
        return element_type(self._dtype(dtype))

    def constant(
        self, value, elem: Attribute, shape: Sequence[int] = (), name: str | None = None
    ) -> SSAValue:
        """A torch.constant of `value` (a Python scalar or an array) with element type `elem`
        (an integer arange 0, 1, ... laid along one dim is a `torch.iota`; a scalar fills the
        shape, even an integer 0 along one dim);
        an array of more than MAX_INLINE_ELEMENTS elements that are not all equal becomes a table
        instead (`table`)."""
        ttype = TensorType(elem, list(shape))
        arr = np.asarray(value)
        along = [d for d, n in enumerate(shape) if n != 1]
        if isinstance(elem, IntegerType) and elem.width.data > 1 and len(along) == 1 and \
                arr.size == shape[along[0]] and np.array_equal(arr.reshape(-1), np.arange(arr.size)):  # fmt: skip
            # an arange (positions, a one-hot's classes): the loop index, not a table
            return self.emit(T.IotaOp.create_from([], ttype, {"dim": IntAttr(along[0])}))
        if arr.size > MAX_INLINE_ELEMENTS and not (arr == arr.reshape(-1)[0]).all():
            return self.table(torch.from_numpy(arr.reshape(list(shape))), elem, name)
        flat = arr.reshape(-1)
        if not isinstance(elem, IntegerType) and elem in _NARROW_FLOATS:
            with np.errstate(over="ignore"):  # 1e300 in a float32 program is inf, as in PyTorch
                flat = flat.astype(_NARROW_FLOATS[elem])
        if flat.size > 1 and (flat == flat[0]).all():
            flat = flat[:1]
        data = [int(v) for v in flat] if isinstance(elem, IntegerType) else [float(v) for v in flat]
        attr = DenseIntOrFPElementsAttr.from_list(ttype, data)
        return self.emit(T.ConstantOp.create_from([], ttype, {"value": attr}))

    def table(self, value: torch.Tensor, elem: Attribute, name: str | None) -> SSAValue:
        """An argument of @main named `c_<name>` whose value (`value` in `elem`'s dtype) is
        bound at compile time like a parameter: a large constant (rotary table, mask) is a
        buffer kernels read, not code. Equal tables share one argument."""
        assert self.block is not None
        value = value.to(torch_dtype(elem)).contiguous()
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
                if type(c) not in (torch.Tensor, torch.nn.Parameter):  # what torch.func.grad leaves
                    raise self.fail(f"unsupported constant '{arg.name}': a {type(c).__name__}, not a tensor "
                                    "(torch.func transforms such as grad are not captured)")
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

    def convert(
        self, arg_nodes: Sequence[fx.Node], arg_names: Sequence[str]
    ) -> ModuleOp:
        live = live_nodes(self.graph)
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

    def handler_for(self, target) -> Handler | None:
        return find_handler(self.handlers, target)

    def call(self, node: fx.Node) -> None:
        target = node.target
        # Fold nodes that depend on no program input (arange, ones, shape arithmetic, ...).
        inputs = node.all_input_nodes
        if all(i in self.consts for i in inputs):
            args, kwargs = fx.node.map_arg((node.args, node.kwargs), lambda n: self.consts[n])
            with _OnCpu():
                self.consts[node] = target(*args, **kwargs)
            return
        if target is operator.getitem:
            src, idx = node.args
            if src in self.multi:
                v = self.multi[src][idx]
                if v is None:
                    raise self.fail(f"unsupported use of result {idx} of {src.target}")
                self.values[node] = v
                return
            raise self.fail(f"unsupported getitem on '{src.name}'")
        handler = self.handler_for(target)
        if handler is None:
            raise self.fail(unsupported_op(node))
        result = handler(self, node, *node.args, **node.kwargs)
        if isinstance(result, list):  # several results, picked by getitem
            self.multi[node] = result
        elif result is not None:
            if isinstance(result, SSAValue) and result.name_hint is None:
                result.name_hint = node.name
            self.values[node] = result


def _probe(node: fx.Node, handlers: dict[str, Handler], cast_floats_to) -> tuple[Converter, str | None]:
    conv = Converter(node.graph, handlers, cast_floats_to)
    conv.node = node
    if node.op != "call_function":
        return conv, f"unsupported FX node kind '{node.op}'"
    if conv.handler_for(node.target) is None:
        return conv, str(conv.fail(unsupported_op(node)))
    try:
        inputs = node.all_input_nodes
        conv.block = Block(arg_types=[conv.placeholder_type(n) for n in inputs])
        conv.values.update(zip(inputs, conv.block.args))
        conv.builder = Builder(InsertPoint.at_end(conv.block))
        conv.call(node)
    except UnsupportedOpError as e:
        return conv, str(e)
    return conv, None


def unsupported_reason(
    node: fx.Node, handlers: dict[str, Handler], cast_floats_to: torch.dtype | None = None
) -> str | None:
    """None if the converter takes `node` (a call_function of an ATen graph with `val` metadata),
    else the one-line reason. The node is converted alone: its tensor inputs become arguments
    (so a node that needs a constant input, like a boolean SDPA mask, is judged conservatively)."""
    if node.op == "call_function" and node.target is operator.getitem:
        src, idx = node.args
        if not isinstance(src, fx.Node):
            return f"unsupported getitem on {src!r}"
        conv, reason = _probe(src, handlers, cast_floats_to)
        if reason is not None:
            return reason
        results = conv.multi.get(src)
        if results is None or not isinstance(idx, int) or results[idx] is None:
            conv.node = node
            return str(conv.fail(f"unsupported use of result {idx} of {src.target}"))
        return None
    return _probe(node, handlers, cast_floats_to)[1]


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
