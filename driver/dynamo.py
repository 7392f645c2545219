"""`torch.compile(model, backend="dpl")`: dpl as a TorchDynamo backend.

    import torch
    model = torch.compile(model, backend="dpl")         # registered by the package's entry point
    with torch.no_grad():
        y = model(x)                                     # dpl's kernels on x's current stream

Dynamo hands over an FX graph of torch calls and example inputs (parameters included, as inputs).
The backend (`dpl_backend`):

1. declines, with one warning and the graph run eagerly, what it does not compile: training (grad
   enabled and an input that requires grad, so outputs would need grad) and dynamic shapes
   (symbolic sizes: compile with `dynamic=False`);
2. exports the graph to ATen (`torch.export`, as `dpl.frontend.capture` does) and partitions it
   with torch.fx's CapabilityBasedPartitioner: a node is dpl's when the converter takes it
   (`frontend.convert.unsupported_reason` with the converter's own table, `frontend.aten.HANDLERS`);
3. compiles each partition with dpl (`frontend.capture.capture_graph`, then `driver.compile`'s
   pipeline) and runs the rest eagerly; one warning names each op left to eager (and where it
   is), and a partition that fails to compile runs eagerly with a warning too: never a crash.

Each dpl partition runs its kernels on the current stream of its inputs. Where shapes are static
it replays a CUDA graph: after a call whose inputs sit at the same addresses as the previous
call's, the launches are captured once and replayed while the inputs stay put and nobody holds
the previous outputs (it then writes into the same output buffers); otherwise, and inside a
caller's own CUDA-graph capture, it launches directly. Options (`torch.compile(...,
options={...})`): `cuda_graphs` (default True), `executor` ("cuda", or "cpu" to run the
kernel-level CPU executor instead of a GPU: slow, for tests), `pipeline` (the passes after loop
IR, as for `dpl.compile`).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch import fx
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase
from torch.utils import _pytree as pytree

from dpl.driver.compile import Compiled, compile_program, lower
from dpl.frontend.capture import HANDLERS, capture_graph, unsupported_reason
from dpl.interpreters import exec_kernel

#: Ops that compute nothing: a partition does not begin or end with them.
_NON_COMPUTE = [
    "torch.ops.aten.view.default", "torch.ops.aten.reshape.default",
    "torch.ops.aten._unsafe_view.default", "torch.ops.aten.permute.default",
    "torch.ops.aten.transpose.int", "torch.ops.aten.t.default",
    "torch.ops.aten.unsqueeze.default", "torch.ops.aten.squeeze.dim",
    "torch.ops.aten.expand.default", "torch.ops.aten.slice.Tensor",
    "torch.ops.aten.select.int", "torch.ops.aten.detach.default",
    "torch.ops.aten.contiguous.default", "torch.ops.aten.clone.default",
    "torch.ops.aten.alias.default", "_operator.getitem",
]  # fmt: skip
_OPTIONS = {"cuda_graphs", "executor", "pipeline"}


class DplBackendWarning(UserWarning):
    """What the dpl backend ran eagerly instead of compiling, and why."""


def _warn(message: str) -> None:
    warnings.warn(f"dpl backend: {message}", DplBackendWarning, stacklevel=3)


class _Supported(OperatorSupportBase):
    """A node is dpl's when the converter takes it; the reasons for the others are kept."""

    def __init__(self) -> None:
        self.reasons: dict[fx.Node, str] = {}

    def is_node_supported(self, submodules, node: fx.Node) -> bool:
        if node.op != "call_function":
            return False
        reason = unsupported_reason(node, HANDLERS)
        if reason is not None:
            self.reasons[node] = reason
        return reason is None


# ----------------------------------------------------------------------------- running a part


class DplPart(torch.nn.Module):
    """One compiled partition: dpl's kernels on its inputs (or the CPU executor)."""

    def __init__(self, compiled: Compiled | None, kernel_ir, single: bool, cuda_graphs: bool):
        super().__init__()
        self.compiled = compiled
        self.kernel_ir = kernel_ir
        self.single = single
        self.cuda_graphs = cuda_graphs
        self._last_key: tuple | None = None
        self._graph: _Replay | None = None

    def forward(self, *inputs: torch.Tensor):
        if self.compiled is None:  # the kernel-level CPU executor
            arrays = [x.detach().cpu().numpy() for x in inputs]
            with np.errstate(all="ignore"):
                outs = [torch.from_numpy(np.ascontiguousarray(o).reshape(np.shape(o)))  # a 0-d output stays 0-d
                        for o in exec_kernel.run(self.kernel_ir, arrays)]
        else:
            outs = self._run_cuda([x.contiguous() for x in inputs])
        return outs[0] if self.single else tuple(outs)

    def _run_cuda(self, ins: list[torch.Tensor]) -> list[torch.Tensor]:
        host = self.compiled.host  # type: ignore[union-attr]
        if not self.cuda_graphs or torch.cuda.is_current_stream_capturing():
            return host(*ins)
        key = tuple((x.data_ptr(), tuple(x.shape), x.dtype) for x in ins)
        if self._graph is not None and self._graph.key == key and self._graph.free():
            return self._graph.replay()
        if key == self._last_key:  # a second call on the same buffers: capture, then replay
            self._graph = _Replay.capture(host, ins, key)
            return self._graph.replay()
        self._last_key = key
        return host(*ins)


class _Replay:
    """A CUDA graph of one partition's launches on fixed input, output and workspace buffers."""

    def __init__(self, graph: Any, outputs: list[torch.Tensor], key: tuple):
        self.graph, self.outputs, self.key = graph, outputs, key
        self.baseline = [_use_count(t) for t in outputs]

    @staticmethod
    def capture(host, ins: list[torch.Tensor], key: tuple) -> _Replay:
        tensors = host.bind(ins)
        calls = host.launchers(tensors)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _, launch in calls:
                launch()
        return _Replay(graph, [tensors[r] for r in host.results], key)

    def free(self) -> bool:
        """Whether the outputs handed out last time are gone (no view shares their memory)."""
        return all(c is not None and _use_count(t) == c for t, c in zip(self.outputs, self.baseline))

    def replay(self) -> list[torch.Tensor]:
        self.graph.replay()
        return [t.view(t.shape) for t in self.outputs]  # views: their lifetime is the caller's


def _use_count(t: torch.Tensor) -> int | None:
    """How many tensors share `t`'s memory (None where torch does not say)."""
    count = getattr(torch._C, "_storage_Use_Count", None)
    return None if count is None else count(t.untyped_storage()._cdata)


# ----------------------------------------------------------------------------- the backend


def _dynamic(example_inputs: Sequence[Any]) -> bool:
    for x in example_inputs:
        if isinstance(x, torch.SymInt | torch.SymFloat):
            return True
        if isinstance(x, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in x.shape):
            return True
    return False


def _state_values(ep) -> list[Any]:
    """The values of the exported program's non-user inputs, in signature order (None for a user
    input, filled per call)."""
    from torch.export.graph_signature import InputKind

    values = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            values.append(None)
        elif spec.target in ep.state_dict:
            values.append(ep.state_dict[spec.target])
        else:
            values.append(ep.constants[spec.target])
    return values


def _compile_part(name: str, sub: fx.GraphModule, options: dict[str, Any]) -> torch.nn.Module:
    placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
    examples = [n.meta["val"] for n in placeholders]
    prog = capture_graph(sub, examples, names=[f"in{i}" for i in range(len(examples))])
    out = next(n for n in sub.graph.nodes if n.op == "output").args[0]
    single = not isinstance(out, (tuple, list))
    cuda_graphs = bool(options.get("cuda_graphs", True))
    if options.get("executor", "cuda") == "cpu":
        module, _ = lower(prog, options.get("pipeline"))
        return DplPart(None, module, single, cuda_graphs)
    compiled = compile_program(prog, options.get("pipeline"))
    compiled.host.load()
    return DplPart(compiled, None, single, cuda_graphs)


def register() -> None:
    """Register the backend as "dpl" with TorchDynamo, unless the package's entry point
    (`torch_dynamo_backends`) already has."""
    from torch._dynamo.backends.registry import register_backend

    if "dpl" not in torch._dynamo.list_backends(exclude_tags=()):
        register_backend(dpl_backend, name="dpl")


def dpl_backend(gm: fx.GraphModule, example_inputs: Sequence[Any], **kwargs) -> Callable[..., Any]:
    """The TorchDynamo backend: returns a callable that computes `gm(*inputs)` (see the module
    docstring for what runs on dpl and what eagerly)."""
    options = dict(kwargs.get("options") or {})
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ValueError(f"dpl backend: unknown option '{unknown[0]}' (known: {', '.join(sorted(_OPTIONS))})")
    if options.get("executor", "cuda") not in ("cuda", "cpu"):
        raise ValueError(f"dpl backend: option executor must be 'cuda' or 'cpu', not {options['executor']!r}")
    if _dynamic(example_inputs):
        _warn("dynamic shapes are not compiled; this graph runs eagerly "
              "(use torch.compile(..., dynamic=False) to compile each shape)")
        return gm.forward
    if torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    ):
        _warn("training is not compiled (outputs would require grad); this graph runs eagerly "
              "(call the model under torch.no_grad() or torch.inference_mode())")
        return gm.forward
    try:
        with torch.no_grad():
            ep = torch.export.export(gm, tuple(example_inputs), strict=False)
    except Exception as e:  # noqa: BLE001 - export can fail in many ways; run eagerly, say why
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        _warn(f"torch.export failed ({first}); this graph runs eagerly")
        return gm.forward
    if any(s.kind.name != "USER_OUTPUT" for s in ep.graph_signature.output_specs):
        _warn("the graph mutates its inputs or buffers; it runs eagerly")
        return gm.forward
    return _partitioned(ep, options)


def _partitioned(ep, options: dict[str, Any]) -> Callable[..., Any]:
    flat = ep.graph_module
    support = _Supported()
    partitioner = CapabilityBasedPartitioner(
        flat, support, allows_single_node_partition=True, non_compute_ops=_NON_COMPUTE
    )
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions)
    for node in list(fused.graph.nodes):
        if node.op != "call_module":
            continue
        sub = getattr(fused, node.target)
        try:
            part = _compile_part(node.target, sub, options)
        except Exception as e:  # noqa: BLE001 - a part dpl cannot compile runs eagerly
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            _warn(f"a partition failed to compile ({type(e).__name__}: {first}); it runs eagerly")
            continue
        setattr(fused, node.target, part)
    unsupported = _unsupported_ops(support)
    if unsupported:
        _warn("runs eagerly (unsupported): " + "; ".join(unsupported))
    fused.recompile()
    state = _state_values(ep)
    out_spec = ep.call_spec.out_spec
    user = [i for i, v in enumerate(state) if v is None]

    def run(*inputs):
        args = list(state)
        for i, x in zip(user, inputs):
            args[i] = x
        with torch.no_grad():
            outs = fused(*args)
        return pytree.tree_unflatten(list(outs), out_spec) if out_spec is not None else outs

    run.graph_module = fused  # type: ignore[attr-defined]
    return run


def _unsupported_ops(support: _Supported) -> list[str]:
    """One entry per unsupported op: `aten.sort.default (at file.py:12 in forward)`."""
    seen: dict[str, str] = {}
    for node, reason in support.reasons.items():
        if node.target is operator.getitem:  # reported with the op it reads from
            continue
        name = str(node.target)
        where = reason.split("(at ", 1)[1][:-1] if "(at " in reason else ""
        seen.setdefault(name, f"{name} (at {where})" if where else name)
    return [seen[k] for k in sorted(seen)]
