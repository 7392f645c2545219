// RUN: dpl-opt %s --split-input-file --pass-pipeline='tile-attention{rows=32 tile=8 chain=1}' | filecheck %s
// tile-attention: an attention loop kernel (attn.softmax_reduce) becomes one attn.flash tile: the
// batch loops and the query block are block axes, two warps of 16 rows are the thread axes
// (w, g, t), each region the slice of the nest that computes its value.
// tests/test_tile_passes.py runs each case before and after on random inputs.

// Causal SDPA, 13 queries and keys: `causal` is recorded (select(s > l, -inf, ..)).
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

// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z
// CHECK:       tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 2 = thread, %g : 8 = thread, %t : 4 = thread) {
// CHECK-NEXT:    %l0 = affine.apply affine_map<(d0) -> ((d0 * 32))> (%qb)
// CHECK-NEXT:    attn.flash %l0 rows 32 queries 13 keys 13 tile 8 depth 8 x 8 chain 1 precision "3xtf32" causal query {
// CHECK-NEXT:    ^bb0(%l: index, %c: index):
// CHECK-NEXT:      %{{.*}} = loop.load %x[%a0, %a1, %l, %c] : memref<1x2x13x8xf32>
// CHECK:         } key {
// CHECK-NEXT:    ^bb0(%s: index, %c_1: index):
// CHECK-NEXT:      %{{.*}} = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x2x13x8xf32>
// CHECK:         } value {
// CHECK-NEXT:    ^bb0(%s_1: index, %c_2: index):
// CHECK-NEXT:      %{{.*}} = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x2x13x8xf32>
// CHECK:         } score {
// CHECK-NEXT:    ^bb0(%x_1: f32, %l_1: index, %s_2: index):
// CHECK:           arith.cmpi ugt, %s_2, %l_1 : index
// CHECK:         } output {
// CHECK-NEXT:    ^bb0(%o: f32, %l_2: index, %c_3: index):
// CHECK-NEXT:      loop.store %o, %scaled_dot_product_attention[%a0, %a1, %l_2, %c_3] : memref<1x2x13x8xf32>
// CHECK-NEXT:      attn.yield
// CHECK-NOT:   loop.kernel

// -----

// GQA (4 query heads over 2 key/value heads), not causal: the key and value regions read head
// a1 floordiv 2.
func.func @main(%x: memref<1x4x7x8xf32>, %y: memref<1x2x9x8xf32>, %z: memref<1x2x9x4xf32>) -> memref<1x4x7x4xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x4x7x4xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x4x7x8xf32>, memref<1x2x9x8xf32>, memref<1x2x9x4xf32>) outs(%scaled_dot_product_attention : memref<1x4x7x4xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 4 {
        loop.for free %a2 < 7 {
          loop.for free %a3 < 4 {
            %acc = attn.softmax_reduce < 9 -> f32 score {
            ^bb0(%s: index):
              %0 = arith.constant 0.353553385 : f32
              %acc_1 = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x4x7x8xf32>
                %in_1 = loop.load %y[%a0, %a1 floordiv 2, %s, %r0] : memref<1x2x9x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              %a = arith.mulf %acc_1, %0 : f32
              attn.yield %a : f32
            } value {
            ^bb0(%s_1: index):
              %in_3 = loop.load %z[%a0, %a1 floordiv 2, %s_1, %a3] : memref<1x2x9x4xf32>
              attn.yield %in_3 : f32
            }
            loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3] : memref<1x4x7x4xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x4x7x4xf32>
}

// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention
// CHECK:       attn.flash %l0 rows 32 queries 7 keys 9 tile 8 depth 8 x 4 chain 1 precision "3xtf32" query {
// CHECK:         loop.load %y[%a0, %a1 floordiv 2, %s, %c_1]
// CHECK:         loop.load %z[%a0, %a1 floordiv 2, %s_1, %c_2]

// -----

// A float mask: its load is in the score region (args x, l, s), at (l, s).
func.func @main(%x: memref<2x5x8xf32>, %y: memref<2x6x8xf32>, %z: memref<2x6x3xf32>, %u: memref<5x6xf32>) -> memref<2x5x3xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<2x5x3xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %u, %z : memref<2x5x8xf32>, memref<2x6x8xf32>, memref<5x6xf32>, memref<2x6x3xf32>) outs(%scaled_dot_product_attention : memref<2x5x3xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 3 {
          %acc = attn.softmax_reduce < 6 -> f32 score {
          ^bb0(%s: index):
            %0 = arith.constant 3.000000e-01 : f32
            %acc_1 = loop.for reduce %r0 < 8 -> f32 {
              %in = loop.load %x[%a0, %a1, %r0] : memref<2x5x8xf32>
              %in_1 = loop.load %y[%a0, %s, %r0] : memref<2x6x8xf32>
              %in_2 = arith.mulf %in, %in_1 : f32
              loop.accumulate add %in_2 : f32
            }
            %in_3 = loop.load %u[%a1, %s] : memref<5x6xf32>
            %1 = arith.mulf %acc_1, %0 : f32
            %a = arith.addf %1, %in_3 : f32
            attn.yield %a : f32
          } value {
          ^bb0(%s_1: index):
            %in_4 = loop.load %z[%a0, %s_1, %a2] : memref<2x6x3xf32>
            attn.yield %in_4 : f32
          }
          loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2] : memref<2x5x3xf32>
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<2x5x3xf32>
}

// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention
// CHECK:       tile.tile (%a0 : 2 = block, %qb : 1 = block, %w : 2 = thread, %g : 8 = thread, %t : 4 = thread)
// CHECK:       } score {
// CHECK-NEXT:  ^bb0(%x_1: f32, %l_1: index, %s_2: index):
// CHECK:         loop.load %u[%l_1, %s_2] : memref<5x6xf32>

// -----

// Declined: the score is no contraction (precomputed scores), nothing to put on the tensor cores.
func.func @main(%scores: memref<2x5x6xf32>, %z: memref<2x6x3xf32>) -> memref<2x5x3xf32> {
  %out = memref.alloc() : memref<2x5x3xf32>
  loop.kernel @k_softmax_dot ins(%scores, %z : memref<2x5x6xf32>, memref<2x6x3xf32>) outs(%out : memref<2x5x3xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 3 {
          %o = attn.softmax_reduce < 6 -> f32 score {
          ^bb0(%s: index):
            %x = loop.load %scores[%a0, %a1, %s] : memref<2x5x6xf32>
            attn.yield %x : f32
          } value {
          ^bb0(%s_1: index):
            %v = loop.load %z[%a0, %s_1, %a2] : memref<2x6x3xf32>
            attn.yield %v : f32
          }
          loop.store %o, %out[%a0, %a1, %a2] : memref<2x5x3xf32>
        }
      }
    }
  }
  func.return %out : memref<2x5x3xf32>
}

// CHECK-LABEL: func.func @main(%scores: memref<2x5x6xf32>
// CHECK:       loop.kernel @k_softmax_dot
// CHECK:         attn.softmax_reduce < 6
// CHECK-NOT:   attn.flash
