"""chunk-reduce: chunk a long reduce so the slab it reads fits in shared memory.

A top-level reduce of a non-matmul tile (`loop.for reduce %r < N`, or the `tile.strided_for
reduce %r = %lane to N step T` cooperative-reduce makes of it) whose per-block slab, N elements
of every input it reads along %r, exceeds `smem-bytes` is split into a `loop.for reduce %ro <
N / C` holding the same reduce over C, with `%r -> %ro * C + %r` in its indices:

    %p = tile.strided_for reduce %r = %lane to 16384 step 256 -> f32 { ...x[%b, %r]... }
 -> %p = loop.for reduce %ro < 2 -> f32 {
          %q = tile.strided_for reduce %r = %lane to 8192 step 256 -> f32 { ...x[%b, %ro * 8192 + %r]... }
          loop.accumulate add %q : f32
        }

C is the largest power of two dividing N whose slab fits. Every element is still folded exactly
once (the sum is regrouped), so meaning is kept. Matmul K reduces are chunk-matmul-k's job.

Declines (logged to `dpl.passes`) a matmul tile, a reduce whose slab already fits, and one for
which no power-of-two chunk of at least 2 divides N and fits.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, IntAttr, ModuleOp
from xdsl.ir import Block
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.dialects.kernel import MAX_SMEM
from dpl.dialects.types import element_bytes
from dpl.dialects.loop import IterKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG
from dpl.transforms.tile.matmul import access_forms, for_each_tile, matmul_info, rewrite_value


def _chunk_one(t: tile.TileOp, f, smem_bytes: int) -> str:
    n = f.extent.data if isinstance(f, loop.ForOp) else f.bound.data
    per_elem = 0
    seen = set()
    for ld in f.walk():
        if isinstance(ld, loop.LoadOp) and ld.memref not in seen:
            forms = access_forms(ld)
            if forms is None or any(f.iv in terms for terms, _ in forms):
                seen.add(ld.memref)
                per_elem += element_bytes(ld.memref.type.element_type)
    if per_elem * n <= smem_bytes:
        return f"a reduce of {n} reading {per_elem * n} bytes fits {smem_bytes}"
    c = 1
    while n % (c * 2) == 0 and (c * 2) * per_elem <= smem_bytes:
        c *= 2
    if c < 2:
        return f"no power-of-two chunk of {n} fits {smem_bytes} bytes"
    if isinstance(f, tile.StridedForOp) and c < f.step.data:
        return f"a chunk of {c} is narrower than the {f.step.data} lanes sharing it"
    types = [r.type for r in f.res]
    acc = f.body.block.last_op
    assert isinstance(acc, loop.AccumulateOp)
    kinds = [k.data for k in acc.kinds]
    parent = f.parent_block()
    assert parent is not None
    outer_body = Block(arg_types=[IndexType()])
    outer = loop.ForOp(IterKind.REDUCE, n // c, outer_body, types)
    outer.iv.name_hint = (f.iv.name_hint or "r") + "o"
    parent.insert_op_before(outer, f)
    for old, new in zip(f.res, outer.res):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    f.detach()
    outer_body.add_op(f)
    outer_body.add_op(loop.AccumulateOp(kinds, list(f.res)))
    if isinstance(f, loop.ForOp):
        f.properties["extent"] = IntAttr(c)
    else:
        f.properties["bound"] = IntAttr(c)
    for r in f.res:
        r.name_hint = (r.name_hint or "acc") + "_chunk"
    rewrite_value(f.body.block, f.iv, ({outer.iv: c, f.iv: 1}, 0), None)
    return f"chunked a reduce of {n} into {n // c} x {c}"


def chunk_tile(t: tile.TileOp, smem_bytes: int) -> list[str]:
    if matmul_info(t) is not None:
        return ["declined: a matmul tile (chunk-matmul-k chunks its K)"]
    notes = []
    for f in list(t.body.block.ops):
        if isinstance(f, (loop.ForOp, tile.StridedForOp)) and f.kind.data == IterKind.REDUCE:
            notes.append(_chunk_one(t, f, smem_bytes))
    return notes or ["declined: no top-level reduce"]


@dataclass(frozen=True)
class ChunkReduce(ModulePass):
    """Chunk long non-matmul reduces (nested loops) so the slab each chunk reads fits in smem."""

    name = "chunk-reduce"

    smem_bytes: int = 48 * 1024

    def __post_init__(self):
        check_option(self, "smem_bytes", 4, MAX_SMEM)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for t_notes in for_each_tile(op, lambda t: "\n".join(chunk_tile(t, self.smem_bytes))):
            where, notes = t_notes
            for note in (notes or "").splitlines():
                LOG.info("chunk-reduce: %s: %s", where, note)
