"""Building tile IR from Python: the constructors and helpers passes use."""

from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr, AffineMap

from dpl.dialects import loop, tile
from dpl.dialects.tile import AxisKind, CombineStrategy, CopyKind, SlabDimAttr


def _rms_norm_like() -> tuple[ModuleOp, tile.StageOp, tile.TileOp]:
    x_t = MemRefType(f32, [32, 2048])
    fn_block = Block(arg_types=[x_t, x_t])
    x, out = fn_block.args
    t = tile.TileOp([(256, AxisKind.THREAD), (32, AxisKind.BLOCK)])
    a0, a1 = t.body.block.args
    s0, s1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    stage = tile.StageOp(
        x, AffineMap(1, 0, (s0, AffineExpr.constant(0))), [a1], [SlabDimAttr(2048, 1, "a2")],
        copy=CopyKind.ASYNC,
    )
    body = Block(arg_types=[IndexType()])
    load = loop.LoadOp(stage.result, [body.args[0]], AffineMap(1, 0, (s0,)))
    body.add_ops([load, loop.AccumulateOp([loop.CombineKind.ADD], [load.result])])
    red = tile.StridedForOp(loop.IterKind.REDUCE, a0, 2048, 256, body, [f32])
    comb = tile.CombineOp(loop.CombineKind.ADD, red.res[0], [a0], CombineStrategy.WARP_SHUFFLE)
    store = loop.StoreOp(comb.result, out, [a1, a0], AffineMap(2, 0, (s0, s1)))
    t.body.block.add_ops([stage, red, comb, store])
    kernel = tile.KernelOp("k", [x], [out], Block([t]))
    fn_block.add_ops([kernel, ReturnOp()])
    fn = FuncOp.from_region("f", [x_t, x_t], [], Region(fn_block))
    return ModuleOp([fn]), stage, t


def test_builders_verify_and_helpers():
    module, stage, t = _rms_norm_like()
    module.verify()
    assert tile.is_smem(stage.result)
    assert stage.result.type == tile.smem_type([2048], f32)
    assert [(e, k) for _, e, k in t.axes] == [(256, AxisKind.THREAD), (32, AxisKind.BLOCK)]
    assert t.count(AxisKind.THREAD) == 256
    assert "async : memref<32x2048xf32> -> memref<2048xf32, #tile.smem>" in str(module)


def test_double_buffer_changes_the_result_type():
    x_t = MemRefType(f32, [64])
    k = loop.ForOp(loop.IterKind.FREE, 2, Block(arg_types=[IndexType()]))
    x = Block(arg_types=[x_t]).args[0]
    stage = tile.StageOp(
        x, AffineMap(1, 0, (AffineExpr.dimension(0) * 32,)), [k.iv], [SlabDimAttr(32, 0)],
        buffers=(2, k.iv), pad=[1],
    )
    assert stage.result.type == tile.smem_type([2, 32], f32)


def test_unroll_and_pipeline_marks():
    k = loop.ForOp(loop.IterKind.FREE, 2, Block(arg_types=[IndexType()]))
    assert not tile.is_unrolled(k)
    tile.mark_unroll(k)
    assert tile.is_unrolled(k)
    assert tile.pipeline_depth(k) is None
