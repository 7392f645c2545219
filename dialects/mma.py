"""The mma dialect: tensor-core matrix multiply-accumulate, at the kernel level.

Hardware primitives for fp32 matmuls on the tensor cores, printed one op to one CUDA statement
next to the `kernel` dialect's ops (they live in a `kernel.func`):

    %hi = mma.tf32 %x : f32                         // cvt.rna.tf32.f32: nearest TF32, ties away
    %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%a0, %a1, %a2, %a3) b(%b0, %b1) c(%c0, %c1, %c2, %c3) : f32
    mma.wgmma m64n128k8 %acc, %a[%s, %wg * 64, %kk * 8], %b[%s, 0, %kk * 8]
        : memref<64xf32>, memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<...>
    mma.wgmma m64n128k8 overwrite %t, ...           // t = A * B^T: a fresh accumulator chain
    mma.wgmma_rs m64n128k8 %acc, a(%a0, %a1, %a2, %a3), %b[%s, 0, %kk * 8] : memref<64xf32>, memref<...>
    mma.wgmma_fence / mma.wgmma_commit / mma.wgmma_wait 1 / mma.fence_proxy_async

The 3xTF32 split of an fp32 product is written with these: a_hi = tf32(a), a_lo = tf32(a - a_hi)
(the same for b), a*b ~ a_lo*b_hi + a_hi*b_lo + a_hi*b_hi, the small terms first, accumulated
in fp32 by the MMA. The MMA rounds each sum into its accumulators toward zero (the H100 does:
bench/results/h100-2026-11-24-tc-probe.md), so a lowering keeps each accumulator chain short (a
few K steps, on a fragment started with `overwrite`) and adds it into fp32 accumulators with
ordinary adds: `mma.dot`'s `promote` says how short.

Fragments (the PTX ISA's, groupID g = lane / 4, t = lane % 4):

* `mma.sync m16n8k8` (sm_80+, one warp): A (16x8, row-major) a0 (g, t), a1 (g+8, t), a2 (g, t+4),
  a3 (g+8, t+4); B (8x8, "col": B[k][n] with k-contiguous storage) b0 (k=t, n=g), b1 (k=t+4, n=g);
  C/D c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1).
* `mma.wgmma m64nNk8` (sm_90a, one warpgroup = 4 consecutive warps, 128 threads starting at a
  thread index divisible by 128): A is the 64x8 K-slice of shared buffer `a` starting at the
  indexed element, B the Nx8 K-slice of `b` (B[n][k]: both operands K-major). The accumulators
  are the thread's register array `acc` of N/2 floats: acc[4j + 2h + e] is row 16*w + 8*h + g,
  column 8*j + 2*t + e of the 64xN tile, w the warp in the warpgroup. The MMA is asynchronous:
  `mma.wgmma_fence` before the first (and after any other write of `acc`),
  `mma.wgmma_commit` closes a group, `mma.wgmma_wait N` waits until at most N groups are
  pending; shared memory written by ordinary stores needs `mma.fence_proxy_async` in the writing
  threads before the barrier that publishes it to the MMA.
* `mma.wgmma_rs m64nNk8`: the same with A from registers: warp w holds rows 16 w .. 16 w + 15
  of A in the mma.sync A fragment above (what flash attention's P is already in).

At the tile level (inside a `tile.tile`), a tensor-core matmul is written per output point like
any tile body, with two ops (see "Tile level" below):

    %xs = mma.stage rows 128 k 32 { ^bb0(%r: index, %c: index): ... mma.yield %v : f32 }
          : memref<128x32xf32, #tile.smem>
    %p = mma.dot %xs[%wg * 64 + %w * 16 + %h * 8 + %g], %ws[%j * 8 + %t * 2 + %e]
         precision "3xtf32" layout wgmma promote 4 : memref<128x32xf32, #tile.smem>, memref<256x32xf32, #tile.smem>

`#mma.swizzle<128>` is a shared buffer's layout: rows of 128 bytes (the innermost dim), whose
16-byte chunk c of row r sits at chunk c ^ (r mod 8), the 128-byte swizzle wgmma reads
K-major operands in (and TMA writes). It is physical only: an access at an index reads the
element at that index, the printer applies the swizzle to the address.
"""

from __future__ import annotations

from typing import ClassVar

import re
from collections.abc import Sequence

from enum import auto

from xdsl.dialects.builtin import (
    AffineMapAttr,
    Float32Type,
    IndexType,
    IntAttr,
    MemRefLayoutAttr,
    MemRefType,
    UnitAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    BlockArgument,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    region_def,
    traits_def,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from dpl.dialects import kernel as K
from dpl.dialects import tile

SWIZZLE_BYTES = 128
WARPGROUP = 128
WGMMA_K = 8
MMA_SYNC_SHAPE = (16, 8, 8)


# ---------------------------------------------------------------------------------------------
# The swizzled shared-memory layout


@irdl_attr_definition
class SwizzleAttr(ParametrizedAttribute, MemRefLayoutAttr):
    """`#mma.swizzle<128>`: 128-byte rows whose 16-byte chunks are XOR-permuted by row mod 8."""

    name = "mma.swizzle"

    bytes: IntAttr = param_def(IntAttr)

    def __init__(self, nbytes: int = SWIZZLE_BYTES):
        super().__init__(IntAttr(nbytes))

    def get_affine_map(self) -> AffineMap:
        raise NotImplementedError("the 128-byte swizzle is not an affine layout")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        n = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return (IntAttr(n),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.bytes.data}>")

    def verify(self) -> None:
        if self.bytes.data != SWIZZLE_BYTES:
            raise VerifyException(f"'#mma.swizzle' supports 128-byte rows, got {self.bytes.data}")


SWIZZLE_128 = SwizzleAttr()


def is_swizzled(t: Attribute) -> bool:
    return isinstance(t, MemRefType) and isinstance(t.layout, SwizzleAttr)


def swizzled_smem_type(shape: Sequence[int], element: Attribute | None = None) -> MemRefType:
    """`memref<shape x f32, #mma.swizzle<128>, #kernel.smem>`."""
    return MemRefType(element or Float32Type(), list(shape), SWIZZLE_128, K.SMEM)


def _verify_swizzled_operand(op: Operation, what: str, buf: SSAValue) -> MemRefType:
    t = buf.type
    assert isinstance(t, MemRefType)
    if not K.is_shared(t) or not is_swizzled(t):
        raise VerifyException(
            f"'{op.name}' {what} must be a #kernel.smem buffer with the #mma.swizzle<128> layout"
        )
    owner = buf.owner
    if isinstance(owner, K.SmemOp) and owner.offset is not None and owner.offset.data % 1024:
        raise VerifyException(
            f"'{op.name}' {what} must start 1024-byte aligned (the swizzle repeats every 8 rows), "
            f"got dynamic offset {owner.offset.data}"
        )
    if not isinstance(t.element_type, Float32Type):
        raise VerifyException(f"'{op.name}' {what} must hold f32 (read as tf32), got {t.element_type}")
    shape = t.get_shape()
    if len(shape) < 2 or shape[-1] * 4 != SWIZZLE_BYTES:
        raise VerifyException(
            f"'{op.name}' {what} must be K-major with 128-byte rows: innermost extent 32, got "
            f"shape {list(shape)}"
        )
    return t


# ---------------------------------------------------------------------------------------------
# Rounding


@irdl_op_definition
class Tf32Op(IRDLOperation):
    """`%h = mma.tf32 %x : f32`: `x` rounded to TF32 (10 mantissa bits), nearest, ties away from
    zero (`cvt.rna.tf32.f32`); the result is an f32 whose low 13 mantissa bits are zero."""

    name = "mma.tf32"

    T: ClassVar = VarConstraint("T", AnyAttr())
    input = operand_def(T)
    result = result_def(T)

    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, x: SSAValue):
        super().__init__(operands=[x], result_types=[x.type])

    def verify_(self) -> None:
        K._require_in_func(self)
        for v in (self.input, self.result):
            if not isinstance(v.type, Float32Type):
                raise VerifyException(f"'mma.tf32' rounds f32 values, got {v.type}")



# ---------------------------------------------------------------------------------------------
# mma.sync (sm_80+)


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """`%d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(...) b(...) c(...) : f32`: one warp's
    D = A * B + C on 16x8x8 tf32 (`mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`).

    Every lane of the warp executes it together; the fragments are laid out as the dialect doc
    says. The inputs are read as tf32 (the tensor core ignores their low 13 mantissa bits).
    """

    name = "mma.sync"

    a = var_operand_def(Float32Type)
    b = var_operand_def(Float32Type)
    c = var_operand_def(Float32Type)
    res = var_result_def(Float32Type)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, a: Sequence[SSAValue], b: Sequence[SSAValue], c: Sequence[SSAValue]):
        super().__init__(operands=[a, b, c], result_types=[[Float32Type()] * 4])

    def verify_(self) -> None:
        K._require_in_func(self)
        for what, vals, n in (("a", self.a, 4), ("b", self.b, 2), ("c", self.c, 4)):
            if len(vals) != n:
                raise VerifyException(
                    f"'mma.sync' m16n8k8 takes {n} '{what}' fragment values, got {len(vals)}"
                )
        if len(self.res) != 4:
            raise VerifyException(f"'mma.sync' m16n8k8 has 4 results, got {len(self.res)}")

    @classmethod
    def parse(cls, parser: Parser) -> MmaSyncOp:
        shape = parser.parse_identifier()
        if shape != "m16n8k8":
            parser.raise_error(f"'mma.sync' supports m16n8k8, got {shape}")
        groups = []
        for key in ("a", "b", "c"):
            parser.parse_keyword(key)
            groups.append(
                parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        a, b, c = ([parser.resolve_operand(v, t) for v in g] for g in groups)
        op = cls(a, b, c)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" m16n8k8")
        for key, vals in (("a", self.a), ("b", self.b), ("c", self.c)):
            printer.print_string(f" {key}(")
            printer.print_list(vals, printer.print_ssa_value)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : f32")


# ---------------------------------------------------------------------------------------------
# wgmma (sm_90a)

_WGMMA_SHAPE = re.compile(r"m64n(\d+)k8$")


def wgmma_n_ok(n: int) -> bool:
    return 8 <= n <= 256 and n % 8 == 0


def _verify_wgmma_acc(op: Operation, n: int, acc: SSAValue) -> None:
    """mma.wgmma's and mma.wgmma_rs's N and accumulators (a kernel.alloca of N/2 f32)."""
    if not wgmma_n_ok(n):
        raise VerifyException(f"'{op.name}' N must be a multiple of 8 in [8, 256], got {n}")
    acc_t = acc.type
    assert isinstance(acc_t, MemRefType)
    if (
        not isinstance(acc.owner, K.AllocaOp)
        or acc_t.get_shape() != (n // 2,)
        or not isinstance(acc_t.element_type, Float32Type)
    ):
        raise VerifyException(
            f"'{op.name}' accumulators must be a 'kernel.alloca' of {n // 2} f32 (m64n{n}k8), got {acc_t}"
        )


def _verify_wgmma_operands(op: Operation, func: K.KernelFuncOp, operands) -> None:
    """Each shared-memory operand (what, buffer, map, indices, rows it needs) of a wgmma, then
    whole warpgroups in the block."""
    for what, buf, amap, idx, rows in operands:
        K._verify_access(op, f"operand {what}", buf, amap, idx)
        t = _verify_swizzled_operand(op, f"operand {what}", buf)
        if t.get_shape()[-2] < rows:
            raise VerifyException(f"'{op.name}' operand {what} needs at least {rows} rows, got {t.get_shape()[-2]}")
    if func.num_threads % WARPGROUP:
        raise VerifyException(f"'{op.name}' needs whole warpgroups: the block has {func.num_threads} threads")


def _parse_wgmma_head(parser: Parser, name: str):
    """`m64n<N>k8 [overwrite] %acc` of a wgmma: (N, overwrite, the unresolved accumulators)."""
    shape = parser.parse_identifier()
    m = _WGMMA_SHAPE.match(shape)
    if m is None:
        parser.raise_error(f"'{name}' shape must be m64n<N>k8, got {shape}")
    overwrite = parser.parse_optional_keyword("overwrite") is not None
    return int(m.group(1)), overwrite, parser.parse_unresolved_operand()


def _print_wgmma_head(printer: Printer, op: WgmmaOp | WgmmaRsOp) -> None:
    printer.print_string(f" m64n{op.n.data}k8 " + ("overwrite " if op.overwrite else ""))
    printer.print_ssa_value(op.acc)


@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """`mma.wgmma m64nNk8 [overwrite] %acc, %a[...], %b[...] : acc, a, b types`: one
    warpgroup's acc += A(64x8) * B(Nx8)^T on tf32 from shared memory (`wgmma.mma_async ...
    .tf32.tf32`, both operands K-major, 128-byte swizzled), asynchronous until
    `mma.wgmma_wait`; with `overwrite`, acc = A * B^T (the old values are not read: PTX's
    scale-d = 0, how a fresh accumulator chain starts). The tensor cores round each sum into
    the accumulators toward zero, so long chains lose accuracy (see `mma.dot`'s promote).

    `a`'s indices name the first element (row, k) of A: the 64 rows from there along the
    second-to-last dim, the 8 columns from there along the innermost; `b`'s the first of the N
    rows of B. Rules: N a multiple of 8 in [8, 256]; `acc` a `kernel.alloca` of N/2 f32 (the
    warpgroup accumulator layout); `a` and `b` f32 shared buffers in the `#mma.swizzle<128>`
    layout with 32-float rows, at least 64 (a) / N (b) rows; inside a `kernel.func` whose block
    is whole warpgroups. That each operand starts at a row multiple of 8 and a column multiple of
    8 is checked by the kernel executor.
    """

    name = "mma.wgmma"

    n = prop_def(IntAttr)
    acc = operand_def(MemRefType)
    a = operand_def(MemRefType)
    a_indices = var_operand_def(IndexType)
    b = operand_def(MemRefType)
    b_indices = var_operand_def(IndexType)
    a_map = prop_def(AffineMapAttr)
    b_map = prop_def(AffineMapAttr)
    overwrite = opt_prop_def(UnitAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, n: int, acc: SSAValue, a: SSAValue, a_indices: Sequence[SSAValue],
                 a_map: AffineMap, b: SSAValue, b_indices: Sequence[SSAValue], b_map: AffineMap,
                 overwrite: bool = False):  # fmt: skip
        props: dict[str, Attribute] = {"n": IntAttr(n), "a_map": AffineMapAttr(a_map), "b_map": AffineMapAttr(b_map)}
        if overwrite:
            props["overwrite"] = UnitAttr()
        super().__init__(operands=[acc, a, a_indices, b, b_indices], properties=props)

    def verify_(self) -> None:
        func = K._require_in_func(self)
        _verify_wgmma_acc(self, self.n.data, self.acc)
        _verify_wgmma_operands(self, func, [("a", self.a, self.a_map.data, self.a_indices, 64),
                                            ("b", self.b, self.b_map.data, self.b_indices, self.n.data)])  # fmt: skip

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaOp:
        n, overwrite, acc = _parse_wgmma_head(parser, cls.name)
        parser.parse_punctuation(",")
        a, a_map, a_idx = K._parse_access(parser)
        parser.parse_punctuation(",")
        b, b_map, b_idx = K._parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [K._parse_memref_type(parser, cls.name)]
        for _ in range(2):
            parser.parse_punctuation(",")
            types.append(K._parse_memref_type(parser, cls.name))
        op = cls(n, parser.resolve_operand(acc, types[0]),
                 parser.resolve_operand(a, types[1]), a_idx, a_map,
                 parser.resolve_operand(b, types[2]), b_idx, b_map, overwrite)  # fmt: skip
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_wgmma_head(printer, self)
        printer.print_string(", ")
        K._print_access(printer, self.a, self.a_map.data, self.a_indices)
        printer.print_string(", ")
        K._print_access(printer, self.b, self.b_map.data, self.b_indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((self.acc.type, self.a.type, self.b.type), printer.print_attribute)


@irdl_op_definition
class WgmmaRsOp(IRDLOperation):
    """`mma.wgmma_rs m64nNk8 [overwrite] %acc, a(%a0, %a1, %a2, %a3), %b[...] : acc, b types`:
    one warpgroup's acc += A(64x8) * B(Nx8)^T on tf32 with A from registers (`wgmma.mma_async
    ... .tf32.tf32 d, {a0, a1, a2, a3}, b-desc`): each warp w holds rows 16 w .. 16 w + 15 of A
    in the mma.sync A fragment (a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)); B, the
    accumulators, `overwrite` and the asynchrony are `mma.wgmma`'s. Rules: `mma.wgmma`'s for N,
    `acc` and `b`, and four f32 fragment values.
    """

    name = "mma.wgmma_rs"

    n = prop_def(IntAttr)
    acc = operand_def(MemRefType)
    a = var_operand_def(Float32Type)
    b = operand_def(MemRefType)
    b_indices = var_operand_def(IndexType)
    b_map = prop_def(AffineMapAttr)
    overwrite = opt_prop_def(UnitAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, n: int, acc: SSAValue, a: Sequence[SSAValue], b: SSAValue,
                 b_indices: Sequence[SSAValue], b_map: AffineMap, overwrite: bool = False):  # fmt: skip
        props: dict[str, Attribute] = {"n": IntAttr(n), "b_map": AffineMapAttr(b_map)}
        if overwrite:
            props["overwrite"] = UnitAttr()
        super().__init__(operands=[acc, a, b, b_indices], properties=props)

    def verify_(self) -> None:
        func = K._require_in_func(self)
        _verify_wgmma_acc(self, self.n.data, self.acc)
        if len(self.a) != 4:
            raise VerifyException(f"'mma.wgmma_rs' m64nNk8 takes 4 'a' fragment values, got {len(self.a)}")
        _verify_wgmma_operands(self, func, [("b", self.b, self.b_map.data, self.b_indices, self.n.data)])

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaRsOp:
        n, overwrite, acc = _parse_wgmma_head(parser, cls.name)
        parser.parse_punctuation(",")
        parser.parse_keyword("a")
        a = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        parser.parse_punctuation(",")
        b, b_map, b_idx = K._parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        acc_t = K._parse_memref_type(parser, cls.name)
        parser.parse_punctuation(",")
        b_t = K._parse_memref_type(parser, cls.name)
        f32 = Float32Type()
        op = cls(n, parser.resolve_operand(acc, acc_t), [parser.resolve_operand(v, f32) for v in a],
                 parser.resolve_operand(b, b_t), b_idx, b_map, overwrite)  # fmt: skip
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_wgmma_head(printer, self)
        printer.print_string(", a(")
        printer.print_list(self.a, printer.print_ssa_value)
        printer.print_string("), ")
        K._print_access(printer, self.b, self.b_map.data, self.b_indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((self.acc.type, self.b.type), printer.print_attribute)


class _NoOperandOp(IRDLOperation):
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        K._require_in_func(self)


@irdl_op_definition
class WgmmaFenceOp(_NoOperandOp):
    """`mma.wgmma_fence`: order earlier register accesses before the next `mma.wgmma`
    (`wgmma.fence.sync.aligned`); needed before the first one and after `acc` is written."""

    name = "mma.wgmma_fence"


@irdl_op_definition
class WgmmaCommitOp(_NoOperandOp):
    """`mma.wgmma_commit`: the warpgroup's pending `mma.wgmma`s become one group."""

    name = "mma.wgmma_commit"


@irdl_op_definition
class WgmmaWaitOp(IRDLOperation):
    """`mma.wgmma_wait 1`: wait until at most N committed groups are pending; then the earlier
    groups' accumulators are written and their shared-memory reads done."""

    name = "mma.wgmma_wait"

    pending = prop_def(IntAttr)

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntAttr(pending)})

    def verify_(self) -> None:
        K._require_in_func(self)
        if not 0 <= self.pending.data <= 7:
            raise VerifyException(
                f"'mma.wgmma_wait' pending group count must be in [0, 7], got {self.pending.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaWaitOp:
        op = cls(parser.parse_integer(allow_boolean=False))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pending.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class FenceProxyAsyncOp(_NoOperandOp):
    """`mma.fence_proxy_async`: make this thread's earlier shared-memory stores visible to the
    asynchronous proxy (wgmma, TMA) once a barrier follows (`fence.proxy.async.shared::cta`)."""

    name = "mma.fence_proxy_async"


# ---------------------------------------------------------------------------------------------
# Tile level: operand stages and the per-point contraction


class Precision(StrEnum):
    """How an fp32 matmul multiplies: `ieee` (SIMT fp32 FMA), `3xtf32` (tensor cores, the
    3xTF32 split: fp32-level accuracy) or `tf32` (tensor cores, one TF32 pass: about 1e-3
    relative error, opt-in)."""

    IEEE = "ieee"
    TF32X3 = "3xtf32"
    TF32 = "tf32"


PRECISIONS = tuple(p.value for p in Precision)


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    name = "mma.precision"


class Layout(StrEnum):
    """Which instruction's accumulator fragment the tile's thread and cell axes form."""

    WGMMA = auto()
    MMA_SYNC = auto()


def chain_terms(precision: Precision | str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The MMAs of one K step of an accumulation chain as (A half, B half) pairs, 0 = hi and
    1 = lo, split into the small terms and the large: a chain runs the small terms of all its
    steps first, then the large ones (so the small sums are truncated relative to small values):
    3xtf32 ([lo*hi, hi*lo], [hi*hi]), tf32 ([], [hi*hi])."""
    return ([(1, 0), (0, 1)], [(0, 0)]) if Precision(precision) == Precision.TF32X3 else ([], [(0, 0)])


@irdl_attr_definition
class LayoutAttr(EnumAttribute[Layout], SpacedOpaqueSyntaxAttribute):
    name = "mma.layout"


# Fragment layouts, as affine expressions over (thread axes..., cell axes...) in tile order:
#
#   wgmma (BM = 64 W, BN = 8 J): threads (wg : W, w : 4, g : 8, t : 4), cells (h : 2, j : J, e : 2),
#     row = 64 wg + 16 w + 8 h + g, col = 8 j + 2 t + e; the cell (h, j, e) is acc[4 j + 2 h + e].
#   mma_sync (BM = 16 MI WM, BN = 8 NI WN): threads (wm : WM, wn : WN, g : 8, t : 4),
#     cells (mi : MI, ni : NI, h : 2, e : 2), row = 16 MI wm + 16 mi + 8 h + g,
#     col = 8 NI wn + 8 ni + 2 t + e; warp = wm WN + wn holds a 16 MI x 8 NI block of m16n8 tiles.


def wgmma_axes(bm: int, bn: int) -> tuple[list[int], list[int]]:
    """(thread extents, cell extents) of the wgmma fragment of a BM x BN block tile."""
    return [bm // 64, 4, 8, 4], [2, bn // 8, 2]


def mma_sync_axes(wm: int, wn: int, mi: int, ni: int) -> tuple[list[int], list[int]]:
    return [wm, wn, 8, 4], [mi, ni, 2, 2]


def fragment_exprs(layout: Layout, threads: Sequence[int], cells: Sequence[int]) -> tuple[AffineExpr, AffineExpr]:
    """(row, col) of a fragment point as expressions of dims (threads..., cells...)."""
    d = [AffineExpr.dimension(i) for i in range(len(threads) + len(cells))]
    if layout == Layout.WGMMA:
        wg, w, g, t, h, j, e = d
        return wg * 64 + w * 16 + h * 8 + g, j * 8 + t * 2 + e
    wm, wn, g, t, mi, ni, h, e = d
    return wm * (16 * cells[0]) + mi * 16 + h * 8 + g, wn * (8 * cells[1]) + ni * 8 + t * 2 + e


def fragment_tile(layout: Layout, threads: Sequence[int], cells: Sequence[int]) -> tuple[int, int] | None:
    """The (BM, BN) block tile a fragment's axes cover, or None if they are not its axes."""
    if layout == Layout.WGMMA:
        if len(threads) == 4 and len(cells) == 3 and list(threads[1:]) == [4, 8, 4] and cells[0] == 2 \
                and cells[2] == 2 and wgmma_n_ok(8 * cells[1]):  # fmt: skip
            return 64 * threads[0], 8 * cells[1]
        return None
    if len(threads) == 4 and len(cells) == 4 and list(threads[2:]) == [8, 4] and list(cells[2:]) == [2, 2]:
        return 16 * cells[0] * threads[0], 8 * cells[1] * threads[1]
    return None


def _linear_coefficients(expr: AffineExpr, n: int) -> tuple[list[int], int] | None:
    """`expr` over n dims as (coefficient per dim, constant), None if it is not linear."""
    if isinstance(expr, AffineConstantExpr):
        return [0] * n, expr.value
    if isinstance(expr, AffineDimExpr):
        c = [0] * n
        c[expr.position] = 1
        return c, 0
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = _linear_coefficients(expr.lhs, n), _linear_coefficients(expr.rhs, n)
        if lhs is None or rhs is None:
            return None
        if expr.kind == AffineBinaryOpKind.Add:
            return [a + b for a, b in zip(lhs[0], rhs[0])], lhs[1] + rhs[1]
        if expr.kind == AffineBinaryOpKind.Mul:
            if not any(rhs[0]):
                return [a * rhs[1] for a in lhs[0]], lhs[1] * rhs[1]
            if not any(lhs[0]):
                return [b * lhs[1] for b in rhs[0]], lhs[1] * rhs[1]
    return None


def _enclosing_tile(op: Operation) -> tile.TileOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, tile.TileOp):
        parent = parent.parent_op()
    return parent


def _thread_dependent(value: SSAValue, t: tile.TileOp, seen: set | None = None) -> bool:
    """Whether `value` depends on a thread or cell axis of tile `t`."""
    seen = set() if seen is None else seen
    if value in seen:
        return False
    seen.add(value)
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if owner is t:
            return t.axes[value.index][2] != tile.AxisKind.BLOCK
        return False
    owner = value.owner
    assert isinstance(owner, Operation)
    return any(_thread_dependent(o, t, seen) for o in owner.operands)


@irdl_op_definition
class StageYieldOp(IRDLOperation):
    """`mma.yield %v : f32` ends an `mma.stage` region with the element's value."""

    name = "mma.yield"
    value = operand_def(Float32Type)
    assembly_format = "$value attr-dict `:` type($value)"
    traits = traits_def(IsTerminator())

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


@irdl_op_definition
class StageOp(IRDLOperation):
    """`%s = mma.stage rows R k K { ^bb0(%r: index, %c: index): ... mma.yield %v : f32 }
    : memref<RxKxf32, #tile.smem>`: an MMA operand's slab in shared memory, K-major.

    Element (r, c) of the slab is the region's value at %r, %c (the operand row, e.g. m - m0,
    and the K offset in this K step): the loads and the math of an operand's prologue (a
    norm's scale, a transposed weight's index) are written there. Like `tile.stage` it is
    collective: every thread of the block reaches it, and the region uses no thread or cell axis
    (only block axes, loop variables and uniform values). How the slab gets there (registers,
    split into TF32 halves, swizzled) is the lowering's business.

    Rules: inside a `tile.tile`, not in a `tile.strided_for`; one block of two index arguments
    ending in `mma.yield`; a result of type memref<R x K x f32, #tile.smem> with R >= 1 and K a
    positive multiple of 8; no thread or cell axis used in the region.
    """

    name = "mma.stage"

    body = region_def("single_block")
    result = result_def(MemRefType)

    def __init__(self, rows: int, k: int, body: Region):
        super().__init__(regions=[body], result_types=[tile.smem_type([rows, k], Float32Type())])

    @property
    def rows(self) -> int:
        return self.result.type.get_shape()[0]  # type: ignore[union-attr]

    @property
    def k(self) -> int:
        return self.result.type.get_shape()[1]  # type: ignore[union-attr]

    @property
    def value(self) -> SSAValue:
        term = self.body.block.last_op
        assert isinstance(term, StageYieldOp)
        return term.value

    def verify_(self) -> None:
        t = _enclosing_tile(self)
        if t is None:
            raise VerifyException("'mma.stage' must be inside a 'tile.tile'")
        parent = self.parent_op()
        while parent is not None and parent is not t:
            if isinstance(parent, tile.StridedForOp):
                raise VerifyException("'mma.stage' is collective: not inside a 'tile.strided_for'")
            parent = parent.parent_op()
        rt = self.result.type
        if (
            not isinstance(rt, MemRefType)
            or not tile.is_smem(rt)
            or len(rt.get_shape()) != 2
            or not isinstance(rt.element_type, Float32Type)
            or rt.get_shape()[0] < 1
            or rt.get_shape()[1] < 8
            or rt.get_shape()[1] % 8
        ):
            raise VerifyException(
                f"'mma.stage' result must be memref<R x K x f32, #tile.smem> with R >= 1 and K a "
                f"positive multiple of 8, got {rt}"
            )
        block = self.body.block
        if len(block.args) != 2 or any(not isinstance(a.type, IndexType) for a in block.args):
            raise VerifyException("'mma.stage' region takes two index arguments (row, k)")
        if not isinstance(block.last_op, StageYieldOp):
            raise VerifyException("'mma.stage' region must end in 'mma.yield'")
        for op in block.walk():
            for o in op.operands:
                if _thread_dependent(o, t):
                    raise VerifyException(
                        "'mma.stage' is collective: its region must not use a thread or cell axis"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> StageOp:
        parser.parse_keyword("rows")
        parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("k")
        parser.parse_integer(allow_boolean=False)
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls.__new__(cls)
        IRDLOperation.__init__(op, regions=[body], result_types=[t])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        shape = self.result.type.get_shape()  # type: ignore[union-attr]
        printer.print_string(f" rows {shape[0]} k {shape[1]} ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class DotOp(IRDLOperation):
    """`%p = mma.dot %a[row], %b[col] precision "3xtf32" layout wgmma promote 4 : a type, b type`:
    sum over c of a[row, c] * b[col, c], the contraction of one K step at one output point, on
    the tensor cores in `precision` (`3xtf32` or `tf32`).

    The tensor cores accumulate in fp32 but round each MMA's sum toward zero, so the error of
    one accumulator chain grows with its length. `promote P` says how they run it: in chains of
    P MMA steps of 8 along K, each starting from zero and running the small terms of its steps
    first (3xtf32: lo*hi, hi*lo of each step, then hi*hi of each), every MMA rounding toward
    zero; the chains' sums are added in fp32 rounding to nearest ("promotion"), as the loop's
    accumulate adds the dot's value. P must divide the stage's K / 8; without it, one chain per
    dot (P = K / 8). `interpreters/tf32.contract` is this meaning.

    `a` and `b` are `mma.stage` slabs (A rows = M, B rows = N, both K-major); `row` and `col`
    are this point's row of A and of B. `layout` names the instruction whose accumulator
    fragment the enclosing tile's thread and cell axes form: the row and col maps must be that
    fragment's (see `fragment_exprs`), over the tile's axes, and cover the stages' rows.

    Rules: operands are `mma.stage` results of equal K; one index each, linear in tile axes;
    precision `3xtf32` or `tf32`; the enclosing tile's thread and cell axes are the layout's
    (wgmma: threads [W, 4, 8, 4], cells [2, J, 2]; mma_sync: threads [WM, WN, 8, 4], cells
    [MI, NI, 2, 2]), the maps are its row and col, and A has BM rows, B has BN rows.
    """

    name = "mma.dot"

    a = operand_def(MemRefType)
    a_indices = var_operand_def(IndexType)
    b = operand_def(MemRefType)
    b_indices = var_operand_def(IndexType)
    a_map = prop_def(AffineMapAttr)
    b_map = prop_def(AffineMapAttr)
    precision = prop_def(PrecisionAttr)
    layout = prop_def(LayoutAttr)
    promote = opt_prop_def(IntAttr)
    result = result_def(Float32Type)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, a: SSAValue, a_indices: Sequence[SSAValue], a_map: AffineMap,
                 b: SSAValue, b_indices: Sequence[SSAValue], b_map: AffineMap,
                 precision: Precision, layout: Layout, promote: int | None = None):  # fmt: skip
        props: dict[str, Attribute] = {
            "a_map": AffineMapAttr(a_map),
            "b_map": AffineMapAttr(b_map),
            "precision": PrecisionAttr(precision),
            "layout": LayoutAttr(layout),
        }
        if promote is not None:
            props["promote"] = IntAttr(promote)
        super().__init__(operands=[a, a_indices, b, b_indices], properties=props, result_types=[Float32Type()])

    @property
    def chain(self) -> int:
        """MMA steps of 8 per tensor-core accumulation chain (`promote`, else the stage's K / 8)."""
        if self.promote is not None:
            return self.promote.data
        owner = self.a.owner
        return owner.k // 8 if isinstance(owner, StageOp) else 1

    def verify_(self) -> None:
        t = _enclosing_tile(self)
        if t is None:
            raise VerifyException("'mma.dot' must be inside a 'tile.tile'")
        a_stage, b_stage = self.a.owner, self.b.owner
        if not isinstance(a_stage, StageOp) or not isinstance(b_stage, StageOp):
            raise VerifyException("'mma.dot' operands must be 'mma.stage' results")
        if a_stage.k != b_stage.k:
            raise VerifyException(
                f"'mma.dot' operands must have equal K, got {a_stage.k} and {b_stage.k}"
            )
        if self.precision.data == Precision.IEEE:
            raise VerifyException("'mma.dot' precision must be 3xtf32 or tf32 (ieee is the SIMT path)")
        steps = a_stage.k // 8
        if self.promote is not None and not (1 <= self.promote.data <= steps and steps % self.promote.data == 0):
            raise VerifyException(
                f"'mma.dot' promote must divide the stage's {steps} MMA steps of 8 along K, got "
                f"{self.promote.data}"
            )
        threads = [e for _, e, k in t.axes if k == tile.AxisKind.THREAD]
        cells = [e for _, e, k in t.axes if k == tile.AxisKind.CELL]
        layout = self.layout.data
        shape = fragment_tile(layout, threads, cells)
        if shape is None:
            raise VerifyException(
                f"'mma.dot' layout {layout.value} needs the tile's thread and cell axes to be its "
                f"fragment's, got threads {threads} and cells {cells}"
            )
        if (a_stage.rows, b_stage.rows) != shape:
            raise VerifyException(
                f"'mma.dot' stages must have {shape[0]} and {shape[1]} rows for this fragment, got "
                f"{a_stage.rows} and {b_stage.rows}"
            )
        order = [v for v, _, k in t.axes if k == tile.AxisKind.THREAD]
        order += [v for v, _, k in t.axes if k == tile.AxisKind.CELL]
        want = fragment_exprs(layout, threads, cells)
        for what, amap, idx, expect in (("row", self.a_map.data, self.a_indices, want[0]),
                                        ("col", self.b_map.data, self.b_indices, want[1])):  # fmt: skip
            if len(amap.results) != 1 or amap.num_symbols or amap.num_dims != len(idx):
                raise VerifyException(f"'mma.dot' {what} must be one index over its operands")
            if any(v not in order for v in idx):
                raise VerifyException(f"'mma.dot' {what} must use the tile's thread and cell axes only")
            dims = [AffineExpr.dimension(order.index(v)) for v in idx]
            got = _linear_coefficients(amap.results[0].replace_dims_and_symbols(dims, []), len(order))
            want_form = _linear_coefficients(expect, len(order))
            if got != want_form:
                assert want_form is not None
                terms = [(f"%{v.name_hint or i}" if c == 1 else f"%{v.name_hint or i} * {c}")
                         for i, (v, c) in enumerate(zip(order, want_form[0])) if c]  # fmt: skip
                raise VerifyException(
                    f"'mma.dot' {what} is not the {layout.value} fragment's: want {' + '.join(terms)}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> DotOp:
        a = parser.parse_unresolved_operand()
        a_map, a_idx = tile._parse_index_map(parser)
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        b_map, b_idx = tile._parse_index_map(parser)
        parser.parse_keyword("precision")
        precision = parser.parse_str_enum(Precision)
        parser.parse_keyword("layout")
        layout = parser.parse_str_enum(Layout)
        promote = None
        if parser.parse_optional_keyword("promote") is not None:
            promote = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        at = parser.parse_type()
        parser.parse_punctuation(",")
        bt = parser.parse_type()
        op = cls(parser.resolve_operand(a, at), a_idx, a_map, parser.resolve_operand(b, bt),
                 b_idx, b_map, precision, layout, promote)  # fmt: skip
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        K._print_access(printer, self.a, self.a_map.data, self.a_indices)
        printer.print_string(", ")
        K._print_access(printer, self.b, self.b_map.data, self.b_indices)
        printer.print_string(f' precision "{self.precision.data.value}" layout {self.layout.data.value}')
        if self.promote is not None:
            printer.print_string(f" promote {self.promote.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((self.a.type, self.b.type), printer.print_attribute)


TILE_OPS = [StageOp, StageYieldOp, DotOp]


KERNEL_OPS = [Tf32Op, MmaSyncOp, WgmmaOp, WgmmaRsOp, WgmmaFenceOp, WgmmaCommitOp, WgmmaWaitOp, FenceProxyAsyncOp]

Mma = Dialect("mma", [*KERNEL_OPS, *TILE_OPS], [SwizzleAttr, PrecisionAttr, LayoutAttr])
