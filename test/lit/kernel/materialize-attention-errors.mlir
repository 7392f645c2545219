// RUN: not dpl-opt %s --pass-pipeline=materialize-attention 2>&1 | filecheck %s
// An attention tile whose query, key and value tiles do not fit in shared memory (head dim 640:
// tile-attention declines past 256) is a one-line error naming the kernel.

func.func @main(%x: memref<1x2x13x640xf32>, %y: memref<1x2x13x640xf32>, %z: memref<1x2x13x640xf32>) -> memref<1x2x13x640xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x640xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x640xf32>, memref<1x2x13x640xf32>, memref<1x2x13x640xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x640xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 1 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 16))> (%qb)
      attn.flash %l0 rows 16 queries 13 keys 13 tile 128 depth 640 x 640 chain 1 precision "3xtf32" causal query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x2x13x640xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x2x13x640xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x2x13x640xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %0 = arith.constant 0xff800000 : f32
        %1 = arith.constant 0.353553385 : f32
        %2 = arith.cmpi ugt, %s_2, %l_1 : index
        %3 = arith.mulf %x_1, %1 : f32
        %a = arith.select %2, %0, %3 : f32
        attn.yield %a : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %scaled_dot_product_attention[%a0, %a1, %l_2, %c_3] : memref<1x2x13x640xf32>
        attn.yield
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x640xf32>
}
// CHECK: materialize-attention: @k_scaled_dot_product_attention: needs {{[0-9]+}} bytes of shared memory, more than {{[0-9]+}}
// CHECK-NOT: Traceback
