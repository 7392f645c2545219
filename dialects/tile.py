"""The tile dialect: a loop nest scheduled onto the GPU.

A `tile.kernel` is one launch. Its body holds one `tile.tile`, whose axes are mapped to CUDA blocks
(`block`), threads (`thread`) or per-thread registers (`cell`, a register tile). Inside, the loop
dialect is reused as is: `loop.for`, `loop.load`, `loop.store`, `loop.accumulate`, plus upstream
`arith` / `math` for scalars. The tile dialect adds only what scheduling needs:

    tile.strided_for   a thread-strided loop `%a2 = %a0 to 2048 step 256` (free or reduce)
    tile.stage         a slab of an input hoisted into shared memory (`#tile.smem` memrefs), with
                       double buffering, padding, cp.async / TMA and swizzle as typed annotations
    tile.combine       a cooperative reduction of a per-thread partial across thread axes
    tile.atomic        an atomic read-modify-write of one output element (split-K partials)
    tile.hold          a thread's strided elements of an input loaded once into registers
    {tile.unroll}      a unit attribute on a loop: emit `#pragma unroll`
    {tile.pipeline=N}  an integer attribute on a K-outer loop: software-pipeline its async stages
    {tile.masked=[d]}  on an access (load, store, atomic, stage): the buffer dims whose index may
                       leave the buffer; elements outside read as 0 and are not written

The seeds' RMSNorm after stage-inputs:

    tile.kernel @k_rms_norm ins(%x, %w : memref<1x32x2048xf32>, memref<2048xf32>)
                            outs(%out : memref<1x32x2048xf32>) {
      tile.tile (%a0 : 256 = thread, %a1 : 32 = block) {
        %x_smem = tile.stage %x origin [0, %a1, 0] slab [a2 : 2048 at 2]
                  : memref<1x32x2048xf32> -> memref<2048xf32, #tile.smem>
        %p = tile.strided_for reduce %a2 = %a0 to 2048 step 256 -> f32 {
          %in2 = loop.load %x_smem[%a2] : memref<2048xf32, #tile.smem>
          %v1 = arith.mulf %in2, %in2 : f32
          loop.accumulate add %v1 : f32
        }
        %acc0 = tile.combine add %p across [%a0] warp_shuffle : f32
        ...
      }
    }

Semantics. The body of `tile.tile` runs once for every point of its axes (block x thread x cell).
Thread axes are flattened row-major in the listed order (the last listed varies fastest); so are
block axes. Cell axes are virtual threads that one real thread runs unrolled in registers: ops that
do not depend on a cell axis are the same for every cell and are emitted once. `tile.stage` and
`tile.combine` are collective: every thread of the block reaches them together.
"""

from __future__ import annotations

import math

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.affine import _print_affine_map_of_ssa_ids
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, MemoryReadEffect, NoTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from dpl.dialects import loop
from dpl.dialects.loop import (
    AccumulateOp,
    CombineKind,
    CombineKindAttr,
    IterKind,
    IterKindAttr,
    YieldOp,
)

MAX_BLOCK_THREADS = 1024
"""CUDA's limit on the threads of one block; collective ops need all their threads in one."""

MAX_CELLS = 256
"""The largest register block (product of cell extents) one thread may own."""

SWIZZLE_BYTES = (32, 64, 128)
"""The TMA swizzle modes (bytes of the swizzled span)."""

UNROLL = "tile.unroll"
"""Name of the unit attribute that marks a `loop.for` / `tile.strided_for` for `#pragma unroll`."""

PIPELINE = "tile.pipeline"
"""Name of the integer attribute that marks a K-outer `loop.for` for software pipelining."""

MASKED = "tile.masked"
"""Name of the attribute on a `loop.load` / `loop.store` / `tile.atomic` / `tile.stage` of a
global buffer whose indices may fall outside the buffer (a tile padded past a ragged size): the
buffer dims (of the stage's source) whose index may leave it, `{tile.masked = [0 : i64]}`. An
element outside reads as 0 (a load, a stage's fill) or is not written (a store, an atomic)."""

GATHER = "tile.gather"
"""Name of the unit attribute on a `loop.load` of a global buffer that vectorize-pointwise gave
the loop of a vector group although its index is not contiguous (a bias along an odd last dim,
read at `(%f_v * 4 + %f_l) mod 9889`): vectorize-access reads it once per lane, beside the
float4 accesses of the other buffers (the CUDA `kernel.load ... gather`)."""


# --------------------------------------------------------------------------------------------
# Attributes


class AxisKind(StrEnum):
    """What a tile axis is mapped to."""

    BLOCK = auto()
    THREAD = auto()
    CELL = auto()


@irdl_attr_definition
class AxisKindAttr(EnumAttribute[AxisKind], SpacedOpaqueSyntaxAttribute):
    name = "tile.axis_kind"


class CopyKind(StrEnum):
    """How a stage moves its slab from global to shared memory."""

    SYNC = auto()  # ordinary loads and stores by all threads, then a barrier
    ASYNC = auto()  # cp.async (sm_80+), commit/wait groups
    TMA = auto()  # one bulk tensor copy (sm_90+), mbarrier


@irdl_attr_definition
class CopyKindAttr(EnumAttribute[CopyKind], SpacedOpaqueSyntaxAttribute):
    name = "tile.copy"


class CombineStrategy(StrEnum):
    """How `tile.combine` merges partials: smem tree, or warp shuffles then a tree over warps."""

    TREE = auto()
    WARP_SHUFFLE = auto()


@irdl_attr_definition
class CombineStrategyAttr(EnumAttribute[CombineStrategy], SpacedOpaqueSyntaxAttribute):
    name = "tile.strategy"


@irdl_attr_definition
class SharedMemoryAttr(ParametrizedAttribute):
    """`#tile.smem`: the memory space of a memref that lives in the block's shared memory."""

    name = "tile.smem"


@irdl_attr_definition
class SlabDimAttr(ParametrizedAttribute):
    """One dimension of a stage's slab: `a2 : 2048 at 2` (label, extent, source dim).

    The label is only a name for readers (the seeds' axis name, or `cell` for a register-tile
    dimension); it carries no meaning. Slab dims that map to the same source dim are combined
    with the earlier one more significant: `[a0 : 8 at 0, cell : 2 at 0]` covers source rows
    `origin + a0 * 2 + cell`.
    """

    name = "tile.slab_dim"

    label: StringAttr = param_def(StringAttr)
    extent: IntAttr = param_def(IntAttr)
    dim: IntAttr = param_def(IntAttr)

    def __init__(self, extent: int, dim: int, label: str = ""):
        super().__init__(StringAttr(label), IntAttr(extent), IntAttr(dim))

    @classmethod
    def parse_one(cls, parser: AttrParser) -> SlabDimAttr:
        label = ""
        ident = parser.parse_optional_identifier()
        if ident is not None:
            label = ident
            parser.parse_punctuation(":")
        extent = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_keyword("at")
        dim = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return cls(extent, dim, label)

    def print_one(self, printer: Printer) -> None:
        if self.label.data:
            printer.print_string(f"{self.label.data} : ")
        printer.print_string(f"{self.extent.data} at {self.dim.data}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        one = cls.parse_one(parser)
        parser.parse_punctuation(">")
        return one.parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        self.print_one(printer)
        printer.print_string(">")


def smem_type(shape: Sequence[int], element_type: Attribute) -> MemRefType:
    """The type of a shared-memory buffer: `memref<shape x element_type, #tile.smem>`."""
    return MemRefType(element_type, shape, NoneAttr(), SharedMemoryAttr())


def is_smem(value_or_type: SSAValue | Attribute) -> bool:
    t = value_or_type.type if isinstance(value_or_type, SSAValue) else value_or_type
    return isinstance(t, MemRefType) and isinstance(t.memory_space, SharedMemoryAttr)


def mark_unroll(op: Operation) -> None:
    """Ask for `#pragma unroll` on a `loop.for` or `tile.strided_for` (mark-unroll)."""
    op.attributes[UNROLL] = UnitAttr()


def is_unrolled(op: Operation) -> bool:
    return UNROLL in op.attributes


def mark_masked(op: Operation, dims: Sequence[int]) -> None:
    """Let an access's indices leave its buffer along `dims`: reads there give 0, writes there
    are dropped."""
    op.attributes[MASKED] = ArrayAttr([IntegerAttr(d, 64) for d in sorted(set(dims))])


def masked_dims(op: Operation) -> list[int]:
    """The buffer dims along which an access may leave its buffer (`tile.masked`), or []."""
    attr = op.attributes.get(MASKED)
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.value.data for a in attr if isinstance(a, IntegerAttr)]


def is_masked(op: Operation) -> bool:
    return MASKED in op.attributes


def mark_gather(op: Operation) -> None:
    """Let vectorize-access read this load once per lane of a vector group (`tile.gather`)."""
    op.attributes[GATHER] = UnitAttr()


def is_gather(op: Operation) -> bool:
    return GATHER in op.attributes


def axis_deps(t: "TileOp") -> dict[SSAValue, frozenset[int]]:
    """The positions of the axes of tile `t` each value inside it depends on: through operands;
    a region's block arguments (a loop's index) on its op's operands; an op's results also on
    what its regions' terminators take (a loop's accumulated values); a `tile.combine`'s results
    not on the axes it combines across (every thread of them holds the same value)."""
    deps: dict[SSAValue, frozenset[int]] = {a: frozenset({i}) for i, a in enumerate(t.body.block.args)}
    position = {a: i for i, a in enumerate(t.body.block.args)}

    def of(values) -> frozenset[int]:
        return frozenset().union(*(deps.get(v, frozenset()) for v in values))

    def walk(block: Block) -> None:
        for op in block.ops:
            head = of(op.operands)
            if isinstance(op, CombineOp):
                spanned = {position[a] for a in op.axes if a in position}
                for r, v in zip(op.res, op.values):
                    deps[r] = deps.get(v, frozenset()) - spanned
                continue
            inner: frozenset[int] = frozenset()
            for region in op.regions:
                for b in region.blocks:
                    for a in b.args:
                        deps[a] = head
                    walk(b)
                    if b.last_op is not None:
                        inner |= of(b.last_op.operands)
            for r in op.results:
                deps[r] = head | inner

    walk(t.body.block)
    return deps


def write_axes(t: "TileOp", deps: dict[SSAValue, frozenset[int]], op: Operation) -> frozenset[int]:
    """The axes of tile `t` a store or atomic `op` inside it depends on: its operands (value,
    indices) and the operands of the loops and conditions around it within the tile. Across the
    thread axes not among them every thread would write the same element with the same value:
    one of them (the one at 0) does it (materialize's guard; an atomic must fold once)."""
    memref = getattr(op, "memref", None)
    out = frozenset().union(*(deps.get(v, frozenset()) for v in op.operands if v is not memref))
    parent = op.parent_op()
    while parent is not None and parent is not t:
        out |= frozenset().union(*(deps.get(v, frozenset()) for v in parent.operands))
        parent = parent.parent_op()
    return out


def pipeline_depth(op: Operation) -> int | None:
    """The software-pipelining depth a K-outer loop is marked with, or None."""
    attr = op.attributes.get(PIPELINE)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


# --------------------------------------------------------------------------------------------
# Helpers


def _parse_index_map(parser: Parser) -> tuple[AffineMap, list[SSAValue]]:
    """`[%a1, %a2 * 32]`: an index map whose dimensions are the SSA values, in order (as loop's)."""
    amap, indices = parser.parse_affine_map_of_ssa_ids()
    dims = [AffineExpr.dimension(i) for i in range(amap.num_dims + amap.num_symbols)]
    amap = amap.replace_dims_and_symbols(
        dims[: amap.num_dims], dims[amap.num_dims :], len(dims), 0
    )
    return amap, list(indices)


def _verify_index_map(name: str, what: str, amap: AffineMap, values: Sequence[SSAValue]) -> None:
    if amap.num_symbols:
        raise VerifyException(f"'{name}' {what} map must not have symbols")
    if amap.num_dims != len(values):
        raise VerifyException(
            f"'{name}' {what} map takes {amap.num_dims} values but {len(values)} were given"
        )


def _int_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: parser.parse_integer(allow_boolean=False, allow_negative=True),
    )


def _enclosing(op: Operation, cls: type[Operation]) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, cls):
        parent = parent.parent_op()
    return parent


def _axis_of(value: SSAValue) -> tuple[TileOp, int] | None:
    """If `value` is an axis index of a `tile.tile`, that op and the axis position."""
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if isinstance(owner, TileOp):
            return owner, value.index
    return None


def _is_loop_iv(value: SSAValue) -> bool:
    if not isinstance(value, BlockArgument):
        return False
    owner = value.block.parent_op()
    return isinstance(owner, (loop.ForOp, StridedForOp))


# --------------------------------------------------------------------------------------------
# Ops


@irdl_op_definition
class TileOp(IRDLOperation):
    """`tile.tile (%a0 : 256 = thread, %a1 : 32 = block) { ... }`: the launch grid.

    Each axis has an extent and a kind; the body's block arguments are the axis indices.
    `cell` axes form the per-thread register tile: `(%a0 : 8 = thread, %a1 : 8 = thread,
    %c0 : 2 = cell, %c1 : 2 = cell)` gives each of 64 threads a 2x2 block of outputs.

    Bound form, an in-between state of `materialize` (outline-kernels makes it, lower-axes
    removes it): inside a `kernel.func`, each axis names the block/thread index it is, and the
    tile names the flat thread index its thread axes were split from:

        tile.tile (%a0 : 16 = thread at %a0_1, %a1 : 16 = thread at %a1_1,
                   %b : 4 = block at %b_1) thread_id %tid { ... }

    The body runs once per thread with each axis equal to its bound index.
    """

    name = "tile.tile"

    bindings = var_operand_def(IndexType)
    thread_index = opt_operand_def(IndexType)
    extents = prop_def(ArrayAttr[IntAttr])
    kinds = prop_def(ArrayAttr[AxisKindAttr])
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        axes: Sequence[tuple[int, AxisKind]],
        body: Region | Block | None = None,
        bindings: Sequence[SSAValue] = (),
        thread_index: SSAValue | None = None,
    ):
        if body is None:
            body = Block(arg_types=[IndexType()] * len(axes))
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[bindings, [thread_index] if thread_index is not None else []],
            properties={
                "extents": ArrayAttr([IntAttr(e) for e, _ in axes]),
                "kinds": ArrayAttr([AxisKindAttr(k) for _, k in axes]),
            },
            regions=[body],
        )

    @property
    def axes(self) -> list[tuple[SSAValue, int, AxisKind]]:
        """(index value, extent, kind) for each axis, in order."""
        return [
            (arg, e.data, k.data)
            for arg, e, k in zip(self.body.block.args, self.extents, self.kinds)
        ]

    @property
    def is_bound(self) -> bool:
        return bool(self.bindings)

    def axes_of_kind(self, kind: AxisKind) -> list[tuple[SSAValue, int]]:
        return [(v, e) for v, e, k in self.axes if k == kind]

    def count(self, kind: AxisKind) -> int:
        return math.prod(e for _, e in self.axes_of_kind(kind))

    def verify_(self) -> None:
        if len(self.extents) != len(self.kinds):
            raise VerifyException(
                f"'tile.tile' has {len(self.extents)} extents for {len(self.kinds)} axis kinds"
            )
        if not self.extents:
            raise VerifyException("'tile.tile' needs at least one axis")
        args = self.body.block.args
        if len(args) != len(self.extents) or any(not isinstance(a.type, IndexType) for a in args):
            raise VerifyException("'tile.tile' body must take one index argument per axis")
        for e in self.extents:
            if e.data < 1:
                raise VerifyException(f"'tile.tile' axis extent must be positive, got {e.data}")
        if not isinstance(self.parent_op(), KernelOp):  # inside a kernel.func (tile.kernel checks its own)
            for op in self.walk():
                if MASKED in op.attributes:
                    KernelOp._verify_masked("'tile.tile'", op)
        cells = self.count(AxisKind.CELL)
        if cells > MAX_CELLS:
            raise VerifyException(
                f"'tile.tile' cell axes give each thread {cells} registers, more than {MAX_CELLS}"
            )
        if not self.is_bound:
            if self.thread_index is not None:
                raise VerifyException("'tile.tile' has a thread_id but no bound axes")
            if not isinstance(self.parent_op(), KernelOp):
                raise VerifyException("'tile.tile' must be directly inside a 'tile.kernel'")
            return
        self._verify_bound()

    def _verify_bound(self) -> None:
        if len(self.bindings) != len(self.extents):
            raise VerifyException(
                f"'tile.tile' binds {len(self.bindings)} of its {len(self.extents)} axes: "
                "bind all or none"
            )
        if any(k.data == AxisKind.CELL for k in self.kinds):
            raise VerifyException("'tile.tile' with bound axes has no cell axes (unroll-cells)")
        if self.axes_of_kind(AxisKind.THREAD) and self.thread_index is None:
            raise VerifyException("'tile.tile' with bound thread axes needs its thread_id")
        parent = self.parent_op()
        while parent is not None and parent.name != "kernel.func":
            parent = parent.parent_op()
        if parent is None:
            raise VerifyException("'tile.tile' with bound axes must be inside a 'kernel.func'")

    @classmethod
    def parse(cls, parser: Parser) -> TileOp:
        def parse_axis():
            arg = parser.parse_argument(expect_type=False).resolve(IndexType())
            parser.parse_punctuation(":")
            extent = parser.parse_integer(allow_boolean=False, allow_negative=True)
            parser.parse_punctuation("=")
            kind = parser.parse_str_enum(AxisKind)
            bound = parser.parse_operand(IndexType()) if parser.parse_optional_keyword("at") else None
            return arg, extent, kind, bound

        axes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_axis)
        bindings = [b for *_, b in axes if b is not None]
        tid = parser.parse_operand(IndexType()) if parser.parse_optional_keyword("thread_id") else None
        body = parser.parse_region([a for a, *_ in axes])
        attrs = parser.parse_optional_attr_dict()
        op = cls([(e, k) for _, e, k, _ in axes], body, bindings, tid)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        bound = list(self.bindings) if self.is_bound else [None] * len(self.extents)

        def print_axis(axis, binding) -> None:
            printer.print_ssa_value(axis[0])
            printer.print_string(f" : {axis[1]} = {axis[2]}")
            if binding is not None:
                printer.print_string(" at ")
                printer.print_ssa_value(binding)

        printer.print_list(zip(self.axes, bound), lambda ab: print_axis(*ab))
        printer.print_string(") ")
        if self.thread_index is not None:
            printer.print_string("thread_id ")
            printer.print_ssa_value(self.thread_index)
            printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class StridedForOp(IRDLOperation):
    """`tile.strided_for free %a2 = %a0 to 2048 step 256 { ... }`: a thread-strided loop.

    The induction variable runs start, start + step, ... while below the bound. The start is an
    index value (usually a thread axis, or a flattened `a0 * 8 + a1`), the bound and the step are
    constants. Like `loop.for`, a free loop's body ends in the implicit `loop.yield`; a reduce
    loop's body ends in `loop.accumulate`, whose values it folds into its results.
    """

    name = "tile.strided_for"

    start = operand_def(IndexType)
    kind = prop_def(IterKindAttr)
    bound = prop_def(IntAttr)
    step = prop_def(IntAttr)
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        kind: IterKind,
        start: SSAValue,
        bound: int,
        step: int,
        body: Region | Block,
        result_types: Sequence[Attribute] = (),
    ):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[start],
            properties={
                "kind": IterKindAttr(kind),
                "bound": IntAttr(bound),
                "step": IntAttr(step),
            },
            regions=[body],
            result_types=[result_types],
        )

    @property
    def iv(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def is_reduce(self) -> bool:
        return self.kind.data == IterKind.REDUCE

    def verify_(self) -> None:
        if self.bound.data < 1:
            raise VerifyException(
                f"'tile.strided_for' bound must be positive, got {self.bound.data}"
            )
        if self.step.data < 1:
            raise VerifyException(f"'tile.strided_for' step must be positive, got {self.step.data}")
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException("'tile.strided_for' body must take one index induction variable")
        last = self.body.block.last_op
        if self.is_reduce:
            if not isinstance(last, AccumulateOp):
                raise VerifyException(
                    "'tile.strided_for' reduce body must end in 'loop.accumulate'"
                )
            if [v.type for v in last.values] != [r.type for r in self.res]:
                raise VerifyException(
                    "'tile.strided_for' reduce results must match the types of the "
                    "accumulated values"
                )
            for op in self.body.walk():
                if isinstance(op, (loop.StoreOp, AtomicOp)):
                    raise VerifyException(
                        "'tile.strided_for' reduce body may not store: reduce loops only "
                        "accumulate"
                    )
        else:
            if self.res:
                raise VerifyException("'tile.strided_for' free loops have no results")
            if not isinstance(last, YieldOp):
                raise VerifyException("'tile.strided_for' free body must end in 'loop.yield'")

    @classmethod
    def parse(cls, parser: Parser) -> StridedForOp:
        kind = parser.parse_str_enum(IterKind)
        iv = parser.parse_argument(expect_type=False).resolve(IndexType())
        parser.parse_punctuation("=")
        start = parser.parse_operand(IndexType())
        parser.parse_keyword("to")
        bound = parser.parse_integer(allow_boolean=False, allow_negative=True)
        parser.parse_keyword("step")
        step = parser.parse_integer(allow_boolean=False, allow_negative=True)
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        body = parser.parse_region((iv,))
        attrs = parser.parse_optional_attr_dict()
        op = cls(kind, start, bound, step, body, result_types)
        op.attributes |= attrs
        last = body.block.last_op
        if kind == IterKind.FREE and not (last is not None and last.has_trait(IsTerminator)):
            body.block.add_op(YieldOp())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.iv)
        printer.print_string(" = ")
        printer.print_ssa_value(self.start)
        printer.print_string(f" to {self.bound.data} step {self.step.data}")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.res], printer.print_attribute)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_block_terminators=self.is_reduce
        )
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class StageOp(IRDLOperation):
    """Hoist a slab of an input into shared memory.

        %x_smem = tile.stage %x origin [0, %a1, 0] slab [a2 : 2048 at 2]
                  : memref<1x32x2048xf32> -> memref<2048xf32, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 8 at 1,
                  cell : 2 at 1] buffers 2 at %a2 pad [0, 1, 0] async
                  : memref<64x16xf32> -> memref<2x32x8x2xf32, #tile.smem>

    `origin` is an affine index into the source (one entry per source dim); each slab dim has an
    extent and names the source dim it walks. The result holds the slab with one dim per slab dim,
    in slab order; with `buffers N at %k` (N slots, filled along the enclosing K-outer loop `%k`)
    it gets a leading dim of N, indexed by `%k mod N`. Optional annotations:
    `pad [p0, ...]` extra elements after each slab dim (physical layout only, not in the type),
    `async` (cp.async) or `tma` (a bulk tensor copy), `swizzle B` (TMA swizzle of B bytes).
    The origin must be the same for every thread of the block (no thread or cell axes in it).
    """

    name = "tile.stage"

    source = operand_def(MemRefType)
    origin_operands = var_operand_def(IndexType)
    buffer_loop = opt_operand_def(IndexType)
    origin = prop_def(AffineMapAttr)
    slab = prop_def(ArrayAttr[SlabDimAttr])
    buffers = opt_prop_def(IntAttr)
    pad = opt_prop_def(ArrayAttr[IntAttr])
    copy = prop_def(CopyKindAttr)
    swizzle = opt_prop_def(IntAttr)
    result = result_def(MemRefType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: SSAValue,
        origin: AffineMap,
        origin_operands: Sequence[SSAValue],
        slab: Sequence[SlabDimAttr],
        *,
        buffers: tuple[int, SSAValue] | None = None,
        pad: Sequence[int] | None = None,
        copy: CopyKind = CopyKind.SYNC,
        swizzle: int | None = None,
        result_type: Attribute | None = None,
    ):
        if result_type is None:
            assert isinstance(source.type, MemRefType)
            shape = ([buffers[0]] if buffers else []) + [d.extent.data for d in slab]
            result_type = smem_type(shape, source.type.element_type)
        props: dict[str, Attribute] = {
            "origin": AffineMapAttr(origin),
            "slab": ArrayAttr(slab),
            "copy": CopyKindAttr(copy),
        }
        if buffers is not None:
            props["buffers"] = IntAttr(buffers[0])
        if pad is not None:
            props["pad"] = ArrayAttr([IntAttr(p) for p in pad])
        if swizzle is not None:
            props["swizzle"] = IntAttr(swizzle)
        super().__init__(
            operands=[source, origin_operands, [buffers[1]] if buffers else []],
            properties=props,
            result_types=[result_type],
        )

    def expected_type(self) -> MemRefType:
        assert isinstance(self.source.type, MemRefType)
        shape = ([self.buffers.data] if self.buffers else []) + [
            d.extent.data for d in self.slab
        ]
        return smem_type(shape, self.source.type.element_type)

    def verify_(self) -> None:
        src = self.source.type
        assert isinstance(src, MemRefType)
        rank = src.get_num_dims()
        amap = self.origin.data
        if is_smem(src):
            raise VerifyException("'tile.stage' source is already in shared memory")
        if len(amap.results) != rank:
            raise VerifyException(
                f"'tile.stage' origin has {len(amap.results)} entries for a rank-{rank} source"
            )
        _verify_index_map("tile.stage", "origin", amap, self.origin_operands)
        for v in self.origin_operands:
            axis = _axis_of(v)
            if axis is not None and axis[0].kinds.data[axis[1]].data != AxisKind.BLOCK:
                raise VerifyException(
                    "'tile.stage' origin must be uniform across the block: it uses a "
                    f"{axis[0].kinds.data[axis[1]].data} axis"
                )
            if isinstance(v, BlockArgument) and isinstance(v.block.parent_op(), StridedForOp):
                raise VerifyException(
                    "'tile.stage' origin must be uniform across the block: it uses a strided "
                    "loop's induction variable"
                )
        if not self.slab:
            raise VerifyException("'tile.stage' slab needs at least one dim")
        spans = [1] * rank
        for d in self.slab:
            if d.extent.data < 1:
                raise VerifyException(
                    f"'tile.stage' slab extent must be positive, got {d.extent.data}"
                )
            if d.dim.data >= rank:
                raise VerifyException(
                    f"'tile.stage' slab dim refers to source dim {d.dim.data} of a "
                    f"rank-{rank} source"
                )
            spans[d.dim.data] *= d.extent.data
        shape = src.get_shape()
        masked = masked_dims(self)
        for i, (span, size) in enumerate(zip(spans, shape)):
            if size >= 0 and span > size and i not in masked:
                raise VerifyException(
                    f"'tile.stage' slab spans {span} elements of source dim {i}, which has {size}"
                )
        if (self.buffers is None) != (self.buffer_loop is None):
            raise VerifyException("'tile.stage' buffers needs both a count and a loop")
        if self.buffers is not None:
            if self.buffers.data < 1:
                raise VerifyException(
                    f"'tile.stage' buffers must be at least 1, got {self.buffers.data}"
                )
            k = self.buffer_loop
            loop_op = k.block.parent_op() if isinstance(k, BlockArgument) else None
            if not _is_loop_iv(k) or loop_op is None or not loop_op.is_ancestor(self):
                raise VerifyException(
                    "'tile.stage' buffers must name the induction variable of an enclosing loop"
                )
        if self.pad is not None:
            if len(self.pad) != len(self.slab):
                raise VerifyException(
                    f"'tile.stage' pad has {len(self.pad)} entries for {len(self.slab)} slab dims"
                )
            if any(p.data < 0 for p in self.pad):
                raise VerifyException("'tile.stage' pad entries must be non-negative")
        if self.swizzle is not None:
            if self.copy.data != CopyKind.TMA:
                raise VerifyException("'tile.stage' swizzle needs a tma copy")
            if self.swizzle.data not in SWIZZLE_BYTES:
                raise VerifyException(
                    f"'tile.stage' swizzle must be one of {', '.join(map(str, SWIZZLE_BYTES))} "
                    f"bytes, got {self.swizzle.data}"
                )
        expected = self.expected_type()
        if self.result.type != expected:
            raise VerifyException(
                f"'tile.stage' result type must be {expected}, got {self.result.type}"
            )
        tile = _enclosing(self, TileOp)
        if tile is None:
            raise VerifyException("'tile.stage' must be inside a 'tile.tile'")
        assert isinstance(tile, TileOp)
        threads = tile.count(AxisKind.THREAD)
        if threads > MAX_BLOCK_THREADS:
            raise VerifyException(
                f"'tile.stage' needs the tile's threads in one block, but its thread axes hold "
                f"{threads} > {MAX_BLOCK_THREADS}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> StageOp:
        source = parser.parse_unresolved_operand()
        parser.parse_keyword("origin")
        origin, origin_operands = _parse_index_map(parser)
        parser.parse_keyword("slab")
        slab = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: SlabDimAttr.parse_one(parser)
        )
        buffers = None
        if parser.parse_optional_keyword("buffers"):
            count = parser.parse_integer(allow_boolean=False, allow_negative=True)
            parser.parse_keyword("at")
            buffers = (count, parser.parse_operand(IndexType()))
        pad = _int_list(parser) if parser.parse_optional_keyword("pad") else None
        copy = CopyKind.SYNC
        if parser.parse_optional_keyword("async"):
            copy = CopyKind.ASYNC
        elif parser.parse_optional_keyword("tma"):
            copy = CopyKind.TMA
        swizzle = None
        if parser.parse_optional_keyword("swizzle"):
            swizzle = parser.parse_integer(allow_boolean=False, allow_negative=True)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(source, source_type),
            origin,
            origin_operands,
            slab,
            buffers=buffers,
            pad=pad,
            copy=copy,
            swizzle=swizzle,
            result_type=result_type,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" origin ")
        _print_affine_map_of_ssa_ids(printer, self.origin.data, self.origin_operands)
        printer.print_string(" slab [")
        printer.print_list(self.slab, lambda d: d.print_one(printer))
        printer.print_string("]")
        if self.buffers is not None and self.buffer_loop is not None:
            printer.print_string(f" buffers {self.buffers.data} at ")
            printer.print_ssa_value(self.buffer_loop)
        if self.pad is not None:
            printer.print_string(" pad [")
            printer.print_list(self.pad, lambda p: printer.print_string(str(p.data)))
            printer.print_string("]")
        if self.copy.data != CopyKind.SYNC:
            printer.print_string(f" {self.copy.data}")
        if self.swizzle is not None:
            printer.print_string(f" swizzle {self.swizzle.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class CombineOp(IRDLOperation):
    """`%s = tile.combine add %p across [%a0] warp_shuffle : f32`: a cooperative reduction.

    Every thread of the listed thread axes holds a partial `%p`; the result, seen by all of them,
    is the partials folded with the combiner. `tree` merges through shared memory;
    `warp_shuffle` merges within each warp by shuffles, then the warps' results by a tree.
    Several partials combine at once, one result each (`%s0, %s1 = tile.combine add %p0, %p1
    across [%a0] tree : f32, f32`: unroll-cells gives one per register-tile cell).
    """

    name = "tile.combine"

    values = var_operand_def()
    axes = var_operand_def(IndexType)
    kind = prop_def(CombineKindAttr)
    strategy = prop_def(CombineStrategyAttr)
    res = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        kind: CombineKind,
        value: SSAValue | Sequence[SSAValue],
        axes: Sequence[SSAValue],
        strategy: CombineStrategy = CombineStrategy.TREE,
    ):
        values = [value] if isinstance(value, SSAValue) else list(value)
        super().__init__(
            operands=[values, axes],
            properties={
                "kind": CombineKindAttr(kind),
                "strategy": CombineStrategyAttr(strategy),
            },
            result_types=[[v.type for v in values]],
        )

    @property
    def value(self) -> SSAValue:
        """The partial of a one-value combine."""
        return self.values[0]

    @property
    def result(self) -> SSAValue:
        """The result of a one-value combine."""
        return self.res[0]

    def verify_(self) -> None:
        if not self.values:
            raise VerifyException("'tile.combine' needs at least one value to combine")
        for r, v in zip(self.res, self.values, strict=True):
            if r.type != v.type:
                raise VerifyException(
                    f"'tile.combine' result type {r.type} differs from its value's {v.type}"
                )
        if not self.axes:
            raise VerifyException("'tile.combine' needs at least one axis to combine across")
        if len(set(self.axes)) != len(self.axes):
            raise VerifyException("'tile.combine' lists an axis twice")
        threads = 1
        tile = None
        for v in self.axes:
            axis = _axis_of(v)
            if axis is None or axis[0].kinds.data[axis[1]].data != AxisKind.THREAD:
                raise VerifyException(
                    "'tile.combine' combines across thread axes of the enclosing 'tile.tile' only"
                )
            tile = axis[0]
            threads *= tile.extents.data[axis[1]].data
        if threads > MAX_BLOCK_THREADS:
            raise VerifyException(
                f"'tile.combine' combines {threads} threads, more than the "
                f"{MAX_BLOCK_THREADS} of one block"
            )
        if _enclosing(self, StridedForOp) is not None:
            raise VerifyException(
                "'tile.combine' must not be inside a 'tile.strided_for': every thread must "
                "reach it"
            )

    @classmethod
    def parse(cls, parser: Parser) -> CombineOp:
        kind = parser.parse_str_enum(CombineKind)
        values = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_keyword("across")
        axes = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
        )
        strategy = parser.parse_str_enum(CombineStrategy)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(values):
            parser.raise_error(
                f"'tile.combine' has {len(values)} values but {len(types)} types"
            )
        resolved = [parser.resolve_operand(v, t) for v, t in zip(values, types)]
        op = cls(kind, resolved, axes, strategy)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_list(self.values, printer.print_ssa_value)
        printer.print_string(" across [")
        printer.print_list(self.axes, printer.print_ssa_value)
        printer.print_string(f"] {self.strategy.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.values], printer.print_attribute)


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """`tile.atomic add %v, %out[%a0, %a1] : memref<...>`: `out[i] = add(out[i], v)` atomically.

    For partial results that several blocks fold into one output element (split-K, split-reduce);
    the output starts at the combiner's identity. It folds once per point of the axes its value
    and indices depend on: a partial combined across a block's lanes is folded once per block,
    not once per lane.
    """

    name = "tile.atomic"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    kind = prop_def(CombineKindAttr)
    map = prop_def(AffineMapAttr)

    def __init__(
        self,
        kind: CombineKind,
        value: SSAValue,
        memref: SSAValue,
        indices: Sequence[SSAValue],
        amap: AffineMap,
    ):
        super().__init__(
            operands=[value, memref, indices],
            properties={"kind": CombineKindAttr(kind), "map": AffineMapAttr(amap)},
        )

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        amap = self.map.data
        if len(amap.results) != t.get_num_dims():
            raise VerifyException(
                f"'tile.atomic' indexes a rank-{t.get_num_dims()} buffer with "
                f"{len(amap.results)} indices"
            )
        _verify_index_map("tile.atomic", "index", amap, self.indices)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"'tile.atomic' value type {self.value.type} differs from the element type "
                f"of {t}"
            )
        if self.kind.data == CombineKind.MUL:
            raise VerifyException("'tile.atomic' supports add, max and min, not mul")
        if is_smem(t):
            raise VerifyException("'tile.atomic' writes global memory, not a shared-memory stage")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicOp:
        kind = parser.parse_str_enum(CombineKind)
        value, memref, indices, amap, attrs = loop.parse_write(parser, "tile.atomic")
        op = cls(kind, value, memref, indices, amap)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.memref)
        _print_affine_map_of_ssa_ids(printer, self.map.data, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)


@irdl_op_definition
class HoldOp(IRDLOperation):
    """`%x_reg = tile.hold %x[%b * 8 + %w, %lane] step 32 : memref<64x733xf32> -> memref<23xf32>`:
    each thread loads elements of an input into a register array of its own, once.

    Element j of the result is the source at the index with j * step added to its last entry,
    or with `at D` to entry D (a column's elements along a middle dim: `tile.hold %x[%b, %lane,
    %h, %w] step 8 at 1`): a thread of lanes 0..31 holds its row's elements lane, lane + 32, ...
    Outside the source along a dim `{tile.masked}` lists an element reads 0: the held dim where
    the row's trips run past its end (the loops reading the array drop those trips), others
    where rows were rounded up past the buffer. The array
    has no memory space: it is private to the thread (registers once its reads are unrolled), so
    unlike `tile.stage` the index may use thread axes and nothing is shared or waited for.
    """

    name = "tile.hold"

    source = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    step = prop_def(IntAttr)
    dim = opt_prop_def(IntAttr)
    result = result_def(MemRefType)
    traits = traits_def(MemoryReadEffect())

    def __init__(self, source: SSAValue, amap: AffineMap, indices: Sequence[SSAValue], step: int,
                 count: int, result_type: Attribute | None = None, dim: int | None = None):  # fmt: skip
        assert isinstance(source.type, MemRefType)
        props: dict[str, Attribute] = {"map": AffineMapAttr(amap), "step": IntAttr(step)}
        if dim is not None and dim != source.type.get_num_dims() - 1:
            props["dim"] = IntAttr(dim)
        super().__init__(
            operands=[source, indices],
            properties=props,
            result_types=[result_type or MemRefType(source.type.element_type, [count])],
        )

    @property
    def held_dim(self) -> int:
        """The source dim the held elements walk (`at D`; the last by default)."""
        return self.dim.data if self.dim is not None else len(self.map.data.results) - 1

    @property
    def count(self) -> int:
        assert isinstance(self.result.type, MemRefType)
        return self.result.type.get_shape()[0]

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, MemRefType) and isinstance(res, MemRefType)
        if is_smem(src):
            raise VerifyException("'tile.hold' source must be a global buffer, not shared memory")
        rank = src.get_num_dims()
        if rank < 1 or len(self.map.data.results) != rank:
            raise VerifyException(
                f"'tile.hold' index has {len(self.map.data.results)} entries for a rank-{rank} source"
            )
        _verify_index_map("tile.hold", "index", self.map.data, self.indices)
        if self.step.data < 1:
            raise VerifyException(f"'tile.hold' step must be positive, got {self.step.data}")
        if self.dim is not None and not 0 <= self.dim.data < rank:
            raise VerifyException(f"'tile.hold' held dim {self.dim.data} is not a dim of the rank-{rank} source")
        if (res.get_num_dims() != 1 or not res.has_static_shape() or res.get_shape()[0] < 1
                or not isinstance(res.memory_space, NoneAttr) or res.element_type != src.element_type):  # fmt: skip
            raise VerifyException(
                f"'tile.hold' result must be a 1-d register array of {src.element_type}, got {res}"
            )
        if _enclosing(self, TileOp) is None:
            raise VerifyException("'tile.hold' must be inside a 'tile.tile'")

    @classmethod
    def parse(cls, parser: Parser) -> HoldOp:
        source = parser.parse_unresolved_operand()
        amap, indices = _parse_index_map(parser)
        parser.parse_keyword("step")
        step = parser.parse_integer(allow_boolean=False, allow_negative=True)
        dim = parser.parse_integer(allow_boolean=False, allow_negative=True) if parser.parse_optional_keyword("at") else None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(source, source_type), amap, indices, step, 0, result_type, dim)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        _print_affine_map_of_ssa_ids(printer, self.map.data, self.indices)
        printer.print_string(f" step {self.step.data}")
        if self.dim is not None:
            printer.print_string(f" at {self.dim.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class KernelOp(IRDLOperation):
    """`tile.kernel @k ins(%x : memref<..>) outs(%y : memref<..>) { ... }`: one scheduled kernel.

    Like `loop.kernel`: the body uses no outside value but its buffers. It holds exactly one
    `tile.tile` (uniform scalars such as constants may precede it). Loads read ins, outs or
    stages; stores and atomics write outs; stages copy from ins.
    """

    name = "tile.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    ins = var_operand_def(MemRefType)
    outs = var_operand_def(MemRefType)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = (
        "$sym_name (`ins` `(` $ins^ `:` type($ins) `)`)? (`outs` `(` $outs^ `:` type($outs) `)`)? "
        "$body attr-dict"
    )

    def __init__(
        self,
        name: str,
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        body: Region | Block | None = None,
    ):
        if body is None:
            body = Block()
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[ins, outs], properties={"sym_name": StringAttr(name)}, regions=[body]
        )

    @property
    def tile(self) -> TileOp:
        return next(op for op in self.body.block.ops if isinstance(op, TileOp))

    def verify_(self) -> None:
        name = f"'tile.kernel' @{self.sym_name.data}"
        loop.verify_kernel_buffers(self, name, self.ins, self.outs)
        tiles = [op for op in self.body.block.ops if isinstance(op, TileOp)]
        if len(tiles) != 1:
            raise VerifyException(f"{name} must hold exactly one 'tile.tile', found {len(tiles)}")
        buffers = {*self.ins, *self.outs}
        for op in self.body.walk():
            if isinstance(op, loop.LoadOp):
                if op.memref not in buffers and not isinstance(op.memref.owner, (StageOp, HoldOp)):
                    raise VerifyException(
                        f"{name}: 'loop.load' reads a buffer that is neither a kernel buffer, "
                        "a stage nor a hold"
                    )
            elif isinstance(op, (loop.StoreOp, AtomicOp)):
                if op.memref not in self.outs:
                    raise VerifyException(
                        f"{name}: '{op.name}' writes a buffer that is not a kernel out"
                    )
            elif isinstance(op, (StageOp, HoldOp)) and op.source not in self.ins:
                raise VerifyException(
                    f"{name}: '{op.name}' copies a buffer that is not a kernel in"
                )
            if UNROLL in op.attributes:
                if not isinstance(op, (loop.ForOp, StridedForOp)):
                    raise VerifyException(f"{name}: '{UNROLL}' marks loops only, not '{op.name}'")
                if not isinstance(op.attributes[UNROLL], UnitAttr):
                    raise VerifyException(f"{name}: '{UNROLL}' is a unit attribute")
            if PIPELINE in op.attributes:
                self._verify_pipeline(name, op)
            if MASKED in op.attributes:
                self._verify_masked(name, op)
            if GATHER in op.attributes:
                if not isinstance(op, loop.LoadOp) or is_smem(op.memref):
                    raise VerifyException(f"{name}: '{GATHER}' marks loads of global buffers only, not '{op.name}'")
                if not isinstance(op.attributes[GATHER], UnitAttr):
                    raise VerifyException(f"{name}: '{GATHER}' is a unit attribute")

    @staticmethod
    def _verify_masked(name: str, op: Operation) -> None:
        if not isinstance(op, (loop.LoadOp, loop.StoreOp, AtomicOp, StageOp, HoldOp)):
            raise VerifyException(
                f"{name}: '{MASKED}' marks loads, stores, atomics, stages and holds only, not '{op.name}'"
            )
        if isinstance(op, loop.LoadOp) and is_smem(op.memref):
            raise VerifyException(
                f"{name}: '{MASKED}' on a load of a stage (a stage is read inside its slab)"
            )
        attr = op.attributes[MASKED]
        buf = op.source if isinstance(op, (StageOp, HoldOp)) else op.memref
        assert isinstance(buf.type, MemRefType)
        rank = buf.type.get_num_dims()
        dims = [a.value.data for a in attr] if isinstance(attr, ArrayAttr) and all(
            isinstance(a, IntegerAttr) for a in attr) else None  # fmt: skip
        if not dims or dims != sorted(set(dims)) or not all(0 <= d < rank for d in dims):
            raise VerifyException(
                f"{name}: '{MASKED}' must list increasing dims of the rank-{rank} buffer, "
                f"got {attr}"
            )

    @staticmethod
    def _verify_pipeline(name: str, op: Operation) -> None:
        attr = op.attributes[PIPELINE]
        if not isinstance(op, loop.ForOp):
            raise VerifyException(f"{name}: '{PIPELINE}' marks a 'loop.for' only, not '{op.name}'")
        if not isinstance(attr, IntegerAttr) or attr.value.data < 2:
            raise VerifyException(f"{name}: '{PIPELINE}' must be an integer depth of at least 2")
        stages = [
            s
            for s in op.body.walk()
            if isinstance(s, StageOp) and s.buffer_loop is op.iv and s.copy.data != CopyKind.SYNC
        ]
        if not stages:
            raise VerifyException(
                f"{name}: a '{PIPELINE}' loop must fill an async or tma stage buffered along it"
            )
        depth = attr.value.data
        for s in stages:
            assert s.buffers is not None
            if s.buffers.data < depth:
                raise VerifyException(
                    f"{name}: '{PIPELINE}' depth {depth} needs stages of at least {depth} "
                    f"buffers, one has {s.buffers.data}"
                )



Tile = Dialect(
    "tile",
    [KernelOp, TileOp, StridedForOp, StageOp, HoldOp, CombineOp, AtomicOp],
    [
        AxisKindAttr,
        CopyKindAttr,
        CombineStrategyAttr,
        SharedMemoryAttr,
        SlabDimAttr,
    ],
)
