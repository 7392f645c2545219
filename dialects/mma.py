"""The mma dialect: tensor-core matrix multiply-accumulate, at the kernel level.

Hardware primitives for fp32 matmuls on the tensor cores, printed one op to one CUDA statement
next to the `kernel` dialect's ops (they live in a `kernel.func`):

    %hi = mma.tf32 %x : f32                         // cvt.rna.tf32.f32: nearest TF32, ties away
    %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%a0, %a1, %a2, %a3) b(%b0, %b1) c(%c0, %c1, %c2, %c3) : f32
    mma.wgmma m64n128k8 %acc, %a[%s, %wg * 64, %kk * 8], %b[%s, 0, %kk * 8]
        : memref<64xf32>, memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<...>
    mma.wgmma_fence / mma.wgmma_commit / mma.wgmma_wait 1 / mma.fence_proxy_async

The 3xTF32 split of an fp32 product is written with these: a_hi = tf32(a), a_lo = tf32(a - a_hi)
(the same for b), a*b ~ a_lo*b_hi + a_hi*b_lo + a_hi*b_hi, the small terms first, accumulated
in fp32 by the MMA.

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

`#mma.swizzle<128>` is a shared buffer's layout: rows of 128 bytes (the innermost dim), whose
16-byte chunk c of row r sits at chunk c ^ (r mod 8), the 128-byte swizzle wgmma reads
K-major operands in (and TMA writes). It is physical only: an access at an index reads the
element at that index, the printer applies the swizzle to the address.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AffineMapAttr,
    Float32Type,
    IndexType,
    IntAttr,
    MemRefLayoutAttr,
    MemRefType,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    param_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dpl.dialects import kernel as K

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

    input = operand_def()
    result = result_def()

    def __init__(self, x: SSAValue):
        super().__init__(operands=[x], result_types=[x.type])

    def verify_(self) -> None:
        K._require_in_func(self)
        for v in (self.input, self.result):
            if not isinstance(v.type, Float32Type):
                raise VerifyException(f"'mma.tf32' rounds f32 values, got {v.type}")

    @classmethod
    def parse(cls, parser: Parser) -> Tf32Op:
        x = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(x, parser.parse_type()))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)


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


@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """`mma.wgmma m64nNk8 %acc, %a[...], %b[...] : acc, a, b types`: one warpgroup's
    acc += A(64x8) * B(Nx8)^T on tf32 from shared memory (`wgmma.mma_async ... .tf32.tf32`,
    both operands K-major, 128-byte swizzled), asynchronous until `mma.wgmma_wait`.

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
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, n: int, acc: SSAValue, a: SSAValue, a_indices: Sequence[SSAValue],
                 a_map: AffineMap, b: SSAValue, b_indices: Sequence[SSAValue], b_map: AffineMap):  # fmt: skip
        super().__init__(
            operands=[acc, a, a_indices, b, b_indices],
            properties={"n": IntAttr(n), "a_map": AffineMapAttr(a_map), "b_map": AffineMapAttr(b_map)},
        )

    def verify_(self) -> None:
        func = K._require_in_func(self)
        n = self.n.data
        if not wgmma_n_ok(n):
            raise VerifyException(f"'mma.wgmma' N must be a multiple of 8 in [8, 256], got {n}")
        acc_t = self.acc.type
        assert isinstance(acc_t, MemRefType)
        if (
            not isinstance(self.acc.owner, K.AllocaOp)
            or acc_t.get_shape() != (n // 2,)
            or not isinstance(acc_t.element_type, Float32Type)
        ):
            raise VerifyException(
                f"'mma.wgmma' accumulators must be a 'kernel.alloca' of {n // 2} f32 (m64n{n}k8), "
                f"got {acc_t}"
            )
        for what, buf, amap, idx, rows in (
            ("a", self.a, self.a_map.data, self.a_indices, 64),
            ("b", self.b, self.b_map.data, self.b_indices, n),
        ):
            K._verify_access(self, f"operand {what}", buf, amap, idx)
            t = _verify_swizzled_operand(self, f"operand {what}", buf)
            if t.get_shape()[-2] < rows:
                raise VerifyException(
                    f"'mma.wgmma' operand {what} needs at least {rows} rows, got {t.get_shape()[-2]}"
                )
        if func.num_threads % WARPGROUP:
            raise VerifyException(
                f"'mma.wgmma' needs whole warpgroups: the block has {func.num_threads} threads"
            )

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaOp:
        shape = parser.parse_identifier()
        m = _WGMMA_SHAPE.match(shape)
        if m is None:
            parser.raise_error(f"'mma.wgmma' shape must be m64n<N>k8, got {shape}")
        acc = parser.parse_unresolved_operand()
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
        op = cls(int(m.group(1)), parser.resolve_operand(acc, types[0]),
                 parser.resolve_operand(a, types[1]), a_idx, a_map,
                 parser.resolve_operand(b, types[2]), b_idx, b_map)  # fmt: skip
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" m64n{self.n.data}k8 ")
        printer.print_ssa_value(self.acc)
        printer.print_string(", ")
        K._print_access(printer, self.a, self.a_map.data, self.a_indices)
        printer.print_string(", ")
        K._print_access(printer, self.b, self.b_map.data, self.b_indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((self.acc.type, self.a.type, self.b.type), printer.print_attribute)


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


KERNEL_OPS = [Tf32Op, MmaSyncOp, WgmmaOp, WgmmaFenceOp, WgmmaCommitOp, WgmmaWaitOp, FenceProxyAsyncOp]

Mma = Dialect("mma", KERNEL_OPS, [SwizzleAttr])
