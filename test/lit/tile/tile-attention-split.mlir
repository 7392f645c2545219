// RUN: dpl-opt %s --split-input-file --pass-pipeline='tile-attention{rows=32 tile=8 chain=1 splits=4}' | filecheck %s
// tile-attention with splits (split-KV): the keys are split over a block axis %sp of whole key
// tiles (at most `splits`, none empty); the flash tile writes each split's partial output and
// log-sum-exp to two new buffers, and a combine loop kernel after it weighs the partial outputs by
// softmax(lse) into the attention's store (pointwise: written out over the splits). tests/test_tile_passes.py runs each case before and
// after on random inputs.

// Causal SDPA, 13 keys in tiles of 8: two splits (keys 0..7, 8..12), not four.
func.func @main(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 13 {
          loop.for free %a3 < 8 {
            %acc = attn.softmax_reduce < 13 -> f32 score {
            ^bb0(%s: index):
              %0 = arith.constant 0xff800000 : f32
              %1 = arith.constant 0.353553385 : f32
              %acc_1 = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x13x8xf32>
                %in_1 = loop.load %y[%a0, %a1, %s, %r0] : memref<1x2x13x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              %2 = arith.cmpi ugt, %s, %a2 : index
              %3 = arith.mulf %acc_1, %1 : f32
              %a = arith.select %2, %0, %3 : f32
              attn.yield %a : f32
            } value {
            ^bb0(%s_1: index):
              %in_3 = loop.load %z[%a0, %a1, %s_1, %a3] : memref<1x2x13x8xf32>
              attn.yield %in_3 : f32
            }
            loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3] : memref<1x2x13x8xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x8xf32>
}

// CHECK-LABEL: func.func @main
// CHECK:       %scaled_dot_product_attention_part = memref.alloc() : memref<2x1x2x13x8xf32>
// CHECK-NEXT:  %scaled_dot_product_attention_lse = memref.alloc() : memref<2x1x2x13xf32>
// CHECK-NEXT:  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : {{.*}}) outs(%scaled_dot_product_attention_part, %scaled_dot_product_attention_lse : memref<2x1x2x13x8xf32>, memref<2x1x2x13xf32>) {
// CHECK-NEXT:    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %sp : 2 = block, %qb : 1 = block, %w : 2 = thread, %g : 8 = thread, %t : 4 = thread) {
// CHECK:           attn.flash %l0 rows 32 queries 13 keys 13 tile 8 depth 8 x 8 chain 1 precision "3xtf32" causal split %sp keys 8 query {
// CHECK:           } output {
// CHECK-NEXT:      ^bb0(%o: f32, %l_2: index, %c_3: index):
// CHECK-NEXT:        loop.store %o, %scaled_dot_product_attention_part[%sp, %a0, %a1, %l_2, %c_3] : memref<2x1x2x13x8xf32>
// CHECK:           } lse {
// CHECK-NEXT:      ^bb0(%x_2: f32, %l_3: index):
// CHECK-NEXT:        loop.store %x_2, %scaled_dot_product_attention_lse[%sp, %a0, %a1, %l_3] : memref<2x1x2x13xf32>
// CHECK:       loop.kernel @k_scaled_dot_product_attention_combine ins(%scaled_dot_product_attention_lse, %scaled_dot_product_attention_part : {{.*}}) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
// CHECK:         %[[L0:.*]] = loop.load %scaled_dot_product_attention_lse[0, %a0_1, %a1_1, %a2]
// CHECK-NEXT:    %[[L1:.*]] = loop.load %scaled_dot_product_attention_lse[1, %a0_1, %a1_1, %a2]
// CHECK-NEXT:    %[[M:.*]] = arith.maximumf %[[L0]], %[[L1]] : f32
// CHECK:         loop.load %scaled_dot_product_attention_part[0, %a0_1, %a1_1, %a2, %a3]
// CHECK:         loop.load %scaled_dot_product_attention_part[1, %a0_1, %a1_1, %a2, %a3]
// CHECK:         %acc = arith.divf
// CHECK-NEXT:    loop.store %acc, %scaled_dot_product_attention[%a0_1, %a1_1, %a2, %a3]

// -----

// One key tile (9 keys in tiles of 8 would be two; 8 keys are one): nothing to split, the plain
// flash tile.
func.func @main(%x: memref<1x2x8x8xf32>, %y: memref<1x2x8x8xf32>, %z: memref<1x2x8x8xf32>) -> memref<1x2x8x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x8x8xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x8x8xf32>, memref<1x2x8x8xf32>, memref<1x2x8x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x8x8xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 8 {
          loop.for free %a3 < 8 {
            %acc = attn.softmax_reduce < 8 -> f32 score {
            ^bb0(%s: index):
              %0 = arith.constant 0xff800000 : f32
              %1 = arith.constant 0.353553385 : f32
              %acc_1 = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x8x8xf32>
                %in_1 = loop.load %y[%a0, %a1, %s, %r0] : memref<1x2x8x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              %2 = arith.cmpi ugt, %s, %a2 : index
              %3 = arith.mulf %acc_1, %1 : f32
              %a = arith.select %2, %0, %3 : f32
              attn.yield %a : f32
            } value {
            ^bb0(%s_1: index):
              %in_3 = loop.load %z[%a0, %a1, %s_1, %a3] : memref<1x2x8x8xf32>
              attn.yield %in_3 : f32
            }
            loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3] : memref<1x2x8x8xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x8x8xf32>
}

// CHECK-LABEL: func.func @main
// CHECK-NOT:   memref.alloc() : memref<{{.*}}x1x2x8x8xf32>
// CHECK:       attn.flash %l0 rows 32 queries 8 keys 8 tile 8 depth 8 x 8 chain 1 precision "3xtf32" causal query {
// CHECK-NOT:   split
// CHECK-NOT:   _combine
