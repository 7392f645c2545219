"""Capture a PyTorch program (nn.Module + example inputs) into the torch dialect.

The module is exported with `torch.export` (ATen ops at the level PyTorch keeps for export:
`aten.linear`, `aten.rms_norm`, `aten.scaled_dot_product_attention`, ...); an op no handler takes
is replaced by PyTorch's decomposition of it where there is one (`decompose_unhandled`:
`cross_entropy`, `einsum`, `roll`, ...). Then each live FX node becomes one torch-dialect op
(frontend/convert.py walks the graph; frontend/aten.py's `HANDLERS` says how each ATen op
converts; docs/frontend.md lists them). The result is a module holding
`func.func @main(user inputs..., parameters/buffers..., tables...) -> results`, block arguments named after
the export placeholders (`x`, `p_weight`, `p_self_attn_q_proj_weight`).

Capture-time normalisation: negative dims become non-negative, `-1` in view shapes is resolved,
slices are clamped, Python scalars become 0-d `torch.constant`s, no-op ops (`contiguous`, `clone`,
`detach`, same-dtype `to`, eval-mode `dropout`) disappear, and nodes that depend on no input
(`arange`, `ones`, ...) are evaluated once, on the CPU, and become `torch.constant`s; such a
constant of more than `MAX_INLINE_ELEMENTS` elements that are not all equal (a rotary table, a
mask) becomes a *table* instead: an argument of @main named `c_<node>` whose value is bound at
compile time like a parameter, so kernels read it as a buffer. Equal tables share one argument
(every decoder layer reads the same rotary tables). Parameters may be on the meta device (a model
captured without its weights): only their shapes matter, and folding computes on the CPU.

Complex values are computed as (real, imag) pairs (frontend/complex_pairs.py): after the
decompositions, each complex tensor of shape S becomes a real one of shape S + (2,) (the layout
of complex64, so `view_as_complex` / `view_as_real` are the identity) and each op on complex values
(Llama's RoPE: `polar`, complex `mul`, ...) becomes ATen ops on pairs; a complex parameter, buffer
or constant is passed as `torch.view_as_real` of its value. A complex op that module does not
rewrite is offered to PyTorch's decompositions like an op without a handler, and refused where
one remains.

`capture_graph(gm)` converts an ATen-level FX graph as it is (no export), every placeholder an
input: the torch.compile backend compiles its partitions with it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import torch
from torch import fx, nn
from torch._subclasses.fake_tensor import DynamicOutputShapeException
from torch.export.graph_signature import InputKind

from dpl.frontend.aten import ENTRIES, HANDLERS, handles
from dpl.frontend.complex_pairs import carries_complex, complex_as_pairs, handles_complex
from dpl.frontend.convert import (
    Converter,
    Program,
    UnsupportedOpError,
    decomposed_from,
    element_type,
    find_handler,
    tensor_type,
    unsupported_reason,
    where,
)
from dpl.frontend.export_rewrites import ExportRewrites
from dpl.frontend.scalar_dims import lift_scalar_dims

__all__ = [
    "ENTRIES", "HANDLERS", "Converter", "Program", "UnsupportedOpError", "capture",
    "capture_expression", "capture_graph", "element_type", "handles", "tensor_type",
    "unsupported_reason", "where",
]  # fmt: skip

# ----------------------------------------------------------------------------- entry points


def _export(module: nn.Module, inputs: Sequence[torch.Tensor]):
    """`module` exported, its unhandled ops decomposed, its complex values made pairs (last:
    the decompositions retrace the program against its complex state; the pairs' graph is what
    the converter reads, and its parameters, buffers and constants are given as pairs)."""
    try:
        with ExportRewrites():
            ep = torch.export.export(module, tuple(inputs), strict=False)
        ep = decompose_unhandled(ep)
    except UnsupportedOpError:
        raise
    except DynamicOutputShapeException as e:  # its text is the op's name alone
        raise UnsupportedOpError(f"torch.export failed: {e.func}'s output shape depends on its input's values"
                                 " (export's fake tensors cannot size it)") from e
    except Exception as e:  # noqa: BLE001 - export errors are long; keep the first line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UnsupportedOpError(f"torch.export failed: {first}") from e
    for n in ep.graph.nodes:  # a decomposition that checks the data (linalg.inv's singularity) as an effect
        if n.op == "call_function" and n.target is torch.ops.higher_order.with_effects:
            op = decomposed_from(n) or n.args[1]
            raise UnsupportedOpError(f"unsupported op {op}: it checks its data at run time "
                                     f"({n.args[1]}), which export keeps as an effect (at {where(n)})")
    if any(carries_complex(n) for n in ep.graph.nodes):
        state = [s.arg.name for s in ep.graph_signature.input_specs if s.kind != InputKind.USER_INPUT]
        complex_as_pairs(ep.graph, pair_inputs=state)
        ep.graph_module.recompile()
    return ep


#: Rounds of `decompose_unhandled`: an op may decompose into others no handler takes either.
DECOMPOSE_ROUNDS = 4


def _unhandled(ep: torch.export.ExportedProgram) -> set[torch._ops.OpOverload]:
    """The ATen ops no handler takes among the nodes of `ep` that depend on a user input or a
    parameter (the rest, `arange` and the like, are folded at capture). A node on complex values
    counts as taken where `complex_as_pairs` rewrites it (whether a handler takes the op on real
    values does not matter)."""
    sig = ep.graph_signature
    roots = set(sig.user_inputs) | set(sig.inputs_to_parameters)  # placeholder names
    live: set[fx.Node] = set()
    ops = set()
    for n in ep.graph.nodes:
        if n.op == "placeholder":
            if n.name in roots:
                live.add(n)
            continue
        if not any(i in live for i in n.all_input_nodes):
            continue
        live.add(n)
        t = n.target
        if n.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
            continue
        if not (handles_complex(n) if carries_complex(n) else find_handler(HANDLERS, t) is not None):
            ops.add(t)
    return ops


def _composite(op: torch._ops.OpOverload) -> bool:
    """Whether `op` is defined by other ATen ops (a CompositeImplicitAutograd kernel, which
    export keeps as one node: `tensor_split` by indices)."""
    return op.has_kernel_for_dispatch_key(torch._C.DispatchKey.CompositeImplicitAutograd)


def decompose_unhandled(ep: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """`ep` with each ATen op that no handler takes replaced by PyTorch's own decomposition of it
    (`torch.export.default_decompositions`: `cross_entropy` into `log_softmax` and a gather,
    `einsum` into `bmm`, `roll` into an index; else, for an op PyTorch defines by other ATen ops,
    that definition: `tensor_split` into slices), round after round while new such ops appear; an
    op without a decomposition stays, for the converter to name. A program whose ops are all
    handled is returned as it is, so its IR does not change."""
    table = None
    for _ in range(DECOMPOSE_ROUNDS):
        ops = _unhandled(ep)
        if not ops:
            break
        table = table if table is not None else torch.export.default_decompositions()
        todo = {op: table[op] for op in ops if op in table}
        todo |= {op: op.decompose for op in ops if op not in table and _composite(op)}
        if not todo and not any(op._schema.is_mutable for op in ops):
            break  # (an in-place op, `index_put_` of `y[i] = v`, needs none: the run makes it functional)
        with warnings.catch_warnings():  # torch's own deprecation notice from inside the copy
            warnings.simplefilter("ignore", FutureWarning)
            ep = ep.run_decompositions(todo)
    return ep


#: The floating types whose programs record `Program.half_source`.
HALF_DTYPES = (torch.float16, torch.bfloat16)


def _value_dtype(node: fx.Node) -> torch.dtype | None:
    val = node.meta.get("val")
    return val.dtype if isinstance(val, torch.Tensor) else None


def _cast(x: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
    if dtype is not None and isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.to(dtype)
    return x


def _cast_state(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A parameter or buffer for `capture(dtype=...)`: floating ones in `dtype`, complex ones in
    the complex dtype of its precision (float32: complex64, float64: complex128), others as they are."""
    if t.is_floating_point():
        return t.to(dtype)
    if t.is_complex() and dtype in (torch.float32, torch.float64):
        return t.to(torch.complex64 if dtype == torch.float32 else torch.complex128)
    return t


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
    values = [*module.parameters(), *module.buffers(), *inputs]
    half = any(isinstance(t, torch.Tensor) and t.dtype in HALF_DTYPES for t in values)
    if dtype is not None:
        module = module._apply(lambda t: _cast_state(t, dtype))  # (module.to drops a complex buffer's imag)
        inputs = tuple(_cast(x, dtype) for x in inputs)
    module.eval()
    ep = _export(module, inputs)
    graph = ep.graph
    lift_scalar_dims(graph)
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
            if value.is_complex():  # its (real, imag) pairs, as complex_as_pairs made the graph read it
                value = torch.view_as_real(value.resolve_conj())
            prefix = {InputKind.PARAMETER: "p_", InputKind.BUFFER: "b_"}.get(spec.kind, "c_")
            default = prefix + spec.target.replace(".", "_")
            name = rename(default, spec.target) if rename else default
            state.append((node, name, value.detach()))
            targets.append(spec.target)
        elif spec.kind == InputKind.CUSTOM_OBJ:  # an object made in forward (a torch.Generator)
            obj = type(ep.constants.get(spec.target)).__name__
            readers = ", ".join(sorted({str(u.target) for u in node.users}))
            raise UnsupportedOpError(f"unsupported {obj} object made in the program (read by {readers})")
        else:
            raise UnsupportedOpError(f"unsupported input kind {spec.kind} for '{node.name}'")
    ordered = user + state
    conv = Converter(graph, HANDLERS, cast_floats_to=dtype)
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
        half_source=half or any(_value_dtype(n) in HALF_DTYPES for n in graph.nodes),
    )


def capture_graph(
    gm: fx.GraphModule, inputs: Sequence[torch.Tensor], names: Sequence[str] | None = None,
    fn: Callable[..., object] | None = None,
) -> Program:
    """Convert an ATen-level FX graph (nodes carry `val` metadata, e.g. a partition of an
    exported graph) into a Program whose @main takes every placeholder, in order, as an input
    (`inputs` are their example values). Unlike `capture`, nothing is exported or folded from
    parameters: what the graph reads are inputs. Complex values become pairs first (the graph is
    rewritten in place; a complex input is refused)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        raise ValueError(f"the graph takes {len(placeholders)} inputs, {len(inputs)} given")
    if any(carries_complex(n) for n in gm.graph.nodes):  # (its complex inputs are refused)
        complex_as_pairs(gm.graph)
        gm.recompile()
    lift_scalar_dims(gm.graph)
    conv = Converter(gm.graph, HANDLERS)
    names = list(names) if names is not None else [n.name for n in placeholders]
    module = conv.convert(placeholders, names)
    return Program(
        module,
        list(inputs) + [v for _, v, _ in conv.tables],
        names + [name for _, _, name in conv.tables],
        fn=fn or gm,
        num_inputs=len(inputs),
        targets=[""] * (len(inputs) + len(conv.tables)),
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
