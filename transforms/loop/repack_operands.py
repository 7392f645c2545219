"""repack-operands: copy a matmul's misaligned operands into padded buffers with aligned rows.

A contraction kernel (one reduce loop) reading an input buffer whose rows are not a multiple of
16 bytes (`align`; f32: a K of 257, an N of 4081 floats) gets its tiles loaded one element at
a time: no 16-byte cp.async or float4 load starts at every row. Such a buffer is copied once,
by a pointwise kernel of its own, into a new buffer whose innermost dim is rounded up (to a
multiple of `align` bytes, or of `k-tile` elements where that dim is the reduction's K), the
added elements zero-filled; the contraction reads the copy at the same indices:

    loop.kernel @k_matmul ins(%x, %w : memref<300x257xf32>, ...) outs(%out) {
      ... %acc = loop.for reduce %r < 257 -> f32 { %a = loop.load %x[%i, %r] ... %b = loop.load %w[%j, %r] ... }
    }
 -> %x_pad = memref.alloc() : memref<300x288xf32>
    loop.kernel @k_matmul_pad_x ins(%x) outs(%x_pad) {
      loop.for free %a0 < 300 { loop.for free %a1 < 288 {
        %v = loop.load %x[%a0, %a1 mod 257]         (in bounds; the select drops it past 257)
        %w = arith.select (%a1 < 257), %v, 0.0
        loop.store %w, %x_pad[%a0, %a1] } }
    }
    ... (the same for %w)
    loop.kernel @k_matmul ins(%x_pad, %w_pad) outs(%out) {
      ... %acc = loop.for reduce %r < 288 -> f32 { %a = loop.load %x_pad[%i, %r] ... }
    }

The reduce loop is run to the padded K when every load that indexes it reads a copy padded
along that index to the padded K and the accumulated value is zero there (a product with such a
factor, or sums, differences and negations of such products; the other factors are finite):
the K loop then needs no masking. Otherwise it is left as it is (pad-matmul rounds it up and
masks the unpadded operand that reads past its end, which is exactly zero: the copies' padding
is zero-filled, not garbage).

Meaning is kept: the copies hold the inputs at the same indices, and added K terms are 0.
A copy costs one read and one write of its operand; the schedule weighs that against the time
it saves (schedule.py). Run alone, the pass repacks every operand it can.

Declines (logged to `dpl.passes`) a kernel that is not a contraction with one reduce loop, and
leaves an input as it is whose rows are already a multiple of `align` bytes, that is not an
f32/f64 buffer of rank 2 or more read inside the reduce loop, or that some load indexes with
an expression that is not one loop variable per dim.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, IndexType, IntAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop
from dpl.transforms.loop.count_cost import cost, count
from dpl.transforms.loop.fuse_loops import LOG, is_contraction
from dpl.transforms.options import check_option


def _round(n: int, m: int) -> int:
    return -(-n // m) * m


def _dims(op: loop.LoadOp) -> list[SSAValue] | None:
    """The loop variable indexing each dim of load `op`, or None if some dim is not one."""
    out = []
    for e in op.map.data.results:
        if not isinstance(e, AffineDimExpr):
            return None
        out.append(op.indices[e.position])
    return out


@dataclass(frozen=True)
class Plan:
    """What repack-operands does to one kernel: the padded shape of each repacked input and
    the extent of the reduce loop afterwards."""

    red: loop.ForOp
    shapes: dict[SSAValue, tuple[int, ...]]
    k_extent: int


def plan(kernel: loop.KernelOp, align: int = 16, k_tile: int = 32) -> Plan | str:
    """The repacking of `kernel` (see the module doc), or why there is none."""
    reduces = [o for o in kernel.walk() if isinstance(o, loop.ForOp) and o.is_reduce]
    if len(reduces) != 1 or not is_contraction(kernel):
        return "not a contraction with one reduce loop"
    red = reduces[0]
    k, kn = red.iv, red.extent.data
    loads = [o for o in kernel.walk() if isinstance(o, loop.LoadOp)]
    shapes: dict[SSAValue, tuple[int, ...]] = {}
    notes = []
    for buf in dict.fromkeys(o.memref for o in red.body.walk() if isinstance(o, loop.LoadOp)):
        t = buf.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        name = f"%{buf.name_hint or '?'}"
        if buf not in kernel.ins or buf in kernel.outs or len(shape) < 2 or not isinstance(t.element_type, (Float32Type, Float64Type)):
            continue
        per = max(1, align // (t.element_type.bitwidth // 8))  # elements per aligned row step
        if shape[-1] % per == 0:
            continue
        forms = [_dims(o) for o in loads if o.memref is buf]
        if any(f is None for f in forms):
            notes.append(f"{name} kept: a load indexes it with more than a loop variable per dim")
            continue
        inner_k = all(f[-1] is k for f in forms)  # type: ignore[index]
        pad = _round(shape[-1], k_tile if inner_k and shape[-1] == kn else per)
        shapes[buf] = (*shape[:-1], pad)
    if not shapes:
        return "; ".join(notes) or "every input read in the reduce loop has rows of a multiple of 16 bytes (or cannot be copied)"
    k_extent = kn
    padded_k = _round(kn, k_tile)
    red_loads = [o for o in red.body.walk() if isinstance(o, loop.LoadOp)]

    def padded_along_k(o: loop.LoadOp) -> bool:
        """Whether `o` reads a copy along K whose elements from K up to the padded K are padding
        (so zero): a dim of exactly K (a longer one holds data there), padded to the padded K."""
        dims = _dims(o)
        if o.memref not in shapes or dims is None:
            return False
        old = o.memref.type.get_shape()  # type: ignore[union-attr]
        return any(v is k and old[d] == kn and shapes[o.memref][d] >= padded_k for d, v in enumerate(dims))

    def zero_past_k(v: SSAValue) -> bool:
        owner = v.owner
        if isinstance(owner, loop.LoadOp):
            return padded_along_k(owner)
        if isinstance(owner, arith.MulfOp):
            return zero_past_k(owner.lhs) or zero_past_k(owner.rhs)
        if isinstance(owner, arith.AddfOp | arith.SubfOp):
            return zero_past_k(owner.lhs) and zero_past_k(owner.rhs)
        if isinstance(owner, arith.NegfOp):
            return zero_past_k(owner.operand)
        return False

    acc = red.body.block.last_op
    k_uses_are_loads = all(isinstance(u.operation, loop.LoadOp) for u in k.uses)
    reading_k = [o for o in red_loads if k in o.indices]
    if (padded_k != kn and k_uses_are_loads and all(padded_along_k(o) for o in reading_k)
            and isinstance(acc, loop.AccumulateOp) and all(zero_past_k(v) for v in acc.values)):  # fmt: skip
        k_extent = padded_k
    return Plan(red, shapes, k_extent)


def declines(kernel: loop.KernelOp) -> str | None:
    """Why repack-operands would leave `kernel` as it is, or None if it would repack it."""
    found = plan(kernel)
    return found if isinstance(found, str) else None


def copy_kernel(name: str, src: SSAValue, dst: SSAValue) -> loop.KernelOp:
    """`dst[i] = src[i]` where `i` is inside `src`, else 0, over all of `dst`; the read past
    `src`'s innermost dim is wrapped (`mod`) so that it stays in bounds."""
    src_type, dst_type = src.type, dst.type
    assert isinstance(src_type, MemRefType) and isinstance(dst_type, MemRefType)
    shape, padded = src_type.get_shape(), dst_type.get_shape()
    rank = len(shape)
    body = Block()
    zero = arith.ConstantOp(FloatAttr(0.0, src_type.element_type))
    bound = arith.ConstantOp(IntegerAttr(shape[-1], IndexType()))
    zero.result.name_hint, bound.result.name_hint = "zero", "cols"
    body.add_ops([zero, bound])
    loops: list[loop.ForOp] = []
    ivs: list[SSAValue] = []
    parent = body
    for d in range(rank):
        f = loop.ForOp(loop.IterKind.FREE, padded[d], Region(Block(arg_types=[IndexType()])))
        f.iv.name_hint = f"a{d}"
        parent.add_op(f)
        loops.append(f)
        ivs.append(f.iv)
        parent = f.body.block
    dims = [AffineExpr.dimension(d) for d in range(rank)]
    wrapped = AffineMap(rank, 0, (*dims[:-1], dims[-1] % shape[-1]))
    load = loop.LoadOp(src, ivs, wrapped)
    inside = arith.CmpiOp(ivs[-1], bound.result, "ult")
    value = arith.SelectOp(inside.result, load.result, zero.result)
    store = loop.StoreOp(value.result, dst, ivs, AffineMap.identity(rank))
    load.result.name_hint, inside.result.name_hint, value.result.name_hint = "in", "inside", "v"
    parent.add_ops([load, inside, value, store])
    for f in loops:
        f.body.block.add_op(loop.YieldOp())
    return loop.KernelOp(name, [src], [dst], Region(body))


def free_name(kernel: loop.KernelOp, base: str) -> str:
    """`base`, or `base_1`, `base_2`, .. : a kernel name not yet taken in `kernel`'s module (two
    operands named alike, `x @ x.T` or captured `inputs` and `inputs_1`, get two copies)."""
    root: Operation = kernel
    while (parent := root.parent_op()) is not None:
        root = parent
    used = {k.sym_name.data for k in root.walk() if isinstance(k, loop.KernelOp)}
    name, n = base, 1
    while name in used:
        name, n = f"{base}_{n}", n + 1
    return name


def repack(kernel: loop.KernelOp, align: int = 16, k_tile: int = 32) -> str | None:
    """Repack `kernel`'s misaligned operands (see the module doc) and replace it by the copy
    kernels and the kernel reading the copies; None if done, else why not."""
    found = plan(kernel, align, k_tile)
    if isinstance(found, str):
        return found
    name = kernel.sym_name.data
    counted = cost(kernel) is not None
    copies: dict[SSAValue, SSAValue] = {}
    for buf, shape in found.shapes.items():
        t = buf.type
        assert isinstance(t, MemRefType)
        alloc = memref.AllocOp.get(t.element_type, shape=shape)
        hint = buf.name_hint or "in"
        alloc.memref.name_hint = f"{hint}_pad"
        copy = copy_kernel(free_name(kernel, f"{name}_pad_{hint}"), buf, alloc.memref)
        Rewriter.insert_op([alloc, copy], InsertPoint.before(kernel))
        if counted:
            count(copy)
        copies[buf] = alloc.memref
    for o in [o for o in kernel.walk() if isinstance(o, loop.LoadOp) and o.memref in copies]:
        o.operands[0] = copies[o.memref]
    if found.k_extent != found.red.extent.data:
        found.red.properties["extent"] = IntAttr(found.k_extent)
    ins = list(dict.fromkeys(copies.get(v, v) for v in kernel.ins))
    new = loop.KernelOp(name, ins, list(kernel.outs), Rewriter.move_region_contents_to_new_regions(kernel.body))
    new.attributes |= kernel.attributes
    if counted:
        count(new)
    Rewriter.replace_op(kernel, new)
    return None


def describe(p: Plan) -> str:
    """The log line of a repacking: each input's shape before and after, and K's."""
    parts = [
        f"%{b.name_hint or '?'} {'x'.join(map(str, b.type.get_shape()))} -> {'x'.join(map(str, s))}"  # type: ignore[union-attr]
        for b, s in p.shapes.items()
    ]
    if p.k_extent != p.red.extent.data:
        parts.append(f"K {p.red.extent.data} -> {p.k_extent} (unmasked)")
    return "; ".join(parts)


@dataclass(frozen=True)
class RepackOperands(ModulePass):
    """Copy each contraction's inputs whose rows are not a multiple of `align` bytes into
    zero-padded buffers with aligned rows, and read those instead."""

    name = "repack-operands"

    align: int = 16
    """Bytes the padded rows are a multiple of (16: a cp.async or float4 load; 4 floats)."""
    k_tile: int = 32
    """A row along K is padded to a multiple of this (chunk-matmul-k's K step), so that the K
    loop runs unmasked."""

    def __post_init__(self):
        check_option(self, "align", 1)
        check_option(self, "k_tile", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            name = kernel.sym_name.data
            found = plan(kernel, self.align, self.k_tile)
            if isinstance(found, str):
                LOG.info("repack-operands: declined @%s: %s", name, found)
                continue
            LOG.info("repack-operands: @%s: %s", name, describe(found))
            repack(kernel, self.align, self.k_tile)
