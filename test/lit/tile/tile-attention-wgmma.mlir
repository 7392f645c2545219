// RUN: dpl-opt %s --pass-pipeline='tile-attention{tile=64 chain=2 wgmma=1}' | filecheck %s
// RUN: dpl-opt %s --pass-pipeline='tile-attention{rows=32 tile=64 wgmma=1}' | filecheck %s --check-prefix=ROWS
// RUN: not dpl-opt %s --pass-pipeline='tile-attention{wgmma=2}' 2>&1 | filecheck %s --check-prefix=BAD
// tile-attention{wgmma=1}: the attn.flash records `wgmma` (one warpgroup of 64 query rows on
// warpgroup MMA: materialize-attention-wgmma lowers it), without `wide` or `qsplit` (mma.sync's).
// Where attn.wgmma_decline refuses the sizes (here 32 query rows; also a split over the keys,
// tests/test_attention.py) the kernel stays on mma.sync (the decline is logged to dpl.passes). tests/test_attention.py runs the
// kernels against the loop level.

// Causal SDPA, depth 32.
func.func @main(%x: memref<1x2x13x32xf32>, %y: memref<1x2x13x32xf32>, %z: memref<1x2x13x32xf32>) -> memref<1x2x13x32xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x32xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x32xf32>, memref<1x2x13x32xf32>, memref<1x2x13x32xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x32xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 13 {
          loop.for free %a3 < 32 {
            %acc = attn.softmax_reduce < 13 -> f32 score {
            ^bb0(%s: index):
              %0 = arith.constant 0xff800000 : f32
              %1 = arith.constant 0.353553385 : f32
              %acc_1 = loop.for reduce %r0 < 32 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x13x32xf32>
                %in_1 = loop.load %y[%a0, %a1, %s, %r0] : memref<1x2x13x32xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              %2 = arith.cmpi ugt, %s, %a2 : index
              %3 = arith.mulf %acc_1, %1 : f32
              %a = arith.select %2, %0, %3 : f32
              attn.yield %a : f32
            } value {
            ^bb0(%s_1: index):
              %in_3 = loop.load %z[%a0, %a1, %s_1, %a3] : memref<1x2x13x32xf32>
              attn.yield %in_3 : f32
            }
            loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3] : memref<1x2x13x32xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x32xf32>
}

// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention
// CHECK:         tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread)
// CHECK:         attn.flash %l0 rows 64 queries 13 keys 13 tile 64 depth 32 x 32 chain 2 precision "3xtf32" wgmma causal query {
// ROWS-LABEL:  tile.kernel @k_scaled_dot_product_attention
// ROWS:          attn.flash %l0 rows 32 queries 13 keys 13 tile 64 depth 32 x 32 chain 4 precision "3xtf32" wide 1 causal query {
// BAD: tile-attention: option wgmma must be in [0, 1], got 2
