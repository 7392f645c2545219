"""Complex tensors as (real, imag) pairs: `complex_as_pairs(graph)` rewrites an ATen-level FX
graph in place so that no node carries a complex value, before the converter walks it.

A complex tensor of shape S becomes a real tensor of shape S + (2,), its real part then its
imaginary part along the last dim (complex64 -> float32, complex128 -> float64): the memory layout
of a complex tensor, so `view_as_complex` and `view_as_real` become the identity, and Meta's
reference Llama RoPE (`view_as_real(view_as_complex(q.reshape(..., -1, 2)) * polar(1, angle))`)
is a few selects, products and a stack. The ops rewritten (`_RULES`; `SUPPORTED` names them):

- view_as_complex, view_as_real; clone, alias, detach, lift_fresh_copy, resolve_conj,
  resolve_neg: the pair itself;
- polar and complex (the parts stacked), real and imag (a select of the pair), abs (hypot of the
  parts), angle (atan2), exp;
- add, sub, rsub (alpha too), mul, div, reciprocal, with complex or real tensors or Python
  numbers (complex ones too), neg, conj / _conj / conj_physical / _conj_physical;
- shape ops, their dims counted in the complex rank (negative ones normalised before the pair
  dim is appended; shapes are the result's, -1 resolved): view, _unsafe_view, reshape, flatten,
  unflatten, permute, t, numpy_T, transpose, unsqueeze, squeeze, expand, slice, select, cat,
  stack; to / _to_copy (a real tensor made complex, or a complex one made real: its real part,
  as PyTorch);
- sum and mean over dims, mm / bmm / matmul (four real products); roll (an index_select per
  dim) and flip; zeros, ones and full (and their _like), copy, slice_scatter and select_scatter
  (an FNO's spectrum zeroed and its low modes assigned);
- the Fourier transforms PyTorch's fft, ifft, rfft, irfft, hfft, fft2, fftn, stft, istft, ...
  reduce to (`_fft_r2c`, `_fft_c2c`, `_fft_c2r`), one dim at a time: a transform of n <=
  DFT_DIRECT (512) points is one matmul of the pairs, laid out flat, by a real DFT matrix (its
  cos and sin computed in float64 from no input, which capture folds into a table); a longer
  one is split by Cooley-Tukey's four steps into transforms of n1 and n2 = n / n1 points (n1
  the divisor nearest sqrt(n) from below) with twiddle factors between, recursively, so a
  transform costs 8 (n1 + n2) multiply-adds a point, not 8 n. The inverse of a one-sided
  spectrum is a matmul of its pairs by the weighed real parts of the matrix (imaginary parts at
  0 and n / 2 ignored, as PyTorch's); split, it is the inverse of the whole spectrum rebuilt
  from X[n - k] = conj X[k]. A length with a prime factor past DFT_LARGEST (4096) is refused.

Operands are cast to the real dtype of the result first (the dtype PyTorch computes a complex
result in). Division scales the divisor by the larger of its parts' magnitudes, so c^2 + d^2
neither overflows nor underflows; a division by exactly 0 gives NaN where PyTorch gives inf.

Refused with `UnsupportedOpError`, one line ending in the user's source line as the converter's
errors do: any other op that takes or produces a complex value (sqrt, log, pow, split,
comparisons, ...), complex32 values, a complex program output (return `torch.view_as_real` of it), and a complex
placeholder the caller does not pass as pairs (`pair_inputs`: capture passes a complex
parameter, buffer or constant as `torch.view_as_real` of its value; a user input must be given
as one). Nodes that reach no output are dropped, not refused (the converter skips them).

New nodes are ATen OpOverloads whose `meta["val"]` is the op run on meta tensors of their
inputs' shapes and dtypes, and which carry the `stack_trace`, `nn_module_stack` and `from_node` of
the node they replace, so errors downstream still name the user's line.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import torch
from torch import fx
from torch.utils._pytree import tree_leaves

from dpl.frontend.convert import UnsupportedOpError, bound_args, live_nodes, norm_dim, unsupported_op, where

A = torch.ops.aten

#: The real dtype of each complex dtype dpl computes in (complex32 is refused).
_REAL = {torch.complex64: torch.float32, torch.complex128: torch.float64}
#: The node meta a new node takes from the node it replaces (where errors point).
_META_KEYS = ("stack_trace", "nn_module_stack", "from_node")

#: The ops on complex values, as users write them (the error message lists them).
SUPPORTED = (
    "view_as_complex, view_as_real, polar, complex, real, imag, abs, angle, exp, add, sub, mul, "
    "div, reciprocal, neg, conj, resolve_conj, view, reshape, flatten, unflatten, permute, t, "
    "transpose, unsqueeze, squeeze, expand, slicing, select, cat, stack, clone, to, sum, mean, "
    "mm, bmm, matmul, roll, flip, zeros, ones, full, copy, slice_scatter, select_scatter"
)

#: A part of a complex value: a node, a Python number, or None for 0.
Value = fx.Node | int | float | complex | None


def _complex(v) -> bool:
    if isinstance(v, torch.Tensor):
        return v.is_complex()
    if isinstance(v, (list, tuple)):
        return any(_complex(x) for x in v)
    return False


def carries_complex(node: fx.Node) -> bool:
    """Whether `node` produces a complex value or takes one from another node."""
    return _complex(node.meta.get("val")) or any(_complex(i.meta.get("val")) for i in node.all_input_nodes)


def handles_complex(node: fx.Node) -> bool:
    """Whether `complex_as_pairs` rewrites `node` (an op on complex values)."""
    return node.op == "call_function" and node.target in _RULES


def _meta(v: torch.Tensor) -> torch.Tensor:
    return torch.empty(tuple(v.shape), dtype=v.dtype, device="meta")


def _on_meta(target, args, kwargs) -> torch.Tensor:
    """What `target` gives on meta tensors of the node arguments' shapes and dtypes."""
    args, kwargs = fx.node.map_arg((args, kwargs), lambda n: _meta(n.meta["val"]))
    if any(a.name == "device" for a in target._schema.arguments):
        kwargs = {**kwargs, "device": torch.device("meta")}
    return target(*args, **kwargs)


def _shape(node: fx.Node) -> list[int]:
    return [int(d) for d in node.meta["val"].shape]


def _rank(node: fx.Node) -> int:
    return node.meta["val"].dim()


class _Pairs:
    """The rewrite's state: each complex node's pair, and builders of new nodes (inserted
    before the node being rewritten, `node`)."""

    def __init__(self, graph: fx.Graph):
        self.graph = graph
        self.pair: dict[fx.Node, fx.Node] = {}
        self.node: fx.Node | None = None
        self._casts: dict[tuple[fx.Node, torch.dtype], fx.Node] = {}
        self._parts: dict[fx.Node, tuple[fx.Node, fx.Node]] = {}

    def op(self, target, *args, **kwargs) -> fx.Node:
        assert self.node is not None
        with self.graph.inserting_before(self.node):
            n = self.graph.call_function(target, args, kwargs)
        n.meta["val"] = _on_meta(target, args, kwargs)
        for key in _META_KEYS:
            if key in self.node.meta:
                n.meta[key] = self.node.meta[key]
        return n

    # -- operands

    def is_complex(self, x) -> bool:
        return isinstance(x, complex) or (isinstance(x, fx.Node) and x in self.pair)

    def cast(self, x: fx.Node, dtype: torch.dtype) -> fx.Node:
        if x.meta["val"].dtype == dtype:
            return x
        if (x, dtype) not in self._casts:
            self._casts[(x, dtype)] = self.op(A._to_copy.default, x, dtype=dtype)
        return self._casts[(x, dtype)]

    def parts(self, x, dtype: torch.dtype) -> tuple[Value, Value]:
        """(real, imag) of operand `x` in `dtype`: the selects of a complex node's pair; a real
        node and None (0); a Python number's parts (None for 0)."""
        if isinstance(x, fx.Node):
            if x not in self.pair:
                return self.cast(x, dtype), None
            p = self.cast(self.pair[x], dtype)
            if p not in self._parts:
                k = _rank(p) - 1
                self._parts[p] = (self.op(A.select.int, p, k, 0), self.op(A.select.int, p, k, 1))
            return self._parts[p]
        if isinstance(x, complex):
            return (x.real or None), (x.imag or None)
        return (x or None), None

    def pack(self, re: Value, im: Value, shape, dtype: torch.dtype) -> fx.Node:
        """The pair of parts `re`, `im`, each broadcast to `shape` (a number fills it): one
        elementwise `where(lane == 0, re, im)` over shape + (2,), not a stack of the two (a stack
        is one loop nest per part, which no consumer can fuse: Meta's RoPE then wrote its pairs
        and copied them again for the flatten after view_as_real)."""
        shape = [int(d) for d in shape]
        parts = []
        for p in (re, im):
            if isinstance(p, fx.Node):
                p = self.cast(p, dtype)
                if _shape(p) != shape:
                    p = self.op(A.expand.default, p, shape)
            else:
                p = self.op(A.full.default, shape, float(p or 0.0), dtype=dtype)
            parts.append(self.op(A.unsqueeze.default, p, len(shape)))
        # [True, False], from no input: folded to a constant at capture (an arange would be an
        # iota, and its compare a kernel of its own)
        first, second = self.op(A.full.default, [1], True), self.op(A.full.default, [1], False)
        lane = self.op(A.cat.default, [first, second])
        return self.op(A.where.self, lane, *parts)

    def pair_of(self, x, dtype: torch.dtype) -> fx.Node:
        """Operand `x` (a complex or real node, a Python number) as a pair of `dtype`."""
        if isinstance(x, fx.Node) and x in self.pair:
            return self.cast(self.pair[x], dtype)
        shape = _shape(x) if isinstance(x, fx.Node) else []
        return self.pack(*self.parts(x, dtype), shape, dtype)

    # -- arithmetic on parts (a None part is 0; numbers stay Python numbers)

    def add(self, a: Value, b: Value) -> Value:
        if a is None or b is None:
            return b if a is None else a
        if not isinstance(a, fx.Node):
            if not isinstance(b, fx.Node):
                return a + b
            a, b = b, a
        return self.op(A.add.Tensor, a, b)

    def neg(self, a: Value) -> Value:
        if isinstance(a, fx.Node):
            return self.op(A.neg.default, a)
        return None if a is None else -a

    def sub(self, a: Value, b: Value) -> Value:
        if b is None:
            return a
        if a is None:
            return self.neg(b)
        if isinstance(a, fx.Node):
            return self.op(A.sub.Tensor, a, b)
        if isinstance(b, fx.Node):
            return self.op(A.rsub.Scalar, b, a)
        return a - b

    def mul(self, a: Value, b: Value) -> Value:
        if a is None or b is None:
            return None
        if not isinstance(a, fx.Node):
            if not isinstance(b, fx.Node):
                return a * b
            a, b = b, a
        if not isinstance(b, fx.Node) and b == 1:
            return a
        return self.op(A.mul.Tensor, a, b)

    def div(self, a: Value, b: Value) -> Value:
        if a is None:
            return None
        if isinstance(a, fx.Node):
            return self.op(A.div.Tensor, a, b)
        if isinstance(b, fx.Node):
            return self.mul(self.op(A.reciprocal.default, b), a)
        return a / b

    def cmul(self, x: tuple[Value, Value], y: tuple[Value, Value]) -> tuple[Value, Value]:
        (a, b), (c, d) = x, y
        return self.sub(self.mul(a, c), self.mul(b, d)), self.add(self.mul(a, d), self.mul(b, c))

    def cdiv(self, x: tuple[Value, Value], y: tuple[Value, Value]) -> tuple[Value, Value]:
        """x / y: by a real y part by part; else x conj(y) / |y|^2 with y scaled by s, the larger
        of its parts' magnitudes (c = y.re / s, d = y.im / s; c^2 + d^2 in [1, 2])."""
        (a, b), (c, d) = x, y
        if d is None:
            c = 0.0 if c is None else c
            return self.div(a, c), self.div(b, c)
        if not isinstance(c, fx.Node) and not isinstance(d, fx.Node):
            w = 1 / complex(c or 0.0, d)
            return self.cmul(x, ((w.real or None), (w.imag or None)))
        assert isinstance(c, fx.Node) and isinstance(d, fx.Node)
        s = self.op(A.maximum.default, self.op(A.abs.default, c), self.op(A.abs.default, d))
        c, d = self.div(c, s), self.div(d, s)
        den = self.add(self.mul(c, c), self.mul(d, d))
        re = self.div(self.div(self.add(self.mul(a, c), self.mul(b, d)), den), s)
        im = self.div(self.div(self.sub(self.mul(b, c), self.mul(a, d)), den), s)
        return re, im


# ----------------------------------------------------------------------------- the rules

#: How each op on complex values is rewritten: (state, node, its bound arguments) -> the pair
#: of a complex result, or the node that replaces a real one.
_RULES: dict[torch._ops.OpOverload, Callable[[_Pairs, fx.Node, dict], fx.Node]] = {}


def _rule(*ops: torch._ops.OpOverload):
    def register(fn):
        for op in ops:
            _RULES[op] = fn
        return fn

    return register


def _out(n: fx.Node) -> tuple[list[int], torch.dtype]:
    """The shape of `n`'s complex result and the real dtype its pair has."""
    val = n.meta["val"]
    return [int(d) for d in val.shape], _REAL[val.dtype]


@_rule(A.view_as_complex.default)
def _view_as_complex(p: _Pairs, n, a):
    return a["self"]


@_rule(A.view_as_real.default, A.clone.default, A.alias.default, A.detach.default,
       A.lift_fresh_copy.default, A.resolve_conj.default, A.resolve_neg.default)  # fmt: skip
def _itself(p: _Pairs, n, a):
    return p.pair[a["self"]]


@_rule(A.view.default, A._unsafe_view.default, A.reshape.default, A.flatten.using_ints, A.unflatten.int)
def _reshape(p: _Pairs, n, a):
    target = n.target if n.target in (A.view.default, A._unsafe_view.default) else A.reshape.default
    return p.op(target, p.pair[a["self"]], _out(n)[0] + [2])


@_rule(A.expand.default)
def _expand(p: _Pairs, n, a):
    return p.op(A.expand.default, p.pair[a["self"]], _out(n)[0] + [2])


@_rule(A.permute.default)
def _permute(p: _Pairs, n, a):
    r = _rank(a["self"])
    return p.op(A.permute.default, p.pair[a["self"]], [norm_dim(d, r) for d in a["dims"]] + [r])


@_rule(A.t.default, A.numpy_T.default)
def _reverse(p: _Pairs, n, a):
    r = _rank(a["self"])
    return p.op(A.permute.default, p.pair[a["self"]], list(range(r))[::-1] + [r])


@_rule(A.transpose.int)
def _transpose(p: _Pairs, n, a):
    r = _rank(a["self"])
    if r == 0:
        return p.pair[a["self"]]
    return p.op(A.transpose.int, p.pair[a["self"]], norm_dim(a["dim0"], r), norm_dim(a["dim1"], r))


@_rule(A.unsqueeze.default)
def _unsqueeze(p: _Pairs, n, a):
    return p.op(A.unsqueeze.default, p.pair[a["self"]], norm_dim(a["dim"], _rank(a["self"]) + 1))


@_rule(A.squeeze.default, A.squeeze.dim, A.squeeze.dims)
def _squeeze(p: _Pairs, n, a):
    x, r = a["self"], _rank(a["self"])
    if r == 0 or n.target is A.squeeze.default:  # (the pair dim, 2, is never squeezed)
        return p.pair[x] if r == 0 else p.op(A.squeeze.default, p.pair[x])
    if n.target is A.squeeze.dim:
        return p.op(A.squeeze.dim, p.pair[x], norm_dim(a["dim"], r))
    return p.op(A.squeeze.dims, p.pair[x], [norm_dim(d, r) for d in a["dim"]])


@_rule(A.slice.Tensor)
def _slice(p: _Pairs, n, a):
    r = _rank(a["self"])
    return p.op(A.slice.Tensor, p.pair[a["self"]], norm_dim(a["dim"], r), a["start"], a["end"], a["step"])


@_rule(A.select.int)
def _select(p: _Pairs, n, a):
    return p.op(A.select.int, p.pair[a["self"]], norm_dim(a["dim"], _rank(a["self"])), a["index"])


@_rule(A.cat.default, A.stack.default)
def _concat(p: _Pairs, n, a):
    shape, dtype = _out(n)
    pairs = [p.pair_of(t, dtype) for t in a["tensors"]]
    return p.op(n.target, pairs, norm_dim(a["dim"], len(shape)))


@_rule(A.to.dtype, A._to_copy.default)
def _to(p: _Pairs, n, a):
    x, val = a["self"], n.meta["val"]
    if val.is_complex():
        return p.pair_of(x, _REAL[val.dtype])
    real, _ = p.parts(x, _REAL[x.meta["val"].dtype])  # complex -> real keeps the real part
    return p.cast(real, val.dtype)


@_rule(A.neg.default)
def _neg(p: _Pairs, n, a):
    return p.op(A.neg.default, p.pair_of(a["self"], _out(n)[1]))


@_rule(A.conj.default, A._conj.default, A.conj_physical.default, A._conj_physical.default)
def _conj(p: _Pairs, n, a):
    shape, dtype = _out(n)
    re, im = p.parts(a["self"], dtype)
    return p.pack(re, p.neg(im), shape, dtype)


@_rule(A.real.default, A.imag.default)
def _real_imag(p: _Pairs, n, a):
    x = a["self"]
    return p.parts(x, _REAL[x.meta["val"].dtype])[0 if n.target is A.real.default else 1]


@_rule(A.abs.default, A.angle.default)
def _abs_angle(p: _Pairs, n, a):
    x = a["self"]
    re, im = p.parts(x, _REAL[x.meta["val"].dtype])
    if n.target is A.abs.default:
        return p.op(A.hypot.default, re, im)
    return p.op(A.atan2.default, im, re)


@_rule(A.exp.default)
def _exp(p: _Pairs, n, a):
    shape, dtype = _out(n)
    re, im = p.parts(a["self"], dtype)
    e = p.op(A.exp.default, re)
    return p.pack(p.mul(e, p.op(A.cos.default, im)), p.mul(e, p.op(A.sin.default, im)), shape, dtype)


@_rule(A.polar.default)
def _polar(p: _Pairs, n, a):
    shape, dtype = _out(n)
    r, theta = p.cast(a["abs"], dtype), p.cast(a["angle"], dtype)
    return p.pack(p.mul(r, p.op(A.cos.default, theta)), p.mul(r, p.op(A.sin.default, theta)), shape, dtype)


@_rule(A.complex.default)
def _complex_of(p: _Pairs, n, a):
    shape, dtype = _out(n)
    return p.pack(a["real"], a["imag"], shape, dtype)


@_rule(A.add.Tensor, A.add.Scalar, A.sub.Tensor, A.sub.Scalar, A.rsub.Tensor, A.rsub.Scalar)
def _add_sub(p: _Pairs, n, a):
    """x + alpha y, x - alpha y, or (rsub) y - alpha x: both operands as pairs."""
    shape, dtype = _out(n)
    name = n.target._schema.name
    x, y, alpha = a["self"], a["other"], a.get("alpha", 1)
    if name == "aten::rsub":
        x, y = y, x
    if not isinstance(y, fx.Node):
        y, alpha = y * alpha, 1
    if isinstance(alpha, complex):
        y = p.pack(*p.cmul(p.parts(y, dtype), p.parts(alpha, dtype)), _shape(y), dtype)
    else:
        y = p.pair_of(y, dtype)
        if alpha != 1:
            y = p.op(A.mul.Tensor, y, alpha)
    return p.op(A.add.Tensor if name == "aten::add" else A.sub.Tensor, p.pair_of(x, dtype), y)


def _scaled(p: _Pairs, target, x, y, dtype: torch.dtype) -> fx.Node:
    """Complex node `x` times (or divided by) real `y`, a node or a number: the pair by y."""
    if isinstance(y, fx.Node):
        y = p.cast(y, dtype)
        y = p.op(A.unsqueeze.default, y, _rank(y))
    return p.op(target, p.pair_of(x, dtype), y)


@_rule(A.mul.Tensor, A.mul.Scalar)
def _mul(p: _Pairs, n, a):
    shape, dtype = _out(n)
    x, y = a["self"], a["other"]
    if not p.is_complex(x):
        x, y = y, x
    if isinstance(x, fx.Node) and not p.is_complex(y):
        return _scaled(p, A.mul.Tensor, x, y, dtype)
    return p.pack(*p.cmul(p.parts(x, dtype), p.parts(y, dtype)), shape, dtype)


@_rule(A.div.Tensor, A.div.Scalar)
def _div(p: _Pairs, n, a):
    shape, dtype = _out(n)
    x, y = a["self"], a["other"]
    if isinstance(x, fx.Node) and p.is_complex(x) and not p.is_complex(y):
        return _scaled(p, A.div.Tensor, x, y, dtype)
    return p.pack(*p.cdiv(p.parts(x, dtype), p.parts(y, dtype)), shape, dtype)


@_rule(A.reciprocal.default)
def _reciprocal(p: _Pairs, n, a):
    shape, dtype = _out(n)
    return p.pack(*p.cdiv((1.0, None), p.parts(a["self"], dtype)), shape, dtype)


@_rule(A.sum.default, A.sum.dim_IntList, A.mean.default, A.mean.dim)
def _reduce(p: _Pairs, n, a):
    """A sum or mean of the pair over the complex dims (all of them where none are named)."""
    x = a["self"]
    shape, dtype = _out(n)
    pair, r = p.pair_of(x, dtype), _rank(x)
    if r == 0:
        return pair
    dims = [norm_dim(d, r) for d in a.get("dim") or range(r)]
    target = A.sum.dim_IntList if n.target._schema.name == "aten::sum" else A.mean.dim
    return p.op(target, pair, dims, bool(a.get("keepdim") or False))


@_rule(A.mm.default, A.bmm.default, A.matmul.default)
def _matmul(p: _Pairs, n, a):
    """(a + bi)(c + di) = (ac - bd) + (ad + bc)i, each product the node's own matmul."""
    shape, dtype = _out(n)
    (xr, xi), (yr, yi) = p.parts(n.args[0], dtype), p.parts(n.args[1], dtype)

    def mm(u, v):
        return None if u is None or v is None else p.op(n.target, u, v)

    re = p.sub(mm(xr, yr), mm(xi, yi))
    im = p.add(mm(xr, yi), mm(xi, yr))
    return p.pack(re, im, shape, dtype)


@_rule(A.roll.default, A.flip.default)
def _roll_flip(p: _Pairs, n, a):
    """flip over complex dims: a flip of the pair; roll: along each dim an index_select of the
    positions (i - shift) mod size (PyTorch's decomposition of roll, which the pairs' graph no
    longer gets); a roll over no dims rolls the flattened tensor, pair by pair."""
    x = a["self"]
    r = _rank(x)
    if n.target is A.flip.default:
        return p.op(A.flip.default, p.pair[x], [norm_dim(d, r) for d in a["dims"]])
    y, shifts, dims = p.pair[x], list(a["shifts"]), [norm_dim(d, r) for d in a["dims"]]
    if not dims:
        y, dims = p.op(A.reshape.default, y, [-1, 2]), [0]
    for shift, d in zip(shifts, dims):
        size = _shape(y)[d]
        index = p.op(A.remainder.Scalar, p.op(A.sub.Tensor, p.op(A.arange.default, size), shift), size)
        y = p.op(A.index_select.default, y, d, index)
    return p.op(A.reshape.default, y, _out(n)[0] + [2])


@_rule(A.zeros.default, A.zeros_like.default, A.ones.default, A.ones_like.default, A.full.default, A.full_like.default)
def _filled(p: _Pairs, n, a):
    """A complex tensor of one value (an FNO's zeroed spectrum): its pair, folded at capture."""
    shape, dtype = _out(n)
    name = n.target._schema.name
    value = complex(a["fill_value"]) if "full" in name else (1 if "ones" in name else 0)
    return p.pack(value.real if isinstance(value, complex) else value, value.imag if isinstance(value, complex) else None,
                  shape, dtype)  # fmt: skip


@_rule(A.copy.default)
def _copy(p: _Pairs, n, a):
    """copy(self, src): src, broadcast to self's shape, in self's dtype."""
    shape, dtype = _out(n)
    src = p.pair_of(a["src"], dtype)
    return src if _shape(src) == shape + [2] else p.op(A.expand.default, src, shape + [2])


@_rule(A.slice_scatter.default, A.select_scatter.default)
def _scatter_part(p: _Pairs, n, a):
    """A slice or select assignment (`out[:, :m] = v`): the same on the pairs."""
    shape, dtype = _out(n)
    dim = norm_dim(a["dim"], len(shape))
    base, src = p.pair_of(a["self"], dtype), p.pair_of(a["src"], dtype)
    if n.target is A.select_scatter.default:
        return p.op(A.select_scatter.default, base, src, dim, a["index"])
    return p.op(A.slice_scatter.default, base, src, dim, a["start"], a["end"], a["step"])


# ----------------------------------------------------------------------------- Fourier transforms

#: A transform of at most this many points is one matmul by its DFT matrix; a longer one is split
#: into two shorter ones (Cooley-Tukey's four steps). The matrix of a 512-point complex transform
#: is 1024 x 1024 (4 MB of float32), 8 n multiply-adds a point where the split needs 8 (n1 + n2).
DFT_DIRECT = 512
#: A transform whose length has a prime factor past this is refused: that factor's one DFT matrix
#: would be too large (Bluestein's chirp transform, which would take it, is not written).
DFT_LARGEST = 4096


def _split(length: int) -> int | None:
    """The factor n1 of `length` = n1 n2 closest to its square root from below (1 < n1), or None."""
    for f in range(int(length**0.5), 1, -1):
        if length % f == 0:
            return f
    return None


def _dft_matrix(p: _Pairs, n: int, rows: int, cols: int, sign: int, scale: float, real_in: bool,
                real_out: bool, dtype: torch.dtype) -> fx.Node:  # fmt: skip
    """The real matrix M that maps an input row to its transform's row: y_k = scale sum_j x_j
    e^(sign 2 pi i j k / n), j < `rows`, k < `cols`. A complex row is its (re, im) pairs laid out
    flat, so one matmul of the pairs [.., 2 rows] by M [2 rows, 2 cols] gives the pairs of the
    result: M[2j, 2k] = M[2j+1, 2k+1] = w_r, M[2j, 2k+1] = w_i, M[2j+1, 2k] = -w_i. A real input
    has only the even rows; a real output (`real_out`, the inverse of a one-sided spectrum) only
    the even columns, each row weighed by the conjugate term it stands for (2, but 1 for j = 0
    and j = n / 2). Built in float64 from no input, so capture folds it into a table."""
    f64 = torch.float64
    j = p.op(A.unsqueeze.default, p.op(A.arange.default, rows, dtype=f64), 1)
    k = p.op(A.unsqueeze.default, p.op(A.arange.default, cols, dtype=f64), 0)
    jk = p.op(A.remainder.Scalar, p.op(A.mul.Tensor, j, k), n)  # exact: j k < 2^53
    theta = p.op(A.mul.Tensor, jk, sign * 2 * torch.pi / n)
    wr = p.op(A.mul.Tensor, p.op(A.cos.default, theta), scale)
    wi = p.op(A.mul.Tensor, p.op(A.sin.default, theta), scale)
    if real_out:
        edge = [p.op(A.eq.Scalar, j, 0), p.op(A.eq.Scalar, p.op(A.mul.Tensor, j, 2), n)]
        c = p.op(A.rsub.Scalar, p.op(A.add.Tensor, *(p.op(A._to_copy.default, e, dtype=f64) for e in edge)), 2)
        m = p.op(A.stack.default, [p.op(A.mul.Tensor, wr, c), p.op(A.mul.Tensor, p.op(A.neg.default, wi), c)], 1)
        m = p.op(A.reshape.default, m, [2 * rows, cols])
    elif real_in:
        m = p.op(A.reshape.default, p.op(A.stack.default, [wr, wi], 2), [rows, 2 * cols])
    else:
        re_row = p.op(A.stack.default, [wr, wi], 2)
        im_row = p.op(A.stack.default, [p.op(A.neg.default, wi), wr], 2)
        m = p.op(A.reshape.default, p.op(A.stack.default, [re_row, im_row], 1), [2 * rows, 2 * cols])
    return p.op(A._to_copy.default, m, dtype=dtype)


def _fft_plan_ok(length: int) -> bool:
    """Whether a transform of `length` points can be done: directly, or split into two that can."""
    if length <= DFT_DIRECT:
        return True
    n1 = _split(length)
    if n1 is not None and _fft_plan_ok(n1) and _fft_plan_ok(length // n1):
        return True
    return length <= DFT_LARGEST


def _largest_prime_factor(length: int) -> int:
    f, largest = 2, 1
    while f * f <= length:
        while length % f == 0:
            length, largest = length // f, f
        f += 1
    return max(largest, length)


def _fft_lengths(node: fx.Node, a: dict) -> list[int]:
    """The signal length of each dim an fft prim transforms (c2r: the last one's output's)."""
    x = a["self"]
    shape, r = [int(d) for d in x.meta["val"].shape], _rank(x)
    dims = [norm_dim(d, r) for d in a["dim"]]
    lengths = [shape[d] for d in dims]
    if node.target is A._fft_c2r.default:
        lengths[-1] = int(a["last_dim_size"])
    return lengths


def _transpose_last(p: _Pairs, x: fx.Node, d: int, pair: bool) -> fx.Node:
    """`x` with its dim d (of the complex shape) swapped with the last (a pair's last dim stays)."""
    last = _rank(x) - (2 if pair else 1)
    return x if d == last else p.op(A.transpose.int, x, d, last)


def _swap_last_two(p: _Pairs, x: fx.Node, pair: bool) -> fx.Node:
    last = _rank(x) - (2 if pair else 1)
    return p.op(A.transpose.int, x, last - 1, last)


def _dft(p: _Pairs, x: fx.Node, n: int, cols: int, sign: int, scale: float, real_in: bool,
         real_out: bool, dtype: torch.dtype) -> fx.Node:  # fmt: skip
    """The transform of length n along the last dim of `x` (its pairs, or a real tensor where
    `real_in`): `cols` outputs (a one-sided real-input spectrum: n // 2 + 1), or the real signal
    of n points of a one-sided spectrum (`real_out`). One matmul by the DFT matrix up to
    DFT_DIRECT points or where n has no factors; else Cooley-Tukey's four steps over n = n1 n2:
    with j = j1 n2 + j2 and k = k1 + n1 k2, X[k] = sum_j2 w^(j2 k1) W2^(j2 k2) sum_j1 x[j] W1^(j1 k1),
    two shorter transforms with the twiddles w = e^(sign 2 pi i / n) between."""
    n1 = _split(n) if n > DFT_DIRECT else None
    if real_out:
        rows = n // 2 + 1
        if n1 is None:
            flat = p.op(A.reshape.default, x, _shape(x)[:-2] + [2 * rows])
            return p.op(A.matmul.default, flat, _dft_matrix(p, n, rows, n, sign, scale, False, True, dtype))
        # the whole spectrum (X[n - k] = conj X[k]), its inverse transform's real part
        d = _rank(x) - 2
        tail = p.op(A.flip.default, p.op(A.slice.Tensor, x, d, 1, n - rows + 1), [d])
        lane = p.op(A.cat.default, [p.op(A.full.default, [1], 1.0, dtype=dtype), p.op(A.full.default, [1], -1.0, dtype=dtype)])
        whole = p.op(A.cat.default, [x, p.op(A.mul.Tensor, tail, lane)], d)
        return p.op(A.select.int, _dft(p, whole, n, n, sign, scale, False, False, dtype), d + 1, 0)
    if n1 is None:
        rows = _shape(x)[-1] if real_in else _shape(x)[-2]
        flat = x if real_in else p.op(A.reshape.default, x, _shape(x)[:-2] + [2 * rows])
        y = p.op(A.matmul.default, flat, _dft_matrix(p, n, rows, cols, sign, scale, real_in, False, dtype))
        return p.op(A.reshape.default, y, _shape(y)[:-1] + [cols, 2])
    n2 = n // n1
    outer = _shape(x)[:-1] if real_in else _shape(x)[:-2]
    tail = [] if real_in else [2]
    y = _swap_last_two(p, p.op(A.reshape.default, x, outer + [n1, n2] + tail), not real_in)  # [.., j2, j1]
    y = _dft(p, y, n1, n1, sign, scale, real_in, False, dtype)  # [.., j2, k1]
    j2 = p.op(A.unsqueeze.default, p.op(A.arange.default, n2, dtype=torch.float64), 1)
    k1 = p.op(A.unsqueeze.default, p.op(A.arange.default, n1, dtype=torch.float64), 0)
    theta = p.op(A.mul.Tensor, p.op(A.remainder.Scalar, p.op(A.mul.Tensor, j2, k1), n), sign * 2 * torch.pi / n)
    tr, ti = (p.op(A._to_copy.default, p.op(f, theta), dtype=dtype) for f in (A.cos.default, A.sin.default))
    yr, yi = p.op(A.select.int, y, -1, 0), p.op(A.select.int, y, -1, 1)
    shape = _shape(yr)
    y = p.pack(p.sub(p.mul(yr, tr), p.mul(yi, ti)), p.add(p.mul(yr, ti), p.mul(yi, tr)), shape, dtype)
    y = _dft(p, _swap_last_two(p, y, True), n2, n2, sign, 1.0, False, False, dtype)  # [.., k1, k2]
    y = p.op(A.reshape.default, _swap_last_two(p, y, True), outer + [n, 2])  # k = k2 n1 + k1
    return y if cols == n else p.op(A.slice.Tensor, y, len(outer), 0, cols)


def _fft_scale(normalization: int, length: int) -> float:
    """PyTorch's fft_norm_mode: 0 none, 1 by 1 / sqrt(n), 2 by 1 / n."""
    return (1.0, 1.0 / length**0.5, 1.0 / length)[normalization]


def _c2c_dims(p: _Pairs, y: fx.Node, dims: list[int], normalization: int, sign: int, dtype: torch.dtype) -> fx.Node:
    for d in dims:
        length = _shape(y)[d]
        y = _transpose_last(p, y, d, True)
        y = _dft(p, y, length, length, sign, _fft_scale(normalization, length), False, False, dtype)
        y = _transpose_last(p, y, d, True)
    return y


@_rule(A._fft_c2c.default)
def _fft_c2c(p: _Pairs, n, a):
    """A complex transform over each dim in turn (forward: e^(-2 pi i jk / n))."""
    shape, dtype = _out(n)
    dims = [norm_dim(d, len(shape)) for d in a["dim"]]
    return _c2c_dims(p, p.pair_of(a["self"], dtype), dims, a["normalization"], -1 if a["forward"] else 1, dtype)


@_rule(A._fft_r2c.default)
def _fft_r2c(p: _Pairs, n, a):
    """A real signal's transform over its last listed dim (one-sided: n // 2 + 1 outputs), then
    the others'."""
    shape, dtype = _out(n)
    x = p.cast(a["self"], dtype)
    *rest, d = [norm_dim(d, len(shape)) for d in a["dim"]]
    length = _shape(x)[d]
    y = _transpose_last(p, x, d, False)
    y = _dft(p, y, length, shape[d], -1, _fft_scale(a["normalization"], length), True, False, dtype)
    return _c2c_dims(p, _transpose_last(p, y, d, True), rest, a["normalization"], -1, dtype)


@_rule(A._fft_c2r.default)
def _fft_c2r(p: _Pairs, n, a):
    """The inverse transforms over the listed dims but the last, then the real signal of
    `last_dim_size` points from the last one's one-sided spectrum (imaginary parts at 0 and n / 2
    ignored, as PyTorch's)."""
    val = n.meta["val"]
    dtype, r = val.dtype, val.dim()
    *rest, d = [norm_dim(d, r) for d in a["dim"]]
    y = _c2c_dims(p, p.pair_of(a["self"], dtype), rest, a["normalization"], 1, dtype)
    length = int(a["last_dim_size"])
    rows = length // 2 + 1
    if _shape(y)[d] != rows:
        y = p.op(A.slice.Tensor, y, d, 0, rows)
    y = _dft(p, _transpose_last(p, y, d, True), length, length, 1, _fft_scale(a["normalization"], length), False, True, dtype)
    return _transpose_last(p, y, d, False)


# ----------------------------------------------------------------------------- the rewrite


def _refusal(node: fx.Node, live: bool, pair_inputs: Collection[str]) -> str | None:
    """Why `node` cannot be rewritten (its one-line error), or None."""
    if node.op == "output":
        for i, out in enumerate(tree_leaves(node.args[0])):
            if isinstance(out, fx.Node) and _complex(out.meta.get("val")):
                return (f"output {i} of the program is complex ({out.meta['val'].dtype}): dpl returns real "
                        f"tensors, so return torch.view_as_real of it (at {where(out)})")  # fmt: skip
        return None
    if not carries_complex(node) or not (live or node.op == "placeholder"):
        return None
    vals = [node.meta.get("val")] + [i.meta.get("val") for i in node.all_input_nodes]
    for v in tree_leaves(vals):
        if isinstance(v, torch.Tensor) and v.is_complex() and v.dtype not in _REAL:
            return f"unsupported {v.dtype} values (complex64 and complex128 are supported) (at {where(node)})"
    if node.op == "placeholder":
        if node.name in pair_inputs:
            return None
        return (f"complex input '{node.name}' is not supported: pass torch.view_as_real({node.name}) and call "
                "torch.view_as_complex on it in the program")  # fmt: skip
    if node.op != "call_function":
        return f"unsupported complex value '{node.target}' ({node.op}) (at {where(node)})"
    if node.target in (A._fft_r2c.default, A._fft_c2c.default, A._fft_c2r.default):
        for length in _fft_lengths(node, bound_args(node)):
            if not _fft_plan_ok(length):
                return (f"unsupported fft of {length} points: its prime factor {_largest_prime_factor(length)} is past "
                        f"{DFT_LARGEST} (a prime length is one n x n DFT matrix; Bluestein's transform is not written) "
                        f"(at {where(node)})")  # fmt: skip
    if node.target not in _RULES:
        return (f"{unsupported_op(node)} on complex values (complex values are supported, as (real, imag) "
                f"pairs, for {SUPPORTED} and the torch.fft transforms) (at {where(node)})")  # fmt: skip
    return None


def complex_as_pairs(graph: fx.Graph, pair_inputs: Collection[str] = ()) -> None:
    """Rewrite `graph` in place so that no node carries a complex value: each complex tensor of
    shape S becomes its real (S, 2) pair (see the module's docstring). `pair_inputs` names the
    placeholders whose complex values the caller passes as `torch.view_as_real` pairs; any other
    complex placeholder is refused. Everything is checked before anything changes: on
    `UnsupportedOpError` the graph is as it was. A graph without complex values is untouched
    (the caller recompiles its GraphModule where it changed)."""
    nodes = list(graph.nodes)
    if not any(carries_complex(n) for n in nodes):
        return
    live = live_nodes(graph)
    for n in nodes:
        reason = _refusal(n, n in live, pair_inputs)
        if reason is not None:
            raise UnsupportedOpError(reason)
    for n in reversed(nodes):  # what reaches no output: dropped (its users are dropped first)
        if n not in live and n.op != "placeholder" and carries_complex(n) and not n.users:
            graph.erase_node(n)
    p = _Pairs(graph)
    for n in list(graph.nodes):
        if not carries_complex(n):
            continue
        if n.op == "placeholder":
            val = n.meta["val"]
            n.meta["val"] = torch.empty((*val.shape, 2), dtype=_REAL[val.dtype], device="meta")
            p.pair[n] = n
            continue
        p.node = n
        result = _RULES[n.target](p, n, bound_args(n))
        if _complex(n.meta.get("val")):
            p.pair[n] = result
        else:
            n.replace_all_uses_with(result)
            graph.erase_node(n)
    for n in reversed(list(graph.nodes)):  # the complex nodes, their users all rewritten
        if n in p.pair and n.op != "placeholder":
            graph.erase_node(n)
