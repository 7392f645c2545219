"""The kernel dialect: a GPU kernel as hardware primitives, one step above CUDA C++.

A `kernel.func` is one `__global__` function with its launch geometry. Its body is straight-line
code over thread/block indices, strided loops, guards, shared-memory and register buffers,
loads/stores with affine index maps, cp.async fills with commit/wait fences, barriers, warp
shuffles, and (sm_90) bulk TMA copies completed on an mbarrier. Scalar math is upstream
`arith` / `math`. `dpl-translate --to-cuda` prints it one op to one CUDA statement.

    kernel.func @k_rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>,
                            %rms_norm: memref<1x32x2048xf32>)
        grid [32, 1, 1] block [256, 1, 1] smem 0 {
      %a1 = kernel.block_id x
      %a0 = kernel.thread_id x
      %x_smem = kernel.smem : memref<2048xf32, #kernel.smem>
      kernel.for %f = %a0 to 2048 step 256 {
        %v = kernel.load %x[0, %a1, %f] : memref<1x32x2048xf32>
        kernel.store %v, %x_smem[%f] : memref<2048xf32, #kernel.smem>
      }
      kernel.barrier
      %acc0 = kernel.for %a2 = %a0 to 2048 step 256 -> f32 {
        %in2 = kernel.load %x_smem[%a2] : memref<2048xf32, #kernel.smem>
        %v1 = arith.mulf %in2, %in2 : f32
        kernel.accumulate add %v1 : f32
      }
      %s16 = kernel.shuffle_xor %acc0, 16 : f32
      ...
    }

Buffers: kernel arguments are global memory (memrefs with no memory space); `kernel.smem`
results are shared memory (`#kernel.smem` memory space); `kernel.alloca` results are per-thread
register arrays. Every access names one of these.
"""

from __future__ import annotations

import math

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.affine import _print_affine_map_of_ssa_ids
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    i1,
)
from xdsl.dialects.func import FuncOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    RecursiveMemoryEffect,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from dpl.dialects.loop import CombineKind, CombineKindAttr, check_divisors, parse_combines, print_combines
from dpl.dialects.types import element_bytes, memref_bytes

# The launch limits of the target (CUDA compute capability 9.0, the H100; every other current
# GPU allows the same or, for shared memory, less, which the runtime meets when it loads a kernel).
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_STATIC_SMEM = 48 * 1024
"""Static `__shared__` bytes a kernel may declare; more must be dynamic (`smem`)."""
MAX_SMEM = 227 * 1024
"""Shared memory bytes (static + dynamic) one block may use on sm_90."""
INDEX_BITS = (32, 64)
"""The widths index arithmetic may be printed in: 32 (the default) or 64 (`index_bits 64`)."""


# ---------------------------------------------------------------------------------------------
# Attributes


@irdl_attr_definition
class SharedMemorySpaceAttr(ParametrizedAttribute):
    """`#kernel.smem`: the memory space of a memref that lives in a CTA's shared memory."""

    name = "kernel.smem"


SMEM = SharedMemorySpaceAttr()


class Dim(StrEnum):
    """A launch dimension (CUDA's `.x`, `.y`, `.z`)."""

    X = auto()
    Y = auto()
    Z = auto()


@irdl_attr_definition
class DimAttr(EnumAttribute[Dim], SpacedOpaqueSyntaxAttribute):
    name = "kernel.dim"


#: The GPU targets dpl knows: arch -> (multiprocessors, shared memory bytes one block may use).
#: sm_80: A100 (108 SMs, 163 KiB); sm_90: H100 SXM (132, 227 KiB); sm_120: RTX 5090 (170, 99 KiB).
TARGETS: dict[str, tuple[int, int]] = {
    "sm_80": (108, 163 * 1024),
    "sm_90": (132, 227 * 1024),
    "sm_120": (170, 99 * 1024),
}
#: Threads one multiprocessor holds at once, per arch.
THREADS_PER_SM: dict[str, int] = {"sm_80": 2048, "sm_90": 2048, "sm_120": 1536}
SMEM_RESERVED_PER_BLOCK = 1024
"""Shared memory bytes the hardware reserves per resident block (sm_80 and later): a
multiprocessor has the most one block may use plus this."""
TARGET_KEY = "kernel.target"
"""The builtin.module attribute that holds the program's `#kernel.target`."""


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """`#kernel.target<sm_90, sms = 132, smem = 232448>`: the GPU a module is compiled for, as
    the `kernel.target` attribute of its builtin.module (`set-target`, `--target`): the arch
    (one of TARGETS), its multiprocessors and the shared memory bytes one block may use (at most
    the arch's). Passes that depend on the hardware read it (`transforms/tile/target.py`)."""

    name = "kernel.target"

    arch: StringAttr
    sms: IntAttr
    smem: IntAttr

    def __init__(self, arch: str, sms: int | None = None, smem: int | None = None):
        default_sms, default_smem = TARGETS.get(arch, (1, 1))
        super().__init__(
            StringAttr(arch),
            IntAttr(default_sms if sms is None else sms),
            IntAttr(default_smem if smem is None else smem),
        )

    @property
    def capability(self) -> int:
        """The compute capability as an integer (sm_90 -> 90)."""
        return int(self.arch.data.removeprefix("sm_"))

    @property
    def threads_per_sm(self) -> int:
        return THREADS_PER_SM[self.arch.data]

    @property
    def smem_per_sm(self) -> int:
        """Shared memory bytes of one multiprocessor: one block's most plus its reservation."""
        return self.smem.data + SMEM_RESERVED_PER_BLOCK

    def verify(self) -> None:
        arch, sms, smem = self.arch.data, self.sms.data, self.smem.data
        if arch not in TARGETS:
            raise VerifyException(
                f"#kernel.target arch must be one of {', '.join(TARGETS)}, got '{arch}'"
            )
        if sms < 1:
            raise VerifyException(f"#kernel.target sms must be at least 1, got {sms}")
        if not 1 <= smem <= TARGETS[arch][1]:
            raise VerifyException(
                f"#kernel.target smem must be in [1, {TARGETS[arch][1]}] on {arch}, got {smem}"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            arch = parser.parse_identifier("a target arch such as sm_90")
            values = []
            for key in ("sms", "smem"):
                parser.parse_punctuation(",")
                parser.parse_keyword(key)
                parser.parse_punctuation("=")
                values.append(IntAttr(parser.parse_integer(allow_boolean=False)))
        return [StringAttr(arch), *values]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.arch.data}, sms = {self.sms.data}, smem = {self.smem.data}>")


def module_target(module: Operation) -> TargetAttr | None:
    """The `#kernel.target` of builtin.module `module`, or None when it has none."""
    attr = module.attributes.get(TARGET_KEY)
    if attr is not None and not isinstance(attr, TargetAttr):
        raise ValueError(f"the module's {TARGET_KEY} must be a #kernel.target<...>, got {attr}")
    return attr


def is_shared(memref_type: Attribute) -> bool:
    return isinstance(memref_type, MemRefType) and memref_type.memory_space == SMEM


def is_global(memref_type: Attribute) -> bool:
    return isinstance(memref_type, MemRefType) and isinstance(memref_type.memory_space, NoneAttr)


# ---------------------------------------------------------------------------------------------
# Helpers


def enclosing_func(op: Operation) -> KernelFuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelFuncOp):
        parent = parent.parent_op()
    return parent


def _require_in_func(op: Operation) -> KernelFuncOp:
    func = enclosing_func(op)
    if func is None:
        raise VerifyException(f"'{op.name}' must be inside a 'kernel.func'")
    return func


def _is_buffer(value: SSAValue) -> bool:
    """Kernel argument, shared buffer or register array."""
    owner = value.owner
    if isinstance(owner, Block):
        return isinstance(owner.parent_op(), KernelFuncOp)
    return isinstance(owner, SmemOp | AllocaOp)


def _verify_access(
    op: Operation, what: str, memref: SSAValue, amap: AffineMap, indices: Sequence[SSAValue]
) -> MemRefType:
    check_divisors(op, amap)
    memref_type = memref.type
    assert isinstance(memref_type, MemRefType)
    rank = memref_type.get_num_dims()
    if len(amap.results) != rank:
        raise VerifyException(
            f"'{op.name}' indexes its rank-{rank} {what} with {len(amap.results)} indices"
        )
    if amap.num_dims + amap.num_symbols != len(indices):
        raise VerifyException(
            f"'{op.name}' index map takes {amap.num_dims + amap.num_symbols} values "
            f"but {len(indices)} were given"
        )
    if enclosing_func(op) is not None and not _is_buffer(memref):
        raise VerifyException(
            f"'{op.name}' {what} must be a kernel argument, a 'kernel.smem' or a 'kernel.alloca'"
        )
    return memref_type


def _parse_access(parser: Parser) -> tuple[UnresolvedOperand, AffineMap, Sequence[SSAValue]]:
    memref = parser.parse_unresolved_operand()
    amap, indices = parser.parse_affine_map_of_ssa_ids()
    return memref, amap, indices


def _parse_memref_type(parser: Parser, op_name: str) -> MemRefType:
    t = parser.parse_type()
    if not isinstance(t, MemRefType):
        parser.raise_error(f"'{op_name}' expects a memref type")
    return t


def _print_access(printer: Printer, memref: SSAValue, amap: AffineMap, indices) -> None:
    printer.print_ssa_value(memref)
    _print_affine_map_of_ssa_ids(printer, amap, indices)


def _verify_mbarrier(op: Operation, memref: SSAValue) -> None:
    t = memref.type
    if not (is_shared(t) and isinstance(t, MemRefType) and t.element_type == IntegerType(64)):
        raise VerifyException(f"'{op.name}' barrier must be an i64 'kernel.smem' buffer")


# ---------------------------------------------------------------------------------------------
# The kernel function


@irdl_op_definition
class KernelFuncOp(IRDLOperation):
    """`kernel.func @k(%x: memref<...>, ...) grid [gx, gy, gz] block [bx, by, bz] smem N {...}`.

    One `__global__` function. `grid`/`block` are the launch extents, `smem` the bytes of dynamic
    shared memory the launch reserves (carved up by `kernel.smem dynamic` buffers). The arguments
    are global memrefs (or scalars); those that some store writes are the outputs, the others are
    printed `const`.
    """

    name = "kernel.func"

    sym_name = prop_def(StringAttr)
    grid = prop_def(ArrayAttr[IntAttr])
    block = prop_def(ArrayAttr[IntAttr])
    smem = prop_def(IntAttr)
    index_bits = opt_prop_def(IntAttr)
    body = region_def("single_block")
    traits = traits_def(
        SymbolOpInterface(), IsolatedFromAbove(), NoTerminator(), RecursiveMemoryEffect()
    )

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        grid: Sequence[int],
        block: Sequence[int],
        smem: int = 0,
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=arg_types))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "grid": ArrayAttr([IntAttr(g) for g in grid]),
                "block": ArrayAttr([IntAttr(b) for b in block]),
                "smem": IntAttr(smem),
            },
            regions=[body],
        )

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    @property
    def grid_extents(self) -> tuple[int, ...]:
        return tuple(g.data for g in self.grid)

    @property
    def block_extents(self) -> tuple[int, ...]:
        return tuple(b.data for b in self.block)

    @property
    def index_bitwidth(self) -> int:
        """The width of this kernel's `index` arithmetic: 32 unless `index_bits` says 64."""
        return self.index_bits.data if self.index_bits is not None else 32

    @property
    def num_threads(self) -> int:
        return math.prod(self.block_extents)

    def element_counts(self) -> list[tuple[int, SSAValue | None]]:
        """The elements of each memref argument (with it) and the launch's threads (None): what
        a 32-bit kernel's indices must count (widen-indices and the CUDA printer check them)."""
        counts: list[tuple[int, SSAValue | None]] = [
            (math.prod(a.type.get_shape()), a) for a in self.args if isinstance(a.type, MemRefType)
        ]
        return counts + [(math.prod((*self.grid_extents, *self.block_extents)), None)]

    def static_smem_bytes(self) -> int:
        """Bytes of the kernel's statically sized shared buffers (dynamic ones excluded)."""
        return sum(
            op.size_bytes() for op in self.body.walk() if isinstance(op, SmemOp) and not op.is_dynamic
        )

    def written_args(self) -> set[SSAValue]:
        """The arguments some store writes (the kernel's outputs)."""
        written: set[SSAValue] = set()
        for op in self.body.walk():
            memref = getattr(op, "memref", None)
            if op.name in ("kernel.store", "loop.store", "kernel.atomic") and memref in self.args:
                written.add(memref)
        return written

    def read_args(self) -> set[SSAValue]:
        read: set[SSAValue] = set()
        for op in self.body.walk():
            if op.name in ("kernel.load", "loop.load") and op.memref in self.args:  # type: ignore[attr-defined]
                read.add(op.memref)  # type: ignore[attr-defined]
            if isinstance(op, CpAsyncOp | TmaLoadOp) and op.src in self.args:
                read.add(op.src)
        for arg in self.args:
            if not isinstance(arg.type, MemRefType):
                read.add(arg)
        return read

    def verify_(self) -> None:
        name = f"'kernel.func' @{self.sym_name.data}"
        for what, extents, limits in (
            ("grid", self.grid_extents, MAX_GRID),
            ("block", self.block_extents, MAX_BLOCK),
        ):
            if len(extents) != 3 or any(e < 1 for e in extents):
                raise VerifyException(f"{name} {what} must be three positive extents")
            for dim, e, limit in zip("xyz", extents, limits):
                if e > limit:
                    raise VerifyException(f"{name} {what} {dim} of {e} exceeds the target's {limit}")
        if self.num_threads > MAX_THREADS_PER_BLOCK:
            raise VerifyException(
                f"{name} block of {self.num_threads} threads exceeds {MAX_THREADS_PER_BLOCK}"
            )
        if self.smem.data < 0:
            raise VerifyException(f"{name} dynamic shared memory must be non-negative")
        # More than MAX_STATIC_SMEM of static buffers is legal IR (dynamic-smem moves them);
        # the CUDA printer refuses it, where the limit binds.
        static = self.static_smem_bytes()
        parent = self.parent_op()
        target = parent.attributes.get(TARGET_KEY) if parent is not None else None
        limit = target.smem.data if isinstance(target, TargetAttr) else MAX_SMEM
        if static + self.smem.data > limit:
            raise VerifyException(
                f"{name} uses {static + self.smem.data} bytes of shared memory, more than the "
                f"target's {limit} per block"
            )
        if self.index_bitwidth not in INDEX_BITS:
            raise VerifyException(f"{name} index_bits must be 32 or 64, got {self.index_bitwidth}")
        for arg in self.args:
            t = arg.type
            ok = is_global(t) or isinstance(t, IntegerType | IndexType | Float32Type | Float64Type)
            if isinstance(t, MemRefType) and not t.has_static_shape():
                ok = False
            if not ok:
                raise VerifyException(
                    f"{name} arguments must be statically shaped global memrefs or scalars"
                )

    @classmethod
    def parse(cls, parser: Parser) -> KernelFuncOp:
        name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=True)
        )

        def extents(keyword: str) -> list[int]:
            parser.parse_keyword(keyword)
            return parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )

        grid = extents("grid")
        block = extents("block")
        smem = 0
        if parser.parse_optional_keyword("smem"):
            smem = parser.parse_integer(allow_boolean=False)
        index_bits = None
        if parser.parse_optional_keyword("index_bits"):
            index_bits = parser.parse_integer(allow_boolean=False)
        body = parser.parse_region(args)
        attrs = parser.parse_optional_attr_dict()
        op = cls(name, [a.type for a in args], grid, block, smem, body)
        if index_bits is not None:
            op.index_bits = IntAttr(index_bits)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")

        def print_arg(arg: SSAValue) -> None:
            printer.print_ssa_value(arg)
            printer.print_string(": ")
            printer.print_attribute(arg.type)

        printer.print_list(self.args, print_arg)
        printer.print_string(")")
        printer.print_string(f" grid {list(self.grid_extents)} block {list(self.block_extents)}")
        printer.print_string(f" smem {self.smem.data} ")
        if self.index_bits is not None:
            printer.print_string(f"index_bits {self.index_bits.data} ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# Indices


class _DimIndexOp(IRDLOperation):
    dim = prop_def(DimAttr)
    result = result_def(IndexType)

    def __init__(self, dim: Dim):
        super().__init__(properties={"dim": DimAttr(dim)}, result_types=[IndexType()])

    assembly_format = "$dim attr-dict"

    def verify_(self) -> None:
        _require_in_func(self)


@irdl_op_definition
class ThreadIdOp(_DimIndexOp):
    """`%a0 = kernel.thread_id x`: threadIdx.x."""

    name = "kernel.thread_id"


@irdl_op_definition
class BlockIdOp(_DimIndexOp):
    """`%a1 = kernel.block_id x`: blockIdx.x."""

    name = "kernel.block_id"


@irdl_op_definition
class BlockDimOp(_DimIndexOp):
    """`%n = kernel.block_dim x`: blockDim.x."""

    name = "kernel.block_dim"


@irdl_op_definition
class GridDimOp(_DimIndexOp):
    """`%n = kernel.grid_dim x`: gridDim.x."""

    name = "kernel.grid_dim"


class _LinearIndexOp(IRDLOperation):
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        _require_in_func(self)


@irdl_op_definition
class LaneIdOp(_LinearIndexOp):
    """`%lane = kernel.lane_id`: the thread's lane in its warp (linear thread index & 31)."""

    name = "kernel.lane_id"


@irdl_op_definition
class WarpIdOp(_LinearIndexOp):
    """`%warp = kernel.warp_id`: the thread's warp in its block (linear thread index >> 5)."""

    name = "kernel.warp_id"


# ---------------------------------------------------------------------------------------------
# Control flow


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of `kernel.for` without results and of `kernel.if` (implicit in text)."""

    name = "kernel.yield"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator())


@irdl_op_definition
class AccumulateOp(IRDLOperation):
    """`kernel.accumulate add %v, max %w : f32, f32` ends a `kernel.for` with results.

    Each thread folds the i-th value into the loop's i-th result, which starts at the
    combiner's identity: printed `acc0 += v;` / `acc1 = fmaxf(acc1, w);`.
    """

    name = "kernel.accumulate"

    values = var_operand_def()
    kinds = prop_def(ArrayAttr[CombineKindAttr])
    traits = traits_def(IsTerminator())

    def __init__(self, kinds: Sequence[CombineKind], values: Sequence[SSAValue]):
        super().__init__(
            operands=[values],
            properties={"kinds": ArrayAttr([CombineKindAttr(k) for k in kinds])},
        )

    def verify_(self) -> None:
        if len(self.kinds) != len(self.values):
            raise VerifyException(
                f"'kernel.accumulate' has {len(self.kinds)} combiners for "
                f"{len(self.values)} values"
            )
        parent = self.parent_op()
        if not isinstance(parent, ForOp) or not parent.res:
            raise VerifyException("'kernel.accumulate' must end a 'kernel.for' with results")

    @classmethod
    def parse(cls, parser: Parser) -> AccumulateOp:
        return cls(*parse_combines(parser))

    def print(self, printer: Printer) -> None:
        print_combines(printer, self.kinds, self.values)


def _add_implicit_yield(region: Region) -> None:
    for block in region.blocks:
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator):
            block.add_op(YieldOp())
    if not region.blocks:
        region.add_block(Block([YieldOp()]))


@irdl_op_definition
class ForOp(IRDLOperation):
    """`kernel.for %i = %lb to 2048 step 256 [unroll [N]] [-> f32, ...] {...}`.

    A per-thread strided loop `for (int i = lb; i < ub; i += step)`. Each bound is an index SSA
    value or an integer constant. With results, the body ends in `kernel.accumulate` and each
    result is a thread-private accumulator starting at its combiner's identity. `unroll` asks for
    `#pragma unroll` (full) and `unroll N` for `#pragma unroll N`.
    """

    name = "kernel.for"

    lb = opt_operand_def(IndexType)
    ub = opt_operand_def(IndexType)
    step = opt_operand_def(IndexType)
    lb_const = opt_prop_def(IntAttr)
    ub_const = opt_prop_def(IntAttr)
    step_const = opt_prop_def(IntAttr)
    unroll = opt_prop_def(IntAttr)
    res = var_result_def()
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        lb: SSAValue | int,
        ub: SSAValue | int,
        step: SSAValue | int,
        body: Region | Block,
        result_types: Sequence[Attribute] = (),
        unroll: int | None = None,
    ):
        if isinstance(body, Block):
            body = Region(body)
        operands: list[list[SSAValue]] = []
        props: dict[str, Attribute] = {}
        for key, bound in (("lb", lb), ("ub", ub), ("step", step)):
            if isinstance(bound, int):
                operands.append([])
                props[f"{key}_const"] = IntAttr(bound)
            else:
                operands.append([bound])
        if unroll is not None:
            props["unroll"] = IntAttr(unroll)
        super().__init__(
            operands=operands, properties=props, regions=[body], result_types=[result_types]
        )

    @property
    def iv(self) -> SSAValue:
        return self.body.block.args[0]

    def bound(self, key: str) -> SSAValue | int:
        value = getattr(self, key)
        if value is not None:
            return value
        const = getattr(self, f"{key}_const")
        assert const is not None
        return const.data

    def verify_(self) -> None:
        _require_in_func(self)
        for key, what in (("lb", "lower bound"), ("ub", "upper bound"), ("step", "step")):
            if (getattr(self, key) is None) == (getattr(self, f"{key}_const") is None):
                raise VerifyException(
                    f"'kernel.for' {what} must be exactly one of an SSA value or a constant"
                )
        if self.step_const is not None and self.step_const.data < 1:
            raise VerifyException(f"'kernel.for' step must be positive, got {self.step_const.data}")
        if self.unroll is not None and self.unroll.data < 0:
            raise VerifyException(
                f"'kernel.for' unroll factor must be positive (or absent for full), "
                f"got {self.unroll.data}"
            )
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException("'kernel.for' body must take one index induction variable")
        last = self.body.block.last_op
        if self.res:
            if not isinstance(last, AccumulateOp):
                raise VerifyException(
                    "'kernel.for' with results must end its body in 'kernel.accumulate'"
                )
            if [v.type for v in last.values] != [r.type for r in self.res]:
                raise VerifyException(
                    "'kernel.for' results must match the types of the accumulated values"
                )
        elif not isinstance(last, YieldOp):
            raise VerifyException("'kernel.for' without results must end in 'kernel.yield'")

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        iv = parser.parse_argument(expect_type=False).resolve(IndexType())
        parser.parse_punctuation("=")

        def parse_bound() -> SSAValue | int:
            operand = parser.parse_optional_unresolved_operand()
            if operand is not None:
                return parser.resolve_operand(operand, IndexType())
            return parser.parse_integer(allow_boolean=False)

        lb = parse_bound()
        parser.parse_keyword("to")
        ub = parse_bound()
        parser.parse_keyword("step")
        step = parse_bound()
        unroll = None
        if parser.parse_optional_keyword("unroll"):
            unroll = parser.parse_optional_integer(allow_boolean=False) or 0
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        body = parser.parse_region((iv,))
        attrs = parser.parse_optional_attr_dict()
        if not result_types:
            _add_implicit_yield(body)
        op = cls(lb, ub, step, body, result_types, unroll)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        def print_bound(key: str) -> None:
            bound = self.bound(key)
            if isinstance(bound, int):
                printer.print_string(str(bound))
            else:
                printer.print_ssa_value(bound)

        printer.print_string(" ")
        printer.print_ssa_value(self.iv)
        printer.print_string(" = ")
        print_bound("lb")
        printer.print_string(" to ")
        print_bound("ub")
        printer.print_string(" step ")
        print_bound("step")
        if self.unroll is not None:
            printer.print_string(" unroll" + (f" {self.unroll.data}" if self.unroll.data else ""))
        if self.res:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.res], printer.print_attribute)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_block_terminators=bool(self.res)
        )
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class IfOp(IRDLOperation):
    """`kernel.if %cond { ... } [else { ... }]`: a guard, `if (lane == 0) {...}`."""

    name = "kernel.if"

    cond = operand_def(i1)
    then_region = region_def("single_block")
    else_region = region_def()
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, cond: SSAValue, then_region: Region, else_region: Region | None = None):
        super().__init__(
            operands=[cond], regions=[then_region, else_region or Region()]
        )

    def verify_(self) -> None:
        _require_in_func(self)
        for region in (self.then_region, self.else_region):
            for block in region.blocks:
                if not isinstance(block.last_op, YieldOp):
                    raise VerifyException("'kernel.if' regions must end in 'kernel.yield'")

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        then_region = parser.parse_region()
        _add_implicit_yield(then_region)
        else_region = Region()
        if parser.parse_optional_keyword("else"):
            else_region = parser.parse_region()
            _add_implicit_yield(else_region)
        op = cls(cond, then_region, else_region)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.cond)
        printer.print_string(" ")
        printer.print_region(self.then_region, print_block_terminators=False)
        if self.else_region.blocks:
            printer.print_string(" else ")
            printer.print_region(self.else_region, print_block_terminators=False)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# Buffers


@irdl_op_definition
class SmemOp(IRDLOperation):
    """`%s = kernel.smem [dynamic offset N] : memref<2048xf32, #kernel.smem>`: a shared buffer.

    Static buffers print `__shared__ float s[2048];`; dynamic ones are a typed view at byte
    `offset` of the launch's dynamic shared memory (`extern __shared__`), which must fit in the
    kernel's `smem` bytes.
    """

    name = "kernel.smem"

    offset = opt_prop_def(IntAttr)
    result = result_def(MemRefType)

    def __init__(self, memref_type: MemRefType, offset: int | None = None):
        props = {} if offset is None else {"offset": IntAttr(offset)}
        super().__init__(properties=props, result_types=[memref_type])

    @property
    def is_dynamic(self) -> bool:
        return self.offset is not None

    def size_bytes(self) -> int:
        t = self.result.type
        assert isinstance(t, MemRefType)
        return memref_bytes(t)

    def verify_(self) -> None:
        func = _require_in_func(self)
        t = self.result.type
        assert isinstance(t, MemRefType)
        if not is_shared(t):
            raise VerifyException(
                "'kernel.smem' result must be a memref in the #kernel.smem memory space"
            )
        if not t.has_static_shape():
            raise VerifyException("'kernel.smem' buffers must have a static shape")
        if self.offset is not None:
            if self.offset.data < 0 or self.offset.data % 16:
                raise VerifyException(
                    f"'kernel.smem' dynamic offset must be a non-negative multiple of 16, "
                    f"got {self.offset.data}"
                )
            end = self.offset.data + self.size_bytes()
            if end > func.smem.data:
                raise VerifyException(
                    f"'kernel.smem' dynamic buffer ends at byte {end}, past the kernel's "
                    f"{func.smem.data} bytes of dynamic shared memory"
                )

    @classmethod
    def parse(cls, parser: Parser) -> SmemOp:
        offset = None
        if parser.parse_optional_keyword("dynamic"):
            parser.parse_keyword("offset")
            offset = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(_parse_memref_type(parser, "kernel.smem"), offset)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.offset is not None:
            printer.print_string(f" dynamic offset {self.offset.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AllocaOp(IRDLOperation):
    """`%acc = kernel.alloca : memref<4xf32>`: a per-thread register array, `float acc[4];`."""

    name = "kernel.alloca"

    result = result_def(MemRefType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, memref_type: MemRefType):
        super().__init__(result_types=[memref_type])

    def verify_(self) -> None:
        _require_in_func(self)
        t = self.result.type
        assert isinstance(t, MemRefType)
        if not isinstance(t.memory_space, NoneAttr) or not t.has_static_shape():
            raise VerifyException(
                "'kernel.alloca' register arrays have a static shape and no memory space"
            )


# ---------------------------------------------------------------------------------------------
# Memory access


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = kernel.load %x[0, %a1, %f] : memref<1x32x2048xf32>`: read one element.

    `%v = kernel.load %x[0, %a1, %f * 4] vector 4 : ...` reads the 4 consecutive f32 elements
    starting there as one `vector<4xf32>` (a 16-byte `float4` load; see `_verify_vector`).

    `%v = kernel.load %x[...] if %inside : ...` is a masked load: it reads only where `%inside`
    (an i1) holds and is 0 (every lane 0) elsewhere. On the GPU it is a predicated load, whose
    result nothing waits for until it is used, where `select(%inside, load, 0)` makes the thread
    wait for the load at the select (ptxas places it at the load when registers are short: a
    register-staged tensor-core stage then waited for each of its 16 loads in turn).
    """

    name = "kernel.load"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    mask = opt_operand_def(i1)
    map = prop_def(AffineMapAttr)
    gather = opt_prop_def(UnitAttr)
    """`kernel.load %b[...] gather`: read once per lane where vectorize-access makes float4 the
    other accesses of its loop (`tile.gather`: a bias along an odd last dim)."""
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        memref: SSAValue,
        indices: Sequence[SSAValue],
        amap: AffineMap,
        vector: int | None = None,
        gather: bool = False,
        mask: SSAValue | None = None,
    ):
        assert isinstance(memref.type, MemRefType)
        t = memref.type.element_type
        props: dict[str, Attribute] = {"map": AffineMapAttr(amap)}
        if gather:
            props["gather"] = UnitAttr()
        super().__init__(
            operands=[memref, indices, [mask] if mask is not None else []],
            properties=props,
            result_types=[t if vector is None else VectorType(t, [vector])],
        )

    def verify_(self) -> None:
        _require_in_func(self)
        t = _verify_access(self, "buffer", self.memref, self.map.data, self.indices)
        if self.gather is not None and isinstance(self.result.type, VectorType):
            raise VerifyException("'kernel.load' gather reads one element per lane, not a vector")
        if isinstance(self.result.type, VectorType):
            _verify_vector(self, t, self.result.type)
        elif self.result.type != t.element_type:
            raise VerifyException(
                f"'kernel.load' result type {self.result.type} differs from the element "
                f"type of {t}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        memref, amap, indices = _parse_access(parser)
        vector = _parse_vector_width(parser)
        gather = parser.parse_optional_keyword("gather") is not None
        mask = None
        if parser.parse_optional_keyword("if"):
            mask = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_punctuation(":")
        t = _parse_memref_type(parser, cls.name)
        return cls(parser.resolve_operand(memref, t), indices, amap, vector, gather, mask)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        _print_vector_width(printer, self.result.type)
        if self.gather is not None:
            printer.print_string(" gather")
        if self.mask is not None:
            printer.print_string(" if ")
            printer.print_ssa_value(self.mask)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`kernel.store %v, %out[%a1, %a2] : memref<32x2048xf32>`: write one element.

    `kernel.store %v, %out[%a1, %a2 * 4] vector 4 : ...` writes a `vector<4xf32>` to the 4
    consecutive elements starting there (a 16-byte `float4` store).
    """

    name = "kernel.store"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)

    def __init__(
        self, value: SSAValue, memref: SSAValue, indices: Sequence[SSAValue], amap: AffineMap
    ):
        super().__init__(
            operands=[value, memref, indices], properties={"map": AffineMapAttr(amap)}
        )

    def verify_(self) -> None:
        _require_in_func(self)
        t = _verify_access(self, "buffer", self.memref, self.map.data, self.indices)
        if isinstance(self.value.type, VectorType):
            _verify_vector(self, t, self.value.type)
        elif self.value.type != t.element_type:
            raise VerifyException(
                f"'kernel.store' value type {self.value.type} differs from the element "
                f"type of {t}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref, amap, indices = _parse_access(parser)
        vector = _parse_vector_width(parser)
        parser.parse_punctuation(":")
        t = _parse_memref_type(parser, cls.name)
        value_type = t.element_type if vector is None else VectorType(t.element_type, [vector])
        return cls(
            parser.resolve_operand(value, value_type),
            parser.resolve_operand(memref, t),
            indices,
            amap,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        _print_vector_width(printer, self.value.type)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """`kernel.atomic add %v, %out[%i, %j] : memref<64x64xf32>`: `out[i, j] = add(out[i, j], v)`
    atomically (add: `atomicAdd`; max/min: a compare-and-swap loop). For split-K partials that
    several blocks fold into one global element."""

    name = "kernel.atomic"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    kind = prop_def(CombineKindAttr)
    map = prop_def(AffineMapAttr)

    def __init__(self, kind: CombineKind, value: SSAValue, memref: SSAValue,
                 indices: Sequence[SSAValue], amap: AffineMap):  # fmt: skip
        super().__init__(
            operands=[value, memref, indices],
            properties={"kind": CombineKindAttr(kind), "map": AffineMapAttr(amap)},
        )

    def verify_(self) -> None:
        _require_in_func(self)
        t = _verify_access(self, "buffer", self.memref, self.map.data, self.indices)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"'kernel.atomic' value type {self.value.type} differs from the element type of {t}"
            )
        if self.kind.data == CombineKind.MUL:
            raise VerifyException("'kernel.atomic' supports add, max and min, not mul")
        if not is_global(t):
            raise VerifyException("'kernel.atomic' writes a global buffer (a kernel argument)")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicOp:
        kind = parser.parse_str_enum(CombineKind)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref, amap, indices = _parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = _parse_memref_type(parser, cls.name)
        op = cls(kind, parser.resolve_operand(value, t.element_type),
                 parser.resolve_operand(memref, t), indices, amap)  # fmt: skip
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)


# ---------------------------------------------------------------------------------------------
# Asynchronous copies and barriers


CP_ASYNC_BYTES = (4, 8, 16)


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """`kernel.cp_async %dst[...], %src[...] bytes 4 : memref<.., #kernel.smem>, memref<..>`.

    One thread's asynchronous global -> shared copy of `bytes` bytes (cp.async.ca/cg), completed
    by `kernel.cp_async_commit` + `kernel.cp_async_wait` (+ `kernel.barrier` for other threads).
    """

    name = "kernel.cp_async"

    dst = operand_def(MemRefType)
    dst_indices = var_operand_def(IndexType)
    src = operand_def(MemRefType)
    src_indices = var_operand_def(IndexType)
    dst_map = prop_def(AffineMapAttr)
    src_map = prop_def(AffineMapAttr)
    bytes = prop_def(IntAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        dst: SSAValue,
        dst_indices: Sequence[SSAValue],
        dst_map: AffineMap,
        src: SSAValue,
        src_indices: Sequence[SSAValue],
        src_map: AffineMap,
        nbytes: int,
    ):
        super().__init__(
            operands=[dst, dst_indices, src, src_indices],
            properties={
                "dst_map": AffineMapAttr(dst_map),
                "src_map": AffineMapAttr(src_map),
                "bytes": IntAttr(nbytes),
            },
        )

    def verify_(self) -> None:
        _require_in_func(self)
        dst_t = _verify_access(self, "destination", self.dst, self.dst_map.data, self.dst_indices)
        src_t = _verify_access(self, "source", self.src, self.src_map.data, self.src_indices)
        if self.bytes.data not in CP_ASYNC_BYTES:
            raise VerifyException(
                f"'kernel.cp_async' copies 4, 8 or 16 bytes, got {self.bytes.data}"
            )
        if not is_shared(dst_t):
            raise VerifyException("'kernel.cp_async' destination must be shared memory")
        if not is_global(src_t) or not isinstance(self.src.owner, Block):
            raise VerifyException("'kernel.cp_async' source must be a global kernel argument")
        if dst_t.element_type != src_t.element_type:
            raise VerifyException(
                "'kernel.cp_async' source and destination element types differ"
            )
        if self.bytes.data % element_bytes(dst_t.element_type):
            raise VerifyException(
                "'kernel.cp_async' byte count must be a multiple of the element size"
            )

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncOp:
        dst, dst_map, dst_indices = _parse_access(parser)
        parser.parse_punctuation(",")
        src, src_map, src_indices = _parse_access(parser)
        parser.parse_keyword("bytes")
        nbytes = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        dst_t = _parse_memref_type(parser, cls.name)
        parser.parse_punctuation(",")
        src_t = _parse_memref_type(parser, cls.name)
        op = cls(
            parser.resolve_operand(dst, dst_t),
            dst_indices,
            dst_map,
            parser.resolve_operand(src, src_t),
            src_indices,
            src_map,
            nbytes,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.dst, self.dst_map.data, self.dst_indices)
        printer.print_string(", ")
        _print_access(printer, self.src, self.src_map.data, self.src_indices)
        printer.print_string(f" bytes {self.bytes.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.dst.type)
        printer.print_string(", ")
        printer.print_attribute(self.src.type)


@irdl_op_definition
class CpAsyncCommitOp(IRDLOperation):
    """`kernel.cp_async_commit`: close the thread's current group of cp.async copies."""

    name = "kernel.cp_async_commit"
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _require_in_func(self)


@irdl_op_definition
class CpAsyncWaitOp(IRDLOperation):
    """`kernel.cp_async_wait 0`: wait until at most N committed groups are still in flight."""

    name = "kernel.cp_async_wait"

    pending = prop_def(IntAttr)

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntAttr(pending)})

    def verify_(self) -> None:
        _require_in_func(self)
        if self.pending.data < 0:
            raise VerifyException(
                f"'kernel.cp_async_wait' pending group count must be non-negative, "
                f"got {self.pending.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncWaitOp:
        op = cls(parser.parse_integer(allow_boolean=False))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pending.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`kernel.barrier`: block-wide barrier, `__syncthreads()`."""

    name = "kernel.barrier"
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _require_in_func(self)


# ---------------------------------------------------------------------------------------------
# Warp shuffles


class _ShuffleOp(IRDLOperation):
    value = operand_def()
    offset = prop_def(IntAttr)
    width = prop_def(IntAttr)
    result = result_def()

    def __init__(self, value: SSAValue, offset: int, width: int = 32):
        super().__init__(
            operands=[value],
            properties={"offset": IntAttr(offset), "width": IntAttr(width)},
            result_types=[value.type],
        )

    def verify_(self) -> None:
        _require_in_func(self)
        t = self.value.type
        if not (
            isinstance(t, Float32Type | Float64Type)
            or (isinstance(t, IntegerType) and t.width.data in (32, 64))
        ):
            raise VerifyException(f"'{self.name}' shuffles 32- or 64-bit scalars, got {t}")
        w = self.width.data
        if w not in (2, 4, 8, 16, 32):
            raise VerifyException(f"'{self.name}' width must be a power of two up to 32, got {w}")
        if not 1 <= self.offset.data < w:
            raise VerifyException(
                f"'{self.name}' offset must be in [1, {w}), got {self.offset.data}"
            )

    @classmethod
    def parse(cls, parser: Parser):
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_integer(allow_boolean=False)
        width = 32
        if parser.parse_optional_keyword("width"):
            width = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(value, t), offset, width)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(f", {self.offset.data}")
        if self.width.data != 32:
            printer.print_string(f" width {self.width.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)


@irdl_op_definition
class ShuffleXorOp(_ShuffleOp):
    """`%s = kernel.shuffle_xor %v, 16 : f32`: `__shfl_xor_sync(0xffffffff, v, 16)`."""

    name = "kernel.shuffle_xor"


@irdl_op_definition
class ShuffleDownOp(_ShuffleOp):
    """`%s = kernel.shuffle_down %v, 16 : f32`: `__shfl_down_sync(0xffffffff, v, 16)`."""

    name = "kernel.shuffle_down"


# ---------------------------------------------------------------------------------------------
# sm_90: bulk (TMA) copies completed on an mbarrier


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """`kernel.tma_load %dst[...], %src[...] bytes 4096 barrier %bar[0] : dst, src, bar types`.

    One thread issues a bulk asynchronous copy (the TMA engine, `cp.async.bulk`) of `bytes`
    contiguous bytes from global to shared memory; completion is signalled on the mbarrier as
    transaction bytes (pair with `kernel.mbarrier_arrive_expect_tx` and `kernel.mbarrier_wait`).
    Both addresses must be 16-byte aligned.
    """

    name = "kernel.tma_load"

    dst = operand_def(MemRefType)
    dst_indices = var_operand_def(IndexType)
    src = operand_def(MemRefType)
    src_indices = var_operand_def(IndexType)
    barrier = operand_def(MemRefType)
    barrier_indices = var_operand_def(IndexType)
    dst_map = prop_def(AffineMapAttr)
    src_map = prop_def(AffineMapAttr)
    barrier_map = prop_def(AffineMapAttr)
    bytes = prop_def(IntAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, dst, dst_indices, dst_map, src, src_indices, src_map, bar, bar_indices,
                 bar_map, nbytes: int):  # fmt: skip
        super().__init__(
            operands=[dst, dst_indices, src, src_indices, bar, bar_indices],
            properties={
                "dst_map": AffineMapAttr(dst_map),
                "src_map": AffineMapAttr(src_map),
                "barrier_map": AffineMapAttr(bar_map),
                "bytes": IntAttr(nbytes),
            },
        )

    def verify_(self) -> None:
        _require_in_func(self)
        dst_t = _verify_access(self, "destination", self.dst, self.dst_map.data, self.dst_indices)
        src_t = _verify_access(self, "source", self.src, self.src_map.data, self.src_indices)
        _verify_access(
            self, "barrier", self.barrier, self.barrier_map.data, self.barrier_indices
        )
        if self.bytes.data < 16 or self.bytes.data % 16:
            raise VerifyException(
                f"'kernel.tma_load' byte count must be a positive multiple of 16, "
                f"got {self.bytes.data}"
            )
        if not is_shared(dst_t):
            raise VerifyException("'kernel.tma_load' destination must be shared memory")
        if not is_global(src_t):
            raise VerifyException("'kernel.tma_load' source must be global memory")
        _verify_mbarrier(self, self.barrier)

    @classmethod
    def parse(cls, parser: Parser) -> TmaLoadOp:
        dst, dst_map, dst_indices = _parse_access(parser)
        parser.parse_punctuation(",")
        src, src_map, src_indices = _parse_access(parser)
        parser.parse_keyword("bytes")
        nbytes = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("barrier")
        bar, bar_map, bar_indices = _parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [_parse_memref_type(parser, cls.name)]
        for _ in range(2):
            parser.parse_punctuation(",")
            types.append(_parse_memref_type(parser, cls.name))
        op = cls(
            parser.resolve_operand(dst, types[0]), dst_indices, dst_map,
            parser.resolve_operand(src, types[1]), src_indices, src_map,
            parser.resolve_operand(bar, types[2]), bar_indices, bar_map,
            nbytes,
        )  # fmt: skip
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.dst, self.dst_map.data, self.dst_indices)
        printer.print_string(", ")
        _print_access(printer, self.src, self.src_map.data, self.src_indices)
        printer.print_string(f" bytes {self.bytes.data} barrier ")
        _print_access(printer, self.barrier, self.barrier_map.data, self.barrier_indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(
            [self.dst.type, self.src.type, self.barrier.type], printer.print_attribute
        )


class _MbarrierOp(IRDLOperation):
    """Shared pieces: an mbarrier is one i64 element of a `kernel.smem` buffer."""

    barrier = operand_def(MemRefType)
    barrier_indices = var_operand_def(IndexType)
    barrier_map = prop_def(AffineMapAttr)


    def _verify_barrier(self) -> None:
        _require_in_func(self)
        _verify_access(
            self, "barrier", self.barrier, self.barrier_map.data, self.barrier_indices
        )
        _verify_mbarrier(self, self.barrier)


@irdl_op_definition
class MbarrierInitOp(_MbarrierOp):
    """`kernel.mbarrier_init %bar[0] count 1 : memref<1xi64, #kernel.smem>`.

    Initialise the mbarrier for `count` arriving threads (one thread does this, then a
    `kernel.barrier` publishes it).
    """

    name = "kernel.mbarrier_init"

    count = prop_def(IntAttr)

    def __init__(self, bar: SSAValue, indices: Sequence[SSAValue], amap: AffineMap, count: int):
        super().__init__(
            operands=[bar, indices],
            properties={"barrier_map": AffineMapAttr(amap), "count": IntAttr(count)},
        )

    def verify_(self) -> None:
        self._verify_barrier()
        if self.count.data < 1:
            raise VerifyException(
                f"'kernel.mbarrier_init' arrival count must be positive, got {self.count.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierInitOp:
        bar, amap, indices = _parse_access(parser)
        parser.parse_keyword("count")
        count = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = _parse_memref_type(parser, cls.name)
        op = cls(parser.resolve_operand(bar, t), indices, amap, count)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.barrier, self.barrier_map.data, self.barrier_indices)
        printer.print_string(f" count {self.count.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.barrier.type)


@irdl_op_definition
class MbarrierArriveExpectTxOp(_MbarrierOp):
    """`kernel.mbarrier_arrive_expect_tx %bar[0] bytes 4096 : memref<1xi64, #kernel.smem>`.

    Arrive on the mbarrier and announce `bytes` transaction bytes still to land (from
    `kernel.tma_load`s signalling it).
    """

    name = "kernel.mbarrier_arrive_expect_tx"

    bytes = prop_def(IntAttr)

    def __init__(self, bar: SSAValue, indices: Sequence[SSAValue], amap: AffineMap, nbytes: int):
        super().__init__(
            operands=[bar, indices],
            properties={"barrier_map": AffineMapAttr(amap), "bytes": IntAttr(nbytes)},
        )

    def verify_(self) -> None:
        self._verify_barrier()
        if self.bytes.data < 0:
            raise VerifyException(
                f"'kernel.mbarrier_arrive_expect_tx' byte count must be non-negative, "
                f"got {self.bytes.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierArriveExpectTxOp:
        bar, amap, indices = _parse_access(parser)
        parser.parse_keyword("bytes")
        nbytes = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = _parse_memref_type(parser, cls.name)
        op = cls(parser.resolve_operand(bar, t), indices, amap, nbytes)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.barrier, self.barrier_map.data, self.barrier_indices)
        printer.print_string(f" bytes {self.bytes.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.barrier.type)


@irdl_op_definition
class MbarrierWaitOp(_MbarrierOp):
    """`kernel.mbarrier_wait %bar[0] phase %p : memref<1xi64, #kernel.smem>`.

    Spin until the mbarrier's phase with parity `%p` (index, 0 or 1) has completed.
    """

    name = "kernel.mbarrier_wait"

    phase = operand_def(IndexType)

    def __init__(
        self, bar: SSAValue, indices: Sequence[SSAValue], amap: AffineMap, phase: SSAValue
    ):
        super().__init__(
            operands=[phase, bar, indices], properties={"barrier_map": AffineMapAttr(amap)}
        )

    def verify_(self) -> None:
        self._verify_barrier()

    @classmethod
    def parse(cls, parser: Parser) -> MbarrierWaitOp:
        bar, amap, indices = _parse_access(parser)
        parser.parse_keyword("phase")
        phase = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = _parse_memref_type(parser, cls.name)
        op = cls(parser.resolve_operand(bar, t), indices, amap, phase)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.barrier, self.barrier_map.data, self.barrier_indices)
        printer.print_string(" phase ")
        printer.print_ssa_value(self.phase)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.barrier.type)


# ---------------------------------------------------------------------------------------------
# Host side


#: `{kernel.tail_of = @k_mul}` on a kernel (`tile.kernel`, then `kernel.func`) that
#: collapse-pointwise split off as the last elements of @k_mul: it touches only elements of
#: @k_mul's buffers that @k_mul does not, so the two may run at once (fuse-launches fuses a tail
#: with its kernel whatever its block; a decision recorded where it is made).
TAIL_OF = "kernel.tail_of"

#: `{kernel.apart = "k_cat"}` on kernels (`loop.kernel` to `kernel.func`) that split-nests made
#: of one kernel's nests and found to write disjoint elements, none reading what another writes
#: (a concat's parts): fuse-launches may run them in one launch although they write one buffer.
APART = "kernel.apart"


def is_view(param: Attribute, arg: Attribute) -> bool:
    """Whether a kernel parameter of type `param` takes a buffer of type `arg` as a row-major
    view: both memrefs of one element type and memory space and element count (`memref<28xf32>`
    for `memref<4x7xf32>`: flatten-buffers' flat view; `memref<64x5440xf32>` for
    `memref<64x5x17x64xf32>`: merge-dims' `loop.view`, which outline-kernels folds here)."""
    return (
        isinstance(param, MemRefType) and isinstance(arg, MemRefType)
        and param.element_type == arg.element_type
        and param.memory_space == arg.memory_space
        and param.has_static_shape() and arg.has_static_shape()
        and math.prod(param.get_shape()) == math.prod(arg.get_shape())
    )  # fmt: skip


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """`kernel.launch @k(%x, %w, %out) : memref<...>, memref<...>, memref<...>`.

    One launch of the `kernel.func @k` of the enclosing module, from the host program
    (`func.func @main`), with the program's buffers as its arguments in the kernel's order. A
    kernel may take a buffer as a row-major view of it (`memref<28xf32>` for `memref<4x7xf32>`:
    the same elements in row-major order; flatten-buffers, merge-dims), else each type is the
    argument's.
    Launches run in program order on one stream; the runtime and the CPU executors follow them.
    """

    name = "kernel.launch"

    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()

    assembly_format = "$callee `(` $args `)` (`:` type($args)^)? attr-dict"

    def __init__(self, callee: str, args: Sequence[SSAValue]):
        super().__init__(operands=[args], properties={"callee": SymbolRefAttr(callee)})

    def kernel_func(self) -> KernelFuncOp | None:
        """The launched `kernel.func`, looked up in the nearest enclosing module (None if absent)."""
        module = self.parent_op()
        while module is not None and not isinstance(module, ModuleOp):
            module = module.parent_op()
        if module is None:
            return None
        found = SymbolTable.lookup_symbol(module, self.callee)
        return found if isinstance(found, KernelFuncOp) else None

    def verify_(self) -> None:
        name = f"'kernel.launch' @{self.callee.string_value()}"
        if not isinstance(self.parent_op(), FuncOp):
            raise VerifyException(f"{name} must be inside a func.func (the host program)")
        func = self.kernel_func()
        if func is None:
            raise VerifyException(f"{name} names no kernel.func of the module")
        want = [a.type for a in func.args]
        got = [a.type for a in self.args]
        if any(w != g and not is_view(w, g) for w, g in zip(want, got)) or len(want) != len(got):
            raise VerifyException(
                f"{name} argument types {[str(t) for t in got]} do not match the kernel's "
                f"{[str(t) for t in want]}"
            )


# ---------------------------------------------------------------------------------------------
# Vector accesses: `kernel.load ... vector 4` / `kernel.store ... vector 4` move one
# `vector<4xf32>` (a CUDA `float4`); `kernel.extract` / `kernel.pack` go between it and its lanes.

VECTOR_WIDTH = 4


def _parse_vector_width(parser: Parser) -> int | None:
    if parser.parse_optional_keyword("vector"):
        return parser.parse_integer(allow_boolean=False)
    return None


def _print_vector_width(printer: Printer, t: Attribute) -> None:
    if isinstance(t, VectorType):
        printer.print_string(f" vector {t.get_shape()[0]}")


def is_float4(t: Attribute) -> bool:
    """`vector<4xf32>`, the one vector type kernel IR moves (CUDA `float4`)."""
    return (
        isinstance(t, VectorType)
        and t.get_shape() == (VECTOR_WIDTH,)
        and isinstance(t.element_type, Float32Type)
    )


def _verify_vector(op: Operation, memref_type: MemRefType, t: VectorType) -> None:
    """A vector access moves 4 x f32 of a global or shared buffer that is 1-D (one row, from
    the 16-byte aligned base: flatten-buffers' flat views) or whose innermost extent is a
    multiple of 4, so every row starts 16-byte aligned; that the index itself is a multiple of 4
    and the 4 elements lie inside the buffer is the producer's promise (`vectorize-access`
    proves it)."""
    if not is_float4(t) or t.element_type != memref_type.element_type:
        raise VerifyException(
            f"'{op.name}' vector accesses move vector<4xf32> of an f32 buffer, got {t}"
        )
    if not (is_global(memref_type) or is_shared(memref_type)) or _is_alloca(op):
        raise VerifyException(f"'{op.name}' vector accesses need a global or shared buffer")
    shape = memref_type.get_shape()
    if not shape or (len(shape) > 1 and shape[-1] % VECTOR_WIDTH):
        raise VerifyException(
            f"'{op.name}' vector accesses need a 1-D buffer or an innermost extent that is a "
            "multiple of 4"
        )


def _is_alloca(op: Operation) -> bool:
    memref = getattr(op, "memref", None)
    return memref is not None and isinstance(memref.owner, AllocaOp)


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """`%e = kernel.extract %v[2] : vector<4xf32>`: one lane of a vector, `float e = v.z;`."""

    name = "kernel.extract"

    vector = operand_def(VectorType)
    lane = prop_def(IntAttr)
    result = result_def()

    def __init__(self, vector: SSAValue, lane: int):
        assert isinstance(vector.type, VectorType)
        super().__init__(
            operands=[vector],
            properties={"lane": IntAttr(lane)},
            result_types=[vector.type.element_type],
        )

    def verify_(self) -> None:
        t = self.vector.type
        if not is_float4(t):
            raise VerifyException(f"'kernel.extract' takes a vector<4xf32>, got {t}")
        if not 0 <= self.lane.data < VECTOR_WIDTH:
            raise VerifyException(f"'kernel.extract' lane must be in [0, 4), got {self.lane.data}")
        if self.result.type != t.element_type:
            raise VerifyException("'kernel.extract' result type must be the vector's element type")

    @classmethod
    def parse(cls, parser: Parser) -> ExtractOp:
        vector = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        lane = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(vector, parser.parse_type()), lane)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.vector)
        printer.print_string(f"[{self.lane.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.vector.type)


@irdl_op_definition
class PackOp(IRDLOperation):
    """`%v = kernel.pack %a, %b, %c, %d : vector<4xf32>`: lanes into a vector, `make_float4`."""

    name = "kernel.pack"

    lanes = var_operand_def()
    result = result_def(VectorType)

    def __init__(self, lanes: Sequence[SSAValue]):
        super().__init__(
            operands=[lanes], result_types=[VectorType(lanes[0].type, [len(lanes)])]
        )

    def verify_(self) -> None:
        t = self.result.type
        if not is_float4(t):
            raise VerifyException(f"'kernel.pack' builds a vector<4xf32>, got {t}")
        assert isinstance(t, VectorType)
        if len(self.lanes) != VECTOR_WIDTH or any(v.type != t.element_type for v in self.lanes):
            raise VerifyException("'kernel.pack' takes 4 values of the vector's element type")

    @classmethod
    def parse(cls, parser: Parser) -> PackOp:
        lanes = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, VectorType):
            parser.raise_error("'kernel.pack' expects a vector type")
        op = cls([parser.resolve_operand(v, t.element_type) for v in lanes])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.lanes, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


Kernel = Dialect(
    "kernel",
    [
        KernelFuncOp,
        ThreadIdOp,
        BlockIdOp,
        BlockDimOp,
        GridDimOp,
        LaneIdOp,
        WarpIdOp,
        ForOp,
        YieldOp,
        AccumulateOp,
        IfOp,
        SmemOp,
        AllocaOp,
        LoadOp,
        StoreOp,
        AtomicOp,
        CpAsyncOp,
        CpAsyncCommitOp,
        CpAsyncWaitOp,
        BarrierOp,
        ShuffleXorOp,
        ShuffleDownOp,
        TmaLoadOp,
        MbarrierInitOp,
        MbarrierArriveExpectTxOp,
        MbarrierWaitOp,
        LaunchOp,
        ExtractOp,
        PackOp,
    ],
    [SharedMemorySpaceAttr, DimAttr, TargetAttr],
)
