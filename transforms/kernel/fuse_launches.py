"""fuse-launches: independent launches of the host program become one launch of one kernel
whose blocks each run the part their block index falls in.

A decoder layer launches small kernels back to back: the q, k and v projections read the same
normed input and write three buffers, and each split-K output is zeroed by its own `_init`
kernel first. Each launch costs a few microseconds of drain and ramp-up, and a projection of 64
blocks leaves most of the GPU idle. Launches with no data between them can share one grid:

    kernel.launch @k_q(%x, %wq, %q)        // grid [16, 8, 1]  block [256, 1, 1]
    kernel.launch @k_k(%x, %wk, %k)        // grid [4, 2, 8]   block [256, 1, 1]

becomes

    kernel.func @k_q__k_k(%x, %wq, %q, %wk, %k) grid [192, 1, 1] block [256, 1, 1] smem max {
      %block = kernel.block_id x
      %first = arith.cmpi ult, %block, 128
      kernel.if %first {
        ... @k_q's body, its block_id x/y/z computed from %block (x fastest) ...
      } else {
        %local = arith.subi %block, 128
        ... @k_k's body, its block indices computed from %local ...
      }
    } {kernel.fused = ["k_q", "k_k"]}
    kernel.launch @k_q__k_k(%x, %wq, %q, %wk, %k)

Which launches fuse. The launches are taken in program order and gathered into groups, each
group one launch. A launch joins a group when

- it does not touch what the group's launches write, nor write what they read (every operand
  counts as read; the kernel's stores and atomics say what it writes), and the same holds for
  every later group: it depends on none of the launches it moves ahead of;
- it moves ahead of at most `window` groups (default 3), so that buffer lifetimes (and the
  workspace) grow little; an `_init` kernel moves up to a group before its consumer's, which
  leaves its consumer free to join its siblings' group;
- it has the same block shape (a barrier must see every thread of the block) and is of the
  same kind: 32 KiB or more of shared memory (a matmul's staged tiles) or less (pointwise,
  norms, zero fills), so that a matmul's registers and shared memory never set how many blocks
  of a memory-bound kernel an SM holds; and the fused shared memory leaves every part at least
  half the blocks per SM it had on its own (the module's #kernel.target: on sm_90 228 KiB
  per SM, 1 KiB reserved per block, 2048 threads per SM). A part's static shared buffers become views of the dynamic pool after its
  own dynamic bytes, so the parts share one pool (a block runs one part) and the fused kernel
  reserves the largest part's bytes, not their sum;
- it takes each buffer it shares with the group's launches as the same type (a kernel may take a
  buffer as its flat view, flatten-buffers; the fused kernel takes it one way).

Parts of one kernel that split-nests found to write disjoint elements (`{kernel.apart =
"k_cat"}` on each, a concat's parts) do not touch each other's data either: they join one
group although they write one buffer, and a part of a smaller block joins as a tail does (below)
when it is small (SMALL_PART threads in all) or uses at least half the group's block.

A tail kernel (`{kernel.tail_of = @k}`, collapse-pointwise: the last elements of @k's flat
tile, which @k does not touch) and @k do not touch each other's data, so the tail joins @k's
group although both write the same buffer; with a block [t, 1, 1] of fewer threads than the
group's (and no barrier, shared memory or blockDim) it runs on the first t threads of its block
(`if (threadIdx.x < t)`), and the group's block is the fused kernel's.

It joins the earliest such group, else starts a new one. The host program's `memref.alloc`s move
to its top (they have no operands), and each group becomes one `kernel.launch` of a fused
`kernel.func` named after its parts joined by `__`, with a `kernel.fused` attribute listing them.
A group of one launch is left as it was. Registers are the largest of the parts (nvcc allocates
per function), which the shared-memory rule does not see. With `-v`, each fused launch is logged,
and so is a launch that starts its own group although a group in its window was free of its
data, with why that group refused it (block shape, kind, blocks per SM, a buffer's type).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.transforms.loop.count_cost import total as total_cost
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, index_constant
from dpl.transforms.tile.target import target_of

MAX_BLOCKS_PER_SM = 32
TILE_SMEM = 32 * 1024
FUSED_ATTR = "kernel.fused"
#: a part of a concat this small (threads in all) may run on part of a larger block: idle
#: threads cost less than its own launch
SMALL_PART = 64 * 1024


@dataclass
class _Part:
    launch: K.LaunchOp
    func: K.KernelFuncOp
    writes: set[SSAValue]
    offsets: dict[K.SmemOp, int]  # where each static shared buffer goes in the dynamic pool
    smem: int  # bytes of shared memory once its static buffers follow its dynamic ones

    @property
    def reads(self) -> set[SSAValue]:
        return set(self.launch.args)

    @property
    def blocks(self) -> int:
        gx, gy, gz = self.func.grid_extents
        return gx * gy * gz

    @property
    def stages_tiles(self) -> bool:
        return self.smem >= TILE_SMEM


@dataclass
class _Group:
    target: K.TargetAttr
    parts: list[_Part] = field(default_factory=list)

    def conflicts(self, p: _Part) -> bool:
        return any(
            not _apart(p, q) and (q.writes & (p.reads | p.writes) or p.writes & q.reads)
            for q in self.parts
        )

    def refuses(self, p: _Part) -> str | None:
        """Why `p` cannot join this group (None: it can)."""
        q = self.parts[0]
        if q.func.block_extents != p.func.block_extents and not self.takes_tail(p):
            return f"block {list(p.func.block_extents)} differs from {list(q.func.block_extents)}"
        if q.stages_tiles != p.stages_tiles:
            return "one stages tiles in shared memory, the other does not"
        for x in self.parts:
            for v, t in _param_types(p).items():
                if _param_types(x).get(v, t) != t:
                    return f"@{x.func.sym_name.data} takes %{v.name_hint or '?'} as {_param_types(x)[v]}, not {t}"
        parts = [*self.parts, p]
        fused = max(x.smem for x in parts)
        threads = p.func.num_threads
        for x in parts:
            alone, shared = blocks_per_sm(x.smem, threads, self.target), blocks_per_sm(fused, threads, self.target)
            if 2 * shared < alone:
                return f"@{x.func.sym_name.data} would run {shared} blocks per SM instead of {alone}"
        return None

    def name(self) -> str:
        return "+".join(f"@{x.func.sym_name.data}" for x in self.parts)

    def takes_tail(self, p: _Part) -> bool:
        """Whether `p` is the tail of one of the parts, or a part of one kernel with them
        (`kernel.apart`) that is small (at most SMALL_PART threads) or keeps at least half the
        group's threads busy, a block [t, 1, 1] of at most the group's threads with no barrier,
        shared memory or blockDim: it runs on the first t threads of a block."""
        (bx, by, bz), (tx, ty, tz) = self.parts[0].func.block_extents, p.func.block_extents
        small = p.blocks * tx <= SMALL_PART or 2 * tx >= bx
        return (
            any(_tail_pair(p, q) or (small and _apart(p, q)) for q in self.parts)
            and by == bz == ty == tz == 1 and tx <= bx and p.smem == 0
            and not any(isinstance(o, K.BarrierOp | K.BlockDimOp) for o in p.func.body.walk())
        )  # fmt: skip


def _tail_pair(p: _Part, q: _Part) -> bool:
    """Whether one of the two kernels is the other's tail (`kernel.tail_of`): they touch
    different elements, so neither's writes are the other's data."""
    def tail_of(x: _Part) -> str | None:
        ref = x.func.attributes.get(K.TAIL_OF)
        return ref.string_value() if isinstance(ref, SymbolRefAttr) else None

    return tail_of(p) == q.func.sym_name.data or tail_of(q) == p.func.sym_name.data


def _apart(p: _Part, q: _Part) -> bool:
    """Whether the two kernels are parts of one kernel that write disjoint elements
    (`kernel.apart`, split-nests), or one is the other's tail."""
    a, b = p.func.attributes.get(K.APART), q.func.attributes.get(K.APART)
    return _tail_pair(p, q) or (isinstance(a, StringAttr) and a == b)


def _param_types(p: _Part) -> dict[SSAValue, Attribute]:
    """The type `p`'s kernel takes each launch value as (its own, or a flat view of it:
    flatten-buffers)."""
    return {v: a.type for v, a in zip(p.launch.args, p.func.args)}


def blocks_per_sm(smem: int, threads: int, target: K.TargetAttr) -> int:
    """Blocks of `threads` threads and `smem` bytes of shared memory one SM of `target` holds at
    once."""
    return min(
        MAX_BLOCKS_PER_SM,
        target.threads_per_sm // threads,
        target.smem_per_sm // (smem + K.SMEM_RESERVED_PER_BLOCK),
    )


def _align(n: int) -> int:
    return -(-n // 16) * 16


def _static_offsets(kfunc: K.KernelFuncOp) -> tuple[dict[K.SmemOp, int], int]:
    """Where each static shared buffer of `kfunc` goes in the dynamic pool (after the kernel's
    own dynamic bytes), and the pool's size then."""
    offsets: dict[K.SmemOp, int] = {}
    end = _align(kfunc.smem.data)
    for op in kfunc.body.walk():
        if isinstance(op, K.SmemOp) and not op.is_dynamic:
            offsets[op] = end
            end += _align(op.size_bytes())
    return offsets, end


def _part(launch: K.LaunchOp) -> _Part:
    kfunc = launch.kernel_func()
    assert kfunc is not None, "verified: every launch names a kernel.func"
    value_of = dict(zip(kfunc.args, launch.args))
    writes = {value_of[a] for a in kfunc.written_args()}
    return _Part(launch, kfunc, writes, *_static_offsets(kfunc))


def group_launches(launches: list[K.LaunchOp], window: int, target: K.TargetAttr) -> list[_Group]:
    """The launches gathered into groups (see the module docstring), in launch order."""
    groups: list[_Group] = []
    for launch in launches:
        p = _part(launch)
        last_dep = max((i for i, g in enumerate(groups) if g.conflicts(p)), default=-1)
        lo = max(last_dep + 1, len(groups) - 1 - window)
        home = next((g for g in groups[lo:] if g.refuses(p) is None), None)
        if home is None:
            refused = [f"{g.name()}: {g.refuses(p)}" for g in groups[lo:]]
            if refused:  # groups it could have joined but for their kind or shape
                LOG.info("fuse-launches: @%s starts a launch of its own (%s)",
                         p.func.sym_name.data, "; ".join(refused))
            home = _Group(target)
            groups.append(home)
        home.parts.append(p)
    return groups


def _emit(block: Block, ops: list[Operation], hint: str | None = None) -> SSAValue:
    block.add_ops(ops)
    result = ops[-1].results[0]
    if hint:
        result.name_hint = hint
    return result


def _block_indices(block: Block, local: SSAValue, grid: tuple[int, int, int]) -> list[SSAValue | None]:
    """The part's blockIdx.x/y/z from its linear block index `local` (x fastest); None for an
    axis of extent 1 (its index is 0)."""
    gx, gy, gz = grid
    if gy == 1 and gz == 1:
        return [local, None, None]
    cx = index_constant(gx)
    bx = _emit(block, [cx, arith.RemUIOp(local, cx)], "block_x")
    if gz == 1:
        return [bx, _emit(block, [arith.DivUIOp(local, cx)], "block_y"), None]
    rest = _emit(block, [arith.DivUIOp(local, cx)], "block_yz")
    cy = index_constant(gy)
    by = _emit(block, [cy, arith.RemUIOp(rest, cy)], "block_y")
    return [bx, by, _emit(block, [arith.DivUIOp(rest, cy)], "block_z")]


def _inline_part(block: Block, p: _Part, local: SSAValue, arg_of: dict[SSAValue, SSAValue], threads: int) -> None:
    """Clone `p`'s kernel body into `block`, its arguments mapped to the fused kernel's and its
    block and grid indices to the part's own; a part of fewer than the fused block's `threads`
    (a tail) under `if (threadIdx.x < its threads)`."""
    guarded = p.func.num_threads < threads
    if guarded:
        tid = _emit(block, [K.ThreadIdOp(K.Dim.X)], "tid")
        inside = _emit(block, [n := index_constant(p.func.num_threads), arith.CmpiOp(tid, n, "ult")], "in_threads")
        block.add_op(K.IfOp(inside, Region(inner := Block())))
        block = inner
    ids = _block_indices(block, local, p.func.grid_extents)
    mapper: dict[SSAValue, SSAValue] = {
        a: arg_of[v] for a, v in zip(p.func.args, p.launch.args)
    }
    originals = [o for top in p.func.body.block.ops for o in top.walk()]
    cloned = [op.clone(value_mapper=mapper) for op in p.func.body.block.ops]
    block.add_ops(cloned)
    dims = "xyz"
    for old, op in zip(originals, [o for top in cloned for o in top.walk()]):
        if isinstance(op, K.SmemOp) and not op.is_dynamic:
            view = K.SmemOp(op.result.type, p.offsets[old])
            view.attributes |= op.attributes
            view.result.name_hint = op.result.name_hint
            Rewriter.replace_op(op, view)
        elif isinstance(op, K.BlockIdOp):
            index = ids[dims.index(op.dim.data.value)]
            if index is None:
                Rewriter.replace_op(op, index_constant(0))
            else:
                Rewriter.replace_op(op, [], new_results=[index])
        elif isinstance(op, K.GridDimOp):
            extent = p.func.grid_extents[dims.index(op.dim.data.value)]
            Rewriter.replace_op(op, const := index_constant(extent))
            const.result.name_hint = f"grid_{op.dim.data.value}"
    if guarded:
        block.add_op(K.YieldOp())


def _local(block: Block, linear: SSAValue, start: int) -> SSAValue:
    """The block's index within the part whose blocks start at `start`."""
    if start == 0:
        return linear
    return _emit(block, [c := index_constant(start), arith.SubiOp(linear, c)], "local")


def _drop_if_unused(local: SSAValue) -> None:
    """Erase `local` (and its constant) when the part never asks for its block index."""
    sub = local.owner
    if isinstance(sub, arith.SubiOp) and not local.uses:
        const = sub.rhs.owner
        sub.detach()
        sub.erase()
        assert isinstance(const, Operation)
        const.detach()
        const.erase()


def fuse_group(parts: list[_Part], name: str) -> tuple[K.KernelFuncOp, list[SSAValue]]:
    """One kernel.func `name` running every part, and the host values it is launched on."""
    values: list[SSAValue] = []
    for p in parts:
        values += [v for v in p.launch.args if v not in values]
    total = sum(p.blocks for p in parts)
    smem = max(p.smem for p in parts)
    types: dict[SSAValue, Attribute] = {}
    for p in parts:
        types |= _param_types(p)  # the parts agree (_Group.refuses)
    fused = K.KernelFuncOp(name, [types[v] for v in values], [total, 1, 1], parts[0].func.block_extents, smem)
    fused.attributes[FUSED_ATTR] = ArrayAttr([StringAttr(p.func.sym_name.data) for p in parts])
    total_cost([p.func for p in parts], fused)  # the parts' flops and bytes, summed
    arg_of = dict(zip(values, fused.args))
    for v, a in arg_of.items():
        a.name_hint = v.name_hint
    block = fused.body.block
    linear = _emit(block, [K.BlockIdOp(K.Dim.X)], "block")
    start = 0
    for p in parts[:-1]:
        local = _local(block, linear, start)
        bound = index_constant(start + p.blocks)
        cond = arith.CmpiOp(linear, bound, "ult")
        cond.result.name_hint = "in_" + p.func.sym_name.data
        then_block, else_block = Block(), Block()
        block.add_ops([bound, cond, K.IfOp(cond.result, Region(then_block), Region(else_block))])
        _inline_part(then_block, p, local, arg_of, fused.num_threads)
        _drop_if_unused(local)
        then_block.add_op(K.YieldOp())
        block = else_block
        start += p.blocks
    local = _local(block, linear, start)
    _inline_part(block, parts[-1], local, arg_of, fused.num_threads)
    _drop_if_unused(local)
    while block is not fused.body.block:  # close the else branches, innermost first
        block.add_op(K.YieldOp())
        block = block.parent_op().parent_block()
    return fused, values


def _host(module: ModuleOp) -> func.FuncOp | None:
    """The host program: the func.func that launches kernels."""
    for op in module.walk():
        if isinstance(op, func.FuncOp) and any(isinstance(o, K.LaunchOp) for o in op.body.walk()):
            return op
    return None


@dataclass(frozen=True)
class FuseLaunches(ModulePass):
    """Fuse independent launches of the host program (same block shape, one kind of shared
    memory use, each part keeping half its blocks per SM or more) into one launch of one kernel
    whose blocks each run the part their block index falls in."""

    name = "fuse-launches"

    window: int = 3
    """How many groups a launch may move ahead of (0: it may only join the last group)."""

    def __post_init__(self):
        check_option(self, "window", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        host = _host(op)
        if host is None:
            return
        body = host.body.block
        if any(not isinstance(o, K.LaunchOp | func.ReturnOp) and o.name != "memref.alloc" for o in body.ops):
            LOG.info("fuse-launches: @%s has ops other than allocs and launches; left alone",
                     host.sym_name.data)
            return
        launches = [o for o in body.ops if isinstance(o, K.LaunchOp)]
        groups = group_launches(launches, self.window, target_of(op))
        if len(groups) == len(launches):
            return
        allocs = [o for o in body.ops if o.name == "memref.alloc"]
        for alloc in allocs:
            alloc.detach()
        for launch in launches:
            launch.detach()
        ret = body.last_op
        assert isinstance(ret, func.ReturnOp)
        body.insert_ops_before(allocs, ret)
        taken = {o.sym_name.data for o in op.walk() if isinstance(o, K.KernelFuncOp)}
        launched = [launch.callee.string_value() for launch in launches]
        emptied: list[K.KernelFuncOp] = []
        for g in groups:
            if len(g.parts) == 1:
                body.insert_op_before(g.parts[0].launch, ret)
                continue
            name = "__".join(p.func.sym_name.data for p in g.parts)
            unique, n = name, 1
            while unique in taken:
                unique, n = f"{name}_{n}", n + 1
            taken.add(unique)
            fused, values = fuse_group(g.parts, unique)
            LOG.info("fuse-launches: %s share one launch of %d blocks",
                     ", ".join(f"@{p.func.sym_name.data}" for p in g.parts), fused.grid_extents[0])
            Rewriter.insert_op(fused, InsertPoint.before(g.parts[0].func))
            body.insert_op_before(K.LaunchOp(unique, values), ret)
            for p in g.parts:
                launched.remove(p.func.sym_name.data)
                p.launch.erase()
                emptied.append(p.func)
        for kfunc in emptied:  # a part's kernel that no launch is left to use
            if kfunc.parent is not None and kfunc.sym_name.data not in launched:
                kfunc.detach()
                kfunc.erase()
