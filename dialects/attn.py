"""The attn dialect: scaled dot-product attention as one operation, at the loop and tile levels.

Loop level (inside a `loop.kernel`, per output point like a reduce loop):

    %o = attn.softmax_reduce < 512 -> f32 score {
    ^bb0(%s: index):
      %acc = loop.for reduce %e < 128 -> f32 { q[.., %l, %e] * k[.., %s, %e] }
      ... (scale, causal mask)
      attn.yield %x : f32
    } value {
    ^bb0(%s_1: index):
      %v = loop.load %v[.., %s_1, %c] : memref<..>
      attn.yield %v : f32
    }

is sum over s < 512 of softmax(x)[s] * v(s): with M = max_s x(s),
o = sum_s exp(x(s) - M) v(s) / sum_s exp(x(s) - M), the reduce, softmax, reduce chain of
attention written as one reduction (fuse-attention builds it from the scores, softmax and P @ V
kernels). Both regions take the key index; `score` yields the score of key s, `value` the value
of key s that the point's output weighs.

Tile level (directly in a `tile.tile` whose thread axes are (w : W, g : 8, t : 4), the mma.sync
fragment's warps, groups and threads in group):

    attn.flash %l0 rows 64 queries 512 keys 512 tile 64 depth 128 x 128 chain 4
        precision "3xtf32" causal query {
    ^bb0(%l: index, %c: index):  ... attn.yield %q : f32     (query row l, depth c)
    } key {
    ^bb0(%s: index, %c: index):  ... attn.yield %k : f32     (key s, depth c)
    } value {
    ^bb0(%s: index, %c: index):  ... attn.yield %v : f32     (key s, value column c)
    } score {
    ^bb0(%x: f32, %l: index, %s: index): ... attn.yield %y : f32   (x = q(l) . k(s): the score)
    } output {
    ^bb0(%o: f32, %l: index, %c: index): loop.store %o, %out[..] ; attn.yield
    }

is, for every query row l of [l0, l0 + rows) below `queries`, and every column c < `value_depth`:
output(softmax over s < `keys` of score(sum_{c' < depth} query(l, c') key(s, c'), l, s)
weighing value(s, c)). It is collective (the block computes its `rows` query rows together; no
region uses a thread axis) and records the schedule materialize-attention lowers: the key tile
(`tile` keys per step: streamed, double-buffered), the tensor-core `precision` (`3xtf32`,
`tf32`; `ieee`: SIMT fp32 FMA in the same fragment layout), `chain` (k-steps of 8 per
tensor-core accumulation chain before it is added into the fp32 registers; 0: one chain per
product), `wide W` (fragments loaded 128 bits wide, the scores' (W >= 1: their k order permuted
within groups of 4 k-steps) and P @ V's (W = 2: o's column order permuted within groups of 4
8-column tiles), `wide_fragments_decline`), `qsplit` (the query tile is split into its TF32
parts once, in shared memory, instead of per key tile; tensor cores only), `wgmma` (the block
is one warpgroup on warpgroup MMA, sm_90a: `wgmma_decline` says which sizes), `causal` (score(x, l, s) is -inf for s > l: key
tiles past the block's last row are skipped), and an optional split over the keys (split-KV):

    attn.flash %l0 rows 64 queries 1 keys 4096 tile 64 depth 128 x 128 chain 4
        precision "3xtf32" split %sp keys 1024 query {..} key {..} value {..} score {..}
        output {^bb0(%o: f32, %l: index, %c: index): ..} lse {^bb0(%x: f32, %l: index): ..}

attends over the keys [sp * 1024, min(keys, sp * 1024 + 1024)) only (`split`: a block axis, the
split's index; its `keys`: a multiple of `tile`): the output region gets the softmax-weighted sum
over those keys (0 for a row whose scores there are all -inf) and the `lse` region the row's
log-sum-exp over them, log(sum_s exp(score)) (-inf for such a row), so that a combine can weigh
the splits' outputs by softmax(lse) (tile-attention's combine kernel).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import Float32Type, IndexType, IntAttr, UnitAttr
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from dpl.dialects import tile
from dpl.dialects.mma import Precision, PrecisionAttr

MMA_ROWS = 16


def chain_steps(steps: int, chain: int) -> int:
    """The k-steps per tensor-core accumulation chain over `steps` k-steps of 8: the largest
    divisor of `steps` up to `chain` (0: all of them)."""
    at_most = chain or steps
    return max(d for d in range(1, min(steps, at_most) + 1) if steps % d == 0)


WGMMA_ROWS = 64
"""Query rows of a wgmma flash block: one warpgroup, m64."""
WGMMA_DEPTH = 128
"""The largest (rounded) depth and value depth a wgmma flash block takes: its query, key and
transposed value tiles with their TF32 lo parts fill an H100's shared memory at 128 (224 KiB)."""


def wgmma_decline(rows: int, tile: int, depth: int, value_depth: int, precision: Precision,
                  split: bool = False, wide: int = 0, qsplit: bool = False) -> str:
    """Why an attn.flash of these sizes and options cannot run on warpgroup MMA ('' if it
    can): one warpgroup of WGMMA_ROWS query rows; key tiles of a multiple of 32 (the transposed
    value tile's 128-byte rows) up to 256 (wgmma's N); depths up to WGMMA_DEPTH; the tensor
    cores; no split over the keys, 128-bit fragment loads or query split (mma.sync's)."""
    if precision == Precision.IEEE:
        return "a tensor-core precision"
    if rows != WGMMA_ROWS:
        return f"{WGMMA_ROWS} query rows (one warpgroup), got {rows}"
    if tile % 32 or tile > 256:
        return f"a key tile of a multiple of 32 up to 256, got {tile}"
    if max(depth, value_depth) > WGMMA_DEPTH:
        return f"depths of at most {WGMMA_DEPTH}, got {depth} x {value_depth}"
    if split or wide or qsplit:
        return "no split over the keys, wide fragments or query split"
    return ""


def wgmma_smem_bytes(tile: int, depth: int, value_depth: int, precision: Precision) -> int:
    """The dynamic shared memory of a wgmma flash block (materialize-attention-wgmma's layout):
    the query, key and transposed value tiles (twice with 3xTF32's lo parts), the landing value
    tile, each 1024-byte aligned, and 1024 bytes of slack for the pool's alignment."""
    dq, dvp = -(-depth // 32) * 32, -(-value_depth // 8) * 8
    parts = 2 if precision == Precision.TF32X3 else 1
    tiles = parts * (WGMMA_ROWS * dq + tile * dq + tile * dvp)
    return 4 * tiles + -(-4 * tile * dvp // 1024) * 1024 + 1024


def wide_fragments_decline(depth: int, value_depth: int, chain: int, precision: Precision) -> str:
    """Why an attn.flash of these sizes cannot load its fragments 128 bits wide ('' if it can):
    the scores' k-steps come in groups of 4 (32 depth columns, each thread's 8 of them one
    pair of 16-byte loads) inside each accumulation chain, and P @ V's 8-column tiles of o in
    groups of 4 (each thread's B values of 4 tiles one 16-byte load); tensor cores only."""
    d8, dv8 = -(-depth // 8) * 8, -(-value_depth // 8) * 8
    if precision == Precision.IEEE:
        return "a tensor-core precision"
    if d8 % 32 or dv8 % 32:
        return f"depth and value depth in multiples of 32 (rounded up to 8), got {depth} x {value_depth}"
    if chain_steps(d8 // 8, chain) % 4:
        return f"accumulation chains of a multiple of 4 k-steps, got chain {chain} over depth {depth}"
    return ""
"""Query rows per warp: the m16n8k8 fragment's."""


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`attn.yield %v : f32` ends a region of `attn.softmax_reduce` or `attn.flash` with its
    value (`attn.yield` alone ends `attn.flash`'s output region)."""

    name = "attn.yield"

    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


def _yielded(region: Region) -> list[SSAValue]:
    last = region.block.last_op
    return list(last.values) if isinstance(last, YieldOp) else []


def _verify_region(op: Operation, what: str, region: Region, args: Sequence[Attribute], yields: int) -> None:
    block = region.block
    if [a.type for a in block.args] != list(args):
        want = ", ".join(str(a) for a in args)
        raise VerifyException(f"'{op.name}' {what} region takes ({want})")
    last = block.last_op
    if not isinstance(last, YieldOp) or len(last.values) != yields:
        raise VerifyException(
            f"'{op.name}' {what} region must end in 'attn.yield' of {yields} value"
            + ("s" if yields != 1 else "")
        )
    if yields and not isinstance(last.values[0].type, Float32Type):
        raise VerifyException(f"'{op.name}' {what} region must yield an f32, got {last.values[0].type}")


# ---------------------------------------------------------------------------------------------
# Loop level


@irdl_op_definition
class SoftmaxReduceOp(IRDLOperation):
    """`%o = attn.softmax_reduce < S -> f32 score {^bb0(%s: index): ...} value {...}`: the sum
    over keys s < S of softmax(score)[s] * value(s), one output point's attention (module doc).

    Rules: S >= 1; each region takes one index (the key) and ends in `attn.yield` of one f32;
    the result is f32.
    """

    name = "attn.softmax_reduce"

    extent = prop_def(IntAttr)
    score = region_def("single_block")
    value = region_def("single_block")
    result = result_def(Float32Type)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, extent: int, score: Region, value: Region):
        super().__init__(properties={"extent": IntAttr(extent)}, regions=[score, value],
                         result_types=[Float32Type()])  # fmt: skip

    @property
    def score_value(self) -> SSAValue:
        return _yielded(self.score)[0]

    @property
    def value_value(self) -> SSAValue:
        return _yielded(self.value)[0]

    def verify_(self) -> None:
        if self.extent.data < 1:
            raise VerifyException(f"'attn.softmax_reduce' extent must be positive, got {self.extent.data}")
        for what, region in (("score", self.score), ("value", self.value)):
            _verify_region(self, what, region, [IndexType()], 1)

    @classmethod
    def parse(cls, parser: Parser) -> SoftmaxReduceOp:
        parser.parse_punctuation("<")
        extent = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("->")
        parser.parse_type()
        parser.parse_keyword("score")
        score = parser.parse_region()
        parser.parse_keyword("value")
        value = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        op = cls(extent, score, value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" < {self.extent.data} -> f32 score ")
        printer.print_region(self.score, print_entry_block_args=True)
        printer.print_string(" value ")
        printer.print_region(self.value, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# Tile level


def _thread_dependent(value: SSAValue, t: tile.TileOp, seen: set) -> bool:
    """Whether `value` depends on a thread or cell axis of tile `t`."""
    if value in seen:
        return False
    seen.add(value)
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        return owner is t and t.axes[value.index][2] != tile.AxisKind.BLOCK
    owner = value.owner
    assert isinstance(owner, Operation)
    return any(_thread_dependent(o, t, seen) for inner in owner.walk() for o in inner.operands)


_SIZES = ("rows", "queries", "keys", "tile", "depth", "value_depth")
_REGIONS = ("query", "key", "value", "score", "output")


@irdl_op_definition
class FlashOp(IRDLOperation):
    """`attn.flash %l0 rows R queries L keys S tile N depth D x DV chain C precision P [wide W]
    [qsplit] [wgmma] [causal]
    [split %sp keys C] query {..} key {..} value {..} score {..} output {..} [lse {..}]`: one
    block's attention over its R query rows from %l0 (module doc).

    Rules: inside a `tile.tile` (its body, not in a loop) whose thread axes are (W, 8, 4) with
    R = 16 W (the mma.sync fragment of W warps) and no cell axes; all sizes positive, `tile` a
    multiple of 8, `chain` >= 0; `%l0` and the regions use no thread axis; regions take
    query (index, index), key (index, index), value (index, index), score (f32, index, index),
    output (f32, index, index) and end in `attn.yield` of one f32 (output: of none); `wgmma` as
    `wgmma_decline` allows; a split
    has its index (no thread axis), its keys (a positive multiple of `tile`) and an lse region
    (f32, index; ending in `attn.yield` of none) together.
    """

    name = "attn.flash"

    first_row = operand_def(IndexType)
    split = opt_operand_def(IndexType)
    rows = prop_def(IntAttr)
    queries = prop_def(IntAttr)
    keys = prop_def(IntAttr)
    tile = prop_def(IntAttr)
    depth = prop_def(IntAttr)
    value_depth = prop_def(IntAttr)
    chain = prop_def(IntAttr)
    precision = prop_def(PrecisionAttr)
    causal = opt_prop_def(UnitAttr)
    wide = opt_prop_def(IntAttr)
    qsplit = opt_prop_def(UnitAttr)
    wgmma = opt_prop_def(UnitAttr)
    split_keys = opt_prop_def(IntAttr)
    query = region_def("single_block")
    key = region_def("single_block")
    value = region_def("single_block")
    score = region_def("single_block")
    output = region_def("single_block")
    lse = opt_region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, first_row: SSAValue, sizes: dict[str, int], chain: int, precision: Precision,
                 causal: bool, regions: Sequence[Region], split: tuple[SSAValue, int] | None = None,
                 lse: Region | None = None, wide: int = 0, qsplit: bool = False,
                 wgmma: bool = False):  # fmt: skip
        """`split`: (the split index, its keys) and `lse` for a split over the keys; `wide`:
        which fragments are loaded 128 bits wide (0: none, 1: the scores', 2: the scores' and
        P @ V's; `wide_fragments_decline`); `qsplit`: the query tile is split into its TF32
        parts once."""
        props: dict[str, Attribute] = {k: IntAttr(sizes[k]) for k in _SIZES}
        props["chain"] = IntAttr(chain)
        props["precision"] = PrecisionAttr(precision)
        if causal:
            props["causal"] = UnitAttr()
        if wide:
            props["wide"] = IntAttr(wide)
        if qsplit:
            props["qsplit"] = UnitAttr()
        if wgmma:
            props["wgmma"] = UnitAttr()
        if split is not None:
            props["split_keys"] = IntAttr(split[1])
        super().__init__(
            operands=[first_row, [split[0]] if split else []], properties=props,
            regions=[*regions, [lse] if lse else []],
        )  # fmt: skip

    @property
    def is_split(self) -> bool:
        return self.split is not None

    def size(self, key: str) -> int:
        return getattr(self, key).data

    @property
    def is_causal(self) -> bool:
        return self.causal is not None

    @property
    def is_qsplit(self) -> bool:
        return self.qsplit is not None

    @property
    def is_wgmma(self) -> bool:
        return self.wgmma is not None

    @property
    def wide_level(self) -> int:
        """0: 32-bit fragment loads; 1: the scores' 128 bits wide; 2: P @ V's as well."""
        return self.wide.data if self.wide is not None else 0

    def region(self, name: str) -> Region:
        return getattr(self, name)

    @property
    def region_names(self) -> tuple[str, ...]:
        return (*_REGIONS, "lse") if self.lse is not None else _REGIONS

    def yielded(self, name: str) -> SSAValue:
        return _yielded(self.region(name))[0]

    def verify_(self) -> None:
        t = self.parent_op()
        if not isinstance(t, tile.TileOp):
            raise VerifyException("'attn.flash' must be directly inside a 'tile.tile'")
        threads = [e for _, e, k in t.axes if k == tile.AxisKind.THREAD]
        cells = [e for _, e, k in t.axes if k == tile.AxisKind.CELL]
        rows = self.rows.data
        if len(threads) != 3 or threads[1:] != [8, 4] or cells or rows != MMA_ROWS * threads[0]:
            raise VerifyException(
                f"'attn.flash' of {rows} rows needs thread axes ({rows // MMA_ROWS}, 8, 4) and no "
                f"cell axes (the mma.sync fragment of 16 rows per warp), got threads {threads}"
                + (f" and cells {cells}" if cells else "")
            )
        for key in _SIZES:
            if getattr(self, key).data < 1:
                raise VerifyException(f"'attn.flash' {key} must be positive, got {getattr(self, key).data}")
        if self.tile.data % 8:
            raise VerifyException(f"'attn.flash' tile must be a multiple of 8 keys, got {self.tile.data}")
        if self.chain.data < 0:
            raise VerifyException(f"'attn.flash' chain must be >= 0, got {self.chain.data}")
        if self.is_qsplit and self.precision.data == Precision.IEEE:
            raise VerifyException("'attn.flash' qsplit needs a tensor-core precision, got ieee")
        if self.wide is not None and self.wide.data not in (1, 2):
            raise VerifyException(f"'attn.flash' wide must be 1 or 2, got {self.wide.data}")
        if self.wide is not None:
            why = wide_fragments_decline(self.depth.data, self.value_depth.data, self.chain.data,
                                         self.precision.data)  # fmt: skip
            if why:
                raise VerifyException(f"'attn.flash' wide needs {why}")
        if self.is_wgmma:
            why = wgmma_decline(rows, self.tile.data, self.depth.data, self.value_depth.data,
                                self.precision.data, self.split is not None, self.wide_level,
                                self.is_qsplit)  # fmt: skip
            if why:
                raise VerifyException(f"'attn.flash' wgmma needs {why}")
        parts = (self.split is not None, self.split_keys is not None, self.lse is not None)
        if any(parts) and not all(parts):
            raise VerifyException("'attn.flash' split needs its index, its keys and an lse region together")
        if self.split_keys is not None and (self.split_keys.data < 1 or self.split_keys.data % self.tile.data):
            raise VerifyException(
                f"'attn.flash' split keys must be a positive multiple of the tile ({self.tile.data}), "
                f"got {self.split_keys.data}"
            )
        if self.lse is not None:
            _verify_region(self, "lse", self.lse, [Float32Type(), IndexType()], 0)
        f32, idx = Float32Type(), IndexType()
        for name, args, yields in (
            ("query", [idx, idx], 1), ("key", [idx, idx], 1), ("value", [idx, idx], 1),
            ("score", [f32, idx, idx], 1), ("output", [f32, idx, idx], 0),
        ):  # fmt: skip
            _verify_region(self, name, self.region(name), args, yields)
        seen: set = set()
        if _thread_dependent(self.first_row, t, seen):
            raise VerifyException("'attn.flash' first row must not depend on a thread axis")
        if self.split is not None and _thread_dependent(self.split, t, seen):
            raise VerifyException("'attn.flash' split must not depend on a thread axis")
        for name in self.region_names:
            for op in self.region(name).walk():
                if any(_thread_dependent(o, t, seen) for o in op.operands):
                    raise VerifyException(
                        f"'attn.flash' is collective: its {name} region must not use a thread axis"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> FlashOp:
        first = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        sizes: dict[str, int] = {}
        for key in ("rows", "queries", "keys", "tile", "depth"):
            parser.parse_keyword(key)
            sizes[key] = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("x")
        sizes["value_depth"] = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("chain")
        chain = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("precision")
        precision = parser.parse_str_enum(Precision)
        wide = parser.parse_integer(allow_boolean=False) if parser.parse_optional_keyword("wide") else 0
        qsplit = parser.parse_optional_keyword("qsplit") is not None
        wgmma = parser.parse_optional_keyword("wgmma") is not None
        causal = parser.parse_optional_keyword("causal") is not None
        split_at = None
        if parser.parse_optional_keyword("split") is not None:
            index = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
            parser.parse_keyword("keys")
            split_at = (index, parser.parse_integer(allow_boolean=False))
        regions = []
        for name in _REGIONS:
            parser.parse_keyword(name)
            regions.append(parser.parse_region())
        lse = parser.parse_region() if parser.parse_optional_keyword("lse") is not None else None
        attrs = parser.parse_optional_attr_dict()
        op = cls(first, sizes, chain, precision, causal, regions, split_at, lse, wide, qsplit, wgmma)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.first_row)
        s = {k: getattr(self, k).data for k in _SIZES}
        printer.print_string(
            f" rows {s['rows']} queries {s['queries']} keys {s['keys']} tile {s['tile']} "
            f"depth {s['depth']} x {s['value_depth']} chain {self.chain.data} "
            f'precision "{self.precision.data.value}"' + (f" wide {self.wide_level}" if self.wide_level else "")
            + (" qsplit" if self.is_qsplit else "")
            + (" wgmma" if self.is_wgmma else "")
            + (" causal" if self.is_causal else "")
        )
        if self.split is not None:
            printer.print_string(" split ")
            printer.print_ssa_value(self.split)
            printer.print_string(f" keys {self.split_keys.data if self.split_keys else 0}")
        for name in self.region_names:
            printer.print_string(f" {name} ")
            printer.print_region(self.region(name), print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)


def new_region(arg_types: Sequence[Attribute]) -> tuple[Region, Block]:
    block = Block(arg_types=list(arg_types))
    return Region(block), block


Attn = Dialect("attn", [SoftmaxReduceOp, FlashOp, YieldOp], [])
