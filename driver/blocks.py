"""Compile a program whose ops repeat, such as a decoder model's layers, once per distinct block.

    module, flops = lower_by_blocks(torch_module, lower_piece, step)

A whole model's torch-level @main is a prefix (the embedding), one block of ops per decoder
layer, all alike, and a suffix (final norm, LM head). Lowered whole, every pass would run over
every layer. Here the repeated block is found in the IR itself (op signatures, never layer or
parameter names), cut out once, and each distinct piece (prefix, block, suffix) is lowered on
its own by `lower_piece` (torch IR -> kernel IR). The kernel-level programs are then stitched
into one @main that launches the block's kernels once per repetition on that repetition's
buffers, and `kernel.func`s equal up to names are kept once. Compile time grows with the size of
the distinct pieces, not with depth.

Finding the block (`find_repeats`):
- each op gets a signature: its name, properties and attributes, result types, and per operand
  the distance back to the op that made it, or the type of the @main argument it is;
- the period P is the one whose longest run of `sig[i] == sig[i + P]` covers the most ops in
  whole blocks (the shortest P on a tie); it is used if a block holds at least MIN_BLOCK_OPS ops,
  repeats at least twice and the blocks cover at least half of the ops;
- where the run leaves room, the blocks start where the fewest values cross the cuts (between
  decoder layers only the hidden states do);
- every block is then compared with the first with its dataflow spelled out (an operand is an op
  of the block by position, or an input by order of first use); the leading blocks equal to the
  first are the repetitions.

Cutting keeps meaning: each piece reads its inputs from buffers and writes its outputs to
buffers, and the stitched program launches the same kernels on the same data in the same order
as the pieces would. Fusion does not cross a cut (between decoder layers it has nothing to fuse:
a layer ends in a projection and the next starts with a row reduction and projections). A
program without such a repetition is lowered whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue

from dpl.dialects import kernel as K
from dpl.transforms.kernel.fuse_launches import FUSED_ATTR

#: The fewest ops a repeated block must hold to be compiled once for all its repetitions.
MIN_BLOCK_OPS = 8

#: torch IR -> (kernel IR, flops per kernel.func): how one piece is lowered.
LowerPiece = Callable[[ModuleOp], tuple[ModuleOp, dict[str, int]]]


@dataclass(frozen=True)
class Repeats:
    """Ops [start, start + size * count) of @main are `count` equal blocks of `size` ops."""

    start: int
    size: int
    count: int

    @property
    def stop(self) -> int:
        return self.start + self.size * self.count


def body_ops(main: func.FuncOp) -> list[Operation]:
    """@main's ops without its return."""
    return [op for op in main.body.block.ops if not isinstance(op, func.ReturnOp)]


def _attributes(op: Operation) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in {**op.properties, **op.attributes}.items()))


def _op_key(op: Operation, operands: tuple) -> tuple:
    return (op.name, _attributes(op), tuple(str(r.type) for r in op.results), operands)


def signatures(ops: Sequence[Operation]) -> np.ndarray:
    """One integer per op; two ops get the same one when they have the same name, attributes,
    result types, and operands that are made the same distance back (or are arguments of the
    same type)."""
    position = {op: i for i, op in enumerate(ops)}
    ids: dict[tuple, int] = {}
    out = np.empty(len(ops), dtype=np.int64)
    for i, op in enumerate(ops):
        operands = tuple(
            (i - position[v.op], v.index)
            if isinstance(v, OpResult) and v.op in position
            else str(v.type)
            for v in op.operands
        )
        out[i] = ids.setdefault(_op_key(op, operands), len(ids))
    return out


def _longest_period(sigs: np.ndarray, min_size: int) -> tuple[int, int, int] | None:
    """(P, run start, run length) of the period whose longest run of `sig[i] == sig[i+P]`
    covers the most ops in whole blocks; the shortest such P."""
    best: tuple[int, int, int, int] | None = None
    n = len(sigs)
    for p in range(min_size, n // 2 + 1):
        eq = np.concatenate(([0], (sigs[:-p] == sigs[p:]).astype(np.int8), [0]))
        edges = np.diff(eq)
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        if not len(starts):
            continue
        k = int(np.argmax(ends - starts))
        run = int(ends[k] - starts[k])
        if run < p:
            continue  # fewer than two blocks
        covered = (run // p + 1) * p
        if best is None or covered > best[0]:
            best = (covered, p, int(starts[k]), run)
    return None if best is None else best[1:]


def _crossings(ops: Sequence[Operation]) -> np.ndarray:
    """crossings[c]: how many values made by ops before c are used by ops from c on (or
    returned)."""
    position = {op: i for i, op in enumerate(ops)}
    delta = np.zeros(len(ops) + 2, dtype=np.int64)
    for i, op in enumerate(ops):
        for r in op.results:
            last = max((position.get(u.operation, len(ops)) for u in r.uses), default=i)
            if last > i:
                delta[i + 1] += 1
                delta[last + 1] -= 1
    return np.cumsum(delta)[: len(ops) + 1]


@dataclass
class Dataflow:
    """One block's dataflow: its signature, its inputs (in order of first use) and its outputs
    (its values used after it, as (op position in the block, result index))."""

    signature: tuple
    inputs: list[SSAValue]
    outputs: set[tuple[int, int]]


def block_dataflow(ops: Sequence[Operation], start: int, size: int) -> Dataflow:
    local = {op: j for j, op in enumerate(ops[start : start + size])}
    inputs: list[SSAValue] = []
    slot: dict[SSAValue, int] = {}
    signature = []
    outputs: set[tuple[int, int]] = set()
    for op, j in local.items():
        operands = []
        for v in op.operands:
            if isinstance(v, OpResult) and v.op in local:
                operands.append(("op", local[v.op], v.index))
            else:
                if v not in slot:
                    slot[v] = len(inputs)
                    inputs.append(v)
                operands.append(("in", slot[v], str(v.type)))
        signature.append(_op_key(op, tuple(operands)))
        for r in op.results:
            if any(u.operation not in local for u in r.uses):
                outputs.add((j, r.index))
    return Dataflow(tuple(signature), inputs, outputs)


def find_repeats(main: func.FuncOp, min_size: int = MIN_BLOCK_OPS) -> Repeats | None:
    """The repeated block of @main (see the module docstring), or None."""
    ops = body_ops(main)
    found = _longest_period(signatures(ops), min_size)
    if found is None:
        return None
    size, run_start, run = found
    count = run // size + 1
    if count * size * 2 < len(ops):
        return None
    crossings = _crossings(ops)
    slack = run - (count - 1) * size
    start = min(
        range(run_start, run_start + slack + 1),
        key=lambda s: (sum(int(crossings[s + k * size]) for k in range(count + 1)), s),
    )
    first = block_dataflow(ops, start, size).signature
    equal = 1
    while equal < count and block_dataflow(ops, start + equal * size, size).signature == first:
        equal += 1
    return Repeats(start, size, equal) if equal >= 2 else None


# --------------------------------------------------------------------------------------------
# pieces


@dataclass
class Piece:
    """A run of @main's ops lowered on its own; `uses` are its repetitions, each where it starts
    in @main, the values of @main it reads (in the order of the piece's arguments) and the
    values it makes for later ops (in the order of the piece's results)."""

    module: ModuleOp
    uses: list[tuple[int, list[SSAValue], list[SSAValue]]] = field(default_factory=list)
    lowered: ModuleOp | None = None
    flops: dict[str, int] = field(default_factory=dict)


def _outside_uses(ops: Sequence[Operation]) -> tuple[list[SSAValue], list[SSAValue]]:
    """The values `ops` read from outside (in order of first use) and the values they make that
    other ops use (in order of definition)."""
    inside = set(ops)
    inputs: dict[SSAValue, None] = {}
    outputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if not (isinstance(v, OpResult) and v.op in inside):
                inputs.setdefault(v)
        outputs += [r for r in op.results if any(u.operation not in inside for u in r.uses)]
    return list(inputs), outputs


def extract(
    module: ModuleOp, ops: Sequence[Operation], inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> ModuleOp:
    """A module whose @main(inputs) runs copies of `ops` and returns `outputs`."""
    block = Block(arg_types=[v.type for v in inputs])
    mapper: dict[SSAValue, SSAValue] = {}
    for v, arg in zip(inputs, block.args):
        arg.name_hint = v.name_hint
        mapper[v] = arg
    for op in ops:
        block.add_op(op.clone(value_mapper=mapper))
    results = [mapper[v] for v in outputs]
    block.add_op(func.ReturnOp(*results))
    ftype = FunctionType.from_lists([v.type for v in inputs], [v.type for v in results])
    piece = ModuleOp([func.FuncOp("main", ftype, Region(block))])
    piece.attributes |= dict(module.attributes)
    return piece


def split(module: ModuleOp, main: func.FuncOp, repeats: Repeats) -> list[Piece]:
    """The prefix, the block (with one use per repetition) and the suffix of @main."""
    ops = body_ops(main)
    pieces = []
    for lo, hi in ((0, repeats.start), (repeats.stop, len(ops))):
        if lo < hi:
            inputs, outputs = _outside_uses(ops[lo:hi])
            pieces.append(Piece(extract(module, ops[lo:hi], inputs, outputs), [(lo, inputs, outputs)]))
    flows = [
        block_dataflow(ops, repeats.start + k * repeats.size, repeats.size) for k in range(repeats.count)
    ]
    slots = sorted(set().union(*(f.outputs for f in flows)))
    uses = []
    for k, flow in enumerate(flows):
        first = repeats.start + k * repeats.size
        uses.append((first, flow.inputs, [ops[first + j].results[i] for j, i in slots]))
    _, inputs, outputs = uses[0]
    block = Piece(extract(module, ops[repeats.start : repeats.start + repeats.size], inputs, outputs), uses)
    pieces.insert(1 if repeats.start > 0 else 0, block)
    return pieces


# --------------------------------------------------------------------------------------------
# stitching


def canonical(kfunc: K.KernelFuncOp) -> str:
    """`kfunc` printed without its name, its fused parts' names and SSA names: equal strings
    are the same kernel."""
    copy = kfunc.clone()
    copy.sym_name = StringAttr("k")
    copy.attributes.pop(FUSED_ATTR, None)
    for op in copy.walk():
        for r in op.results:
            r.name_hint = None
        for region in op.regions:
            for b in region.blocks:
                for a in b.args:
                    a.name_hint = None
    return str(copy)


def stitch(main: func.FuncOp, pieces: Sequence[Piece]) -> tuple[ModuleOp, dict[str, int]]:
    """One kernel-level module running every use of every lowered piece in program order;
    kernel.funcs equal up to names kept once. Returns it and each kernel.func's flops."""
    funcs: list[Operation] = []
    by_text: dict[str, str] = {}
    flops: dict[str, int] = {}
    renames: list[dict[str, str]] = []
    for piece in pieces:
        assert piece.lowered is not None
        names: dict[str, str] = {}
        for op in piece.lowered.ops:
            if not isinstance(op, K.KernelFuncOp):
                continue
            old = op.sym_name.data
            text = canonical(op)
            if text not in by_text:
                new, n = old, 1
                while new in flops:
                    new, n = f"{old}_{n}", n + 1
                copy = op.clone()
                copy.sym_name = StringAttr(new)
                funcs.append(copy)
                by_text[text] = new
                flops[new] = piece.flops.get(old, 0)
            names[old] = by_text[text]
        renames.append(names)

    # @main's arguments take the buffer types the pieces gave them
    arg_types = {a: _memref(a.type) for a in main.body.block.args}
    for piece in pieces:
        kmain = _main(piece.lowered)
        for _, inputs, _ in piece.uses:
            for v, a in zip(inputs, kmain.body.block.args):
                if v in arg_types:
                    arg_types[v] = a.type
    block = Block(arg_types=list(arg_types.values()))
    env: dict[SSAValue, SSAValue] = {}
    for old, new in zip(main.body.block.args, block.args):
        new.name_hint = old.name_hint
        env[old] = new
    order = sorted(
        ((start, piece, names, inputs, outputs)
         for piece, names in zip(pieces, renames) for start, inputs, outputs in piece.uses),
        key=lambda t: t[0],
    )  # fmt: skip
    for _, piece, names, inputs, outputs in order:
        kmain = _main(piece.lowered)
        local = {a: env[v] for a, v in zip(kmain.body.block.args, inputs)}
        for op in kmain.body.block.ops:
            if isinstance(op, memref.AllocOp):
                alloc = memref.AllocOp([], [], op.memref.type)
                alloc.memref.name_hint = op.memref.name_hint
                block.add_op(alloc)
                local[op.memref] = alloc.memref
            elif isinstance(op, K.LaunchOp):
                block.add_op(K.LaunchOp(names[op.callee.string_value()], [local[a] for a in op.args]))
            elif isinstance(op, func.ReturnOp):
                env.update({v: local[r] for v, r in zip(outputs, op.arguments)})
            else:
                raise ValueError(f"dpl: cannot stitch '{op.name}' in a piece's host program")
    returned = next(op for op in main.body.block.ops if isinstance(op, func.ReturnOp))
    results = [env[v] for v in returned.arguments]
    block.add_op(func.ReturnOp(*results))
    ftype = FunctionType.from_lists([a.type for a in block.args], [r.type for r in results])
    module = ModuleOp([*funcs, func.FuncOp("main", ftype, Region(block))])
    module.attributes |= dict(pieces[0].lowered.attributes)
    return module, flops


def _memref(t):
    return MemRefType(t.element_type, t.get_shape()) if isinstance(t, TensorType) else t


def _main(module: ModuleOp | None) -> func.FuncOp:
    assert module is not None
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")


def lower_by_blocks(
    module: ModuleOp,
    lower_piece: LowerPiece,
    step: Callable[[str, int, int, str], None] | None = None,
) -> tuple[ModuleOp, dict[str, int]]:
    """Lower torch-level `module` to kernel IR, its repeated block once (see the module
    docstring); `step(stage, done, total, what)` hears of each piece."""
    main = _main(module)
    repeats = find_repeats(main)
    if repeats is None:
        if step:
            step("passes", 0, 1, f"{len(body_ops(main))} ops")
        return lower_piece(module)
    pieces = split(module, main, repeats)
    for i, piece in enumerate(pieces):
        if step:
            ops = len(body_ops(_main(piece.module)))
            times = f" x{len(piece.uses)}" if len(piece.uses) > 1 else ""
            step("passes", i, len(pieces), f"piece of {ops} ops{times}")
        piece.lowered, piece.flops = lower_piece(piece.module)
    module, flops = stitch(main, pieces)
    module.verify()
    return module, flops
