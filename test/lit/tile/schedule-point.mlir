// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// A loop kernel carrying `tile.point` (a point of its tuning space: values for the tunable options
// of its class's passes, the rest at their class defaults) is scheduled at that point instead of
// by the heuristics; `tile.tuned` (what the tuner measured) stays on the tile kernel, and the
// pipeline that ran is recorded as `tile.schedule`. Bad points: schedule-point-errors*.mlir.

// A matmul at rows = 2, cols = 4 (a 32 x 64 block tile on 16 x 16 threads), K chunked by 16,
// split over 2 blocks, 3 buffers with a pipeline of depth 3 (pad-smem declines rows of 16).
func.func @main(%x: memref<64x128xf64>, %w: memref<128x128xf64>) -> memref<64x128xf64> {
  %y = memref.alloc() : memref<64x128xf64>
  loop.kernel @k_point ins(%x, %w : memref<64x128xf64>, memref<128x128xf64>) outs(%y : memref<64x128xf64>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 128 {
        %acc = loop.for reduce %r0 < 128 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<64x128xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<128x128xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x128xf64>
      }
    }
  } {tile.point = {rows = 2 : i64, cols = 4 : i64, k_tile = 16 : i64, splits = 2 : i64, buffers = 3 : i64, depth = 3 : i64}, tile.tuned = {us = 3.5 : f64, default_us = 4.5 : f64}}
  func.return %y : memref<64x128xf64>
}
// CHECK-LABEL: tile.kernel @k_point
// CHECK:         tile.tile (%ks : 2 = block, %a0_b : 2 = block, %a0_t : 16 = thread, %a1_b : 2 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 4 = cell)
// CHECK:           loop.for reduce %ko < 4
// CHECK:             tile.stage %x {{.*}} slab [cell : 2 at 0, a0_t : 16 at 0, ki : 16 at 1] buffers 3 at %ko async
// CHECK:             loop.for reduce %ki < 16
// CHECK:           } {tile.pipeline = 3 : i64}
// CHECK:       } {tile.point = {rows = 2 : i64, cols = 4 : i64, k_tile = 16 : i64, splits = 2 : i64, buffers = 3 : i64, depth = 3 : i64}, tile.tuned = {us = 3.500000e+00 : f64, default_us = 4.500000e+00 : f64}, tile.zero_init = [0 : i64], tile.schedule = "tileify,pad-matmul{rows=2 cols=4 whole-k=124 sms=132},chunk-matmul-k{k-tile=16},split-matmul-k{sms=132 blocks-per-sm=6 short-k-splits=4 sparse-tile=4096 tile-elements=2048 splits=2},register-tile{rows=2 cols=4},blockify-launch,permute-register-tile,cooperative-reduce,stage-inputs{smem-bytes=232448},mark-unroll{max-extent=128},double-buffer{buffers=3},async-copy{target=sm_90},pad-smem{pad=4},pipeline-k-outer{depth=3}"}

// -----

// A pointwise kernel one element per thread in blocks of 64.
func.func @main(%x: memref<8x256xf64>) -> memref<8x256xf64> {
  %relu = memref.alloc() : memref<8x256xf64>
  loop.kernel @k_relu ins(%x : memref<8x256xf64>) outs(%relu : memref<8x256xf64>) {
    loop.for free %a0 < 8 {
      loop.for free %a1 < 256 {
        %a = loop.load %x[%a0, %a1] : memref<8x256xf64>
        %0 = arith.constant 0.000000e+00 : f64
        %1 = arith.maximumf %a, %0 : f64
        loop.store %1, %relu[%a0, %a1] : memref<8x256xf64>
      }
    }
  } {tile.point = {width = 1 : i64, block_size = 64 : i64}}
  func.return %relu : memref<8x256xf64>
}
// CHECK-LABEL: tile.kernel @k_relu
// CHECK:         tile.tile (%a0 : 8 = block, %a1_b : 4 = block, %a1_t : 64 = thread)
// CHECK:       } {tile.point = {width = 1 : i64, block_size = 64 : i64}, tile.schedule = "tileify,collapse-pointwise{width=1},vectorize-pointwise{width=1},blockify-launch{block-size=64},order-blocks,mark-unroll"}

// -----

// split_epilogue = true: the contraction (@k_mul_acc) is scheduled at the rest of the point, the
// epilogue (@k_mul) by its class's default.
func.func @main(%g: memref<64x128xf64>, %x: memref<64x64xf64>, %w: memref<128x64xf64>) -> memref<64x128xf64> {
  %out = memref.alloc() : memref<64x128xf64>
  loop.kernel @k_mul ins(%g, %x, %w : memref<64x128xf64>, memref<64x64xf64>, memref<128x64xf64>) outs(%out : memref<64x128xf64>) {
    loop.for free %i < 64 {
      loop.for free %j < 128 {
        %gv = loop.load %g[%i, %j] : memref<64x128xf64>
        %acc = loop.for reduce %r < 64 -> f64 {
          %a = loop.load %x[%i, %r] : memref<64x64xf64>
          %b = loop.load %w[%j, %r] : memref<128x64xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        %v = arith.mulf %gv, %acc : f64
        loop.store %v, %out[%i, %j] : memref<64x128xf64>
      }
    }
  } {tile.point = {split_epilogue = true, rows = 2 : i64, cols = 2 : i64}}
  func.return %out : memref<64x128xf64>
}
// CHECK-LABEL: tile.kernel @k_mul_acc
// CHECK:         tile.tile ({{.*}}%i_c : 2 = cell, %j_c : 2 = cell)
// CHECK:       } {tile.point = {rows = 2 : i64, cols = 2 : i64}, tile.schedule = "tileify,pad-matmul{rows=2 cols=2 whole-k=124 sms=132},chunk-matmul-k,split-matmul-k{{.*}}register-tile{rows=2 cols=2}{{.*}}"}
// CHECK-NEXT:  tile.kernel @k_mul ins(%g, %mul_acc
// CHECK:       } {tile.schedule = "tileify,collapse-pointwise,vectorize-pointwise,blockify-launch,order-blocks,mark-unroll"}

// -----

// A point whose tile does not divide the matmul: rows = 3 (3 x 16 x 2 blocks = 96 rows for 64)
// is still what runs, pad-matmul rounding M up to 96 with masked accesses.
func.func @main(%x: memref<64x128xf64>, %w: memref<128x128xf64>) -> memref<64x128xf64> {
  %y = memref.alloc() : memref<64x128xf64>
  loop.kernel @k_declined ins(%x, %w : memref<64x128xf64>, memref<128x128xf64>) outs(%y : memref<64x128xf64>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 128 {
        %acc = loop.for reduce %r0 < 128 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<64x128xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<128x128xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x128xf64>
      }
    }
  } {tile.point = {rows = 3 : i64, cols = 4 : i64}}
  func.return %y : memref<64x128xf64>
}
// CHECK-LABEL: tile.kernel @k_declined
// CHECK:         %a0_c : 3 = cell
// CHECK:       } {tile.point = {rows = 3 : i64, cols = 4 : i64}, {{.*}}tile.schedule = "{{.*}}register-tile{rows=3 cols=4}{{.*}}"}

// -----

// A matmul on the tensor cores (`tensor_cores = true`): tensorize-matmul's pipeline with a 64 x 32
// block tile (bm, bn), K split over 2 blocks; K stays chunked by 32 (tensorize-matmul's step).
func.func @main(%x: memref<64x128xf32>, %w: memref<64x128xf32>) -> memref<64x64xf32> {
  %y = memref.alloc() : memref<64x64xf32>
  loop.kernel @k_tensor_cores ins(%x, %w : memref<64x128xf32>, memref<64x128xf32>) outs(%y : memref<64x64xf32>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 64 {
        %acc = loop.for reduce %r0 < 128 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<64x128xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<64x128xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x64xf32>
      }
    }
  } {tile.point = {tensor_cores = true, bm = 64 : i64, bn = 32 : i64, splits = 2 : i64}}
  func.return %y : memref<64x64xf32>
}
// CHECK-LABEL: tile.kernel @k_tensor_cores
// CHECK:         tile.tile (%ks : 2 = block, %bm : 1 = block, %bn : 2 = block, %wg : 1 = thread
// CHECK:           mma.stage rows 64 k 32
// CHECK:           mma.stage rows 32 k 32
// CHECK:           mma.dot {{.*}} precision "3xtf32" layout wgmma
// CHECK:       tile.schedule = "tileify,pad-matmul{rows=64 cols=32 threads=1 k-tile=32},chunk-matmul-k{k-tile=32},split-matmul-k{sms=132 blocks-per-sm=4 contention-trips=0.89 tile-elements=2048 splits=2},tensorize-matmul{layout=wgmma bm=64 bn=32 precision=3xtf32 promote=4}"

// -----

// The same matmul with `tensor_cores = false` stays on SIMT fp32 (the matmul pipeline at its
// defaults) although its shape suits the tensor cores.
func.func @main(%x: memref<64x128xf32>, %w: memref<64x128xf32>) -> memref<64x64xf32> {
  %y = memref.alloc() : memref<64x64xf32>
  loop.kernel @k_simt ins(%x, %w : memref<64x128xf32>, memref<64x128xf32>) outs(%y : memref<64x64xf32>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 64 {
        %acc = loop.for reduce %r0 < 128 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<64x128xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<64x128xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x64xf32>
      }
    }
  } {tile.point = {tensor_cores = false}}
  func.return %y : memref<64x64xf32>
}
// CHECK-LABEL: tile.kernel @k_simt
// CHECK-NOT:     mma.dot
// CHECK:         tile.schedule = "tileify,pad-matmul{rows=4 cols=4 whole-k=124 sms=132},chunk-matmul-k,split-matmul-k{sms=132 blocks-per-sm=3 short-k-splits=4 sparse-tile=4096 tile-elements=4096},register-tile{rows=4 cols=4}
