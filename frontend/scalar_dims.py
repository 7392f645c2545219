"""Ops that take a `dim` over a 0-d tensor, as ops over its one element.

PyTorch lets an op with a `dim` (or `dims`) argument read a 0-d tensor as one of shape [1]: dim 0
or -1 names its one element, so `x.sum(-1)`, `torch.softmax(x, 0)`, `x.cumsum(0)` or
`x.max(-1)` of a scalar are well defined. dpl's torch ops want every dim inside the rank.
`lift_scalar_dims` rewrites such a node of an ATen graph to read its input reshaped to [1], with
each dim 0, and reshapes each tensor it returns back to the shape PyTorch gives (through the
`getitem`s of an op with several results), so every handler sees a dim in range.

A node is left as it is where its dims are absent or empty (all dims: nothing out of range), or
where the op on the [1]-shaped input would not give results of the same element counts (the
rewrite would not be the same computation)."""

from __future__ import annotations

import operator

import torch
from torch import fx

_DIM_NAMES = ("dim", "dims")


def _scalar(arg: object) -> bool:
    val = arg.meta.get("val") if isinstance(arg, fx.Node) else None
    return isinstance(val, torch.Tensor) and val.dim() == 0


def _meta(arg: object) -> object:
    return fx.node.map_arg(arg, lambda n: n.meta.get("val"))


def _reshape_after(graph: fx.Graph, node: fx.Node, val: torch.Tensor) -> None:
    """Readers of `node` read it reshaped to `val`'s shape (`node` now has one element more
    dims)."""
    if tuple(node.meta["val"].shape) == tuple(val.shape):
        return
    with graph.inserting_after(node):
        back = graph.call_function(torch.ops.aten.reshape.default, (node, list(val.shape)))
    back.meta["val"] = val
    node.replace_all_uses_with(back, delete_user_cb=lambda user: user is not back)


def _lift(graph: fx.Graph, node: fx.Node) -> bool:
    target = node.target
    assert isinstance(target, torch._ops.OpOverload)
    names = [a.name for a in target._schema.arguments]
    if not names or names[0] not in ("self", "input") or not node.args or not _scalar(node.args[0]):
        return False
    at = next((names.index(n) for n in _DIM_NAMES if n in names), None)
    if at is None:
        return False
    key = names[at]
    spec = target._schema.arguments[at]
    default = spec.default_value if spec.has_default_value() else None  # topk's dim=-1
    dim = node.args[at] if at < len(node.args) else node.kwargs.get(key, default)
    if dim is None or dim == []:
        return False
    new_dim = 0 if isinstance(dim, int) else [0] * len(dim)
    x = node.args[0]
    assert isinstance(x, fx.Node)
    args = [x, *node.args[1:]]
    kwargs = dict(node.kwargs)
    if at < len(args):
        args[at] = new_dim
    else:
        kwargs[key] = new_dim
    flat_val = x.meta["val"].reshape(1)
    old = node.meta.get("val")
    try:
        new = target(*_meta([flat_val, *args[1:]]), **_meta(kwargs))
    except Exception:  # noqa: BLE001  (PyTorch rejects the [1] form: leave the node to its handler)
        return False
    olds = old if isinstance(old, (tuple, list)) else [old]
    news = new if isinstance(new, (tuple, list)) else [new]
    if len(olds) != len(news) or any(
        isinstance(o, torch.Tensor) != isinstance(n, torch.Tensor) or (isinstance(o, torch.Tensor) and o.numel() != n.numel())
        for o, n in zip(olds, news)
    ):
        return False
    with graph.inserting_before(node):
        flat = graph.call_function(torch.ops.aten.reshape.default, (x, [1]))
    flat.meta["val"] = flat_val
    args[0] = flat
    node.args, node.kwargs = tuple(args), kwargs
    node.meta["val"] = new
    if not isinstance(old, (tuple, list)):
        _reshape_after(graph, node, old)
        return True
    for user in list(node.users):
        if user.target is operator.getitem and isinstance(olds[user.args[1]], torch.Tensor):
            user.meta["val"] = news[user.args[1]]
            _reshape_after(graph, user, olds[user.args[1]])
    return True


def lift_scalar_dims(graph: fx.Graph) -> bool:
    """Rewrite each op over a dim of a 0-d tensor in `graph` as the op over its input reshaped
    to [1] (see the module's doc); returns whether anything changed."""
    changed = False
    for node in list(graph.nodes):
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            changed |= _lift(graph, node)
    return changed
