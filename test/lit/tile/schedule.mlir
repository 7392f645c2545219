// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// RUN: not dpl-opt %s --split-input-file --pass-pipeline='schedule{target=volta}' 2>&1 | filecheck %s --check-prefix=BAD
// The default schedule picks each kernel's tile pipeline by its class: pointwise (threads over
// elements), row reduction (a block per row, shared reduce, x staged), matmul (K chunks,
// register tiles, A/B stages; outputs this small take 2x2 register tiles, 32 x 32 block tiles,
// so their few blocks get more threads), attention (scores are a matmul; softmax + P@V a row
// kernel).

func.func @main(%x: memref<8x64xf64>) -> memref<8x64xf64> {
  %relu = memref.alloc() : memref<8x64xf64>
  loop.kernel @k_relu ins(%x : memref<8x64xf64>) outs(%relu : memref<8x64xf64>) {
    loop.for free %a0 < 8 {
      loop.for free %a1 < 64 {
        %a = loop.load %x[%a0, %a1] : memref<8x64xf64>
        %0 = arith.constant 0.000000e+00 : f64
        %1 = arith.maximumf %a, %0 : f64
        loop.store %1, %relu[%a0, %a1] : memref<8x64xf64>
      }
    }
  }
  func.return %relu : memref<8x64xf64>
}
// -----
func.func @main(%x: memref<4x64xf64>, %p_weight: memref<64xf64>) -> memref<4x64xf64> {
  %rms_norm = memref.alloc() : memref<4x64xf64>
  loop.kernel @k_rms_norm ins(%x, %p_weight : memref<4x64xf64>, memref<64xf64>) outs(%rms_norm : memref<4x64xf64>) {
    %0 = arith.constant 1.562500e-02 : f64
    %1 = arith.constant 2.2204460492503131e-16 : f64
    loop.for free %a0 < 4 {
      %acc = loop.for reduce %r0 < 64 -> f64 {
        %a = loop.load %x[%a0, %r0] : memref<4x64xf64>
        %in = arith.mulf %a, %a : f64
        loop.accumulate add %in : f64
      }
      %2 = arith.mulf %acc, %0 : f64
      %3 = arith.addf %2, %1 : f64
      %in_1 = math.rsqrt %3 : f64
      loop.for free %a1 < 64 {
        %a_1 = loop.load %x[%a0, %a1] : memref<4x64xf64>
        %a_2 = arith.mulf %a_1, %in_1 : f64
        %in_2 = loop.load %p_weight[%a1] : memref<64xf64>
        %4 = arith.mulf %a_2, %in_2 : f64
        loop.store %4, %rms_norm[%a0, %a1] : memref<4x64xf64>
      }
    }
  }
  func.return %rms_norm : memref<4x64xf64>
}
// -----
func.func @main(%x: memref<16x32xf64>, %p_weight: memref<64x32xf64>, %p_bias: memref<64xf64>) -> memref<16x64xf64> {
  %linear = memref.alloc() : memref<16x64xf64>
  loop.kernel @k_linear ins(%p_bias, %x, %p_weight : memref<64xf64>, memref<16x32xf64>, memref<64x32xf64>) outs(%linear : memref<16x64xf64>) {
    loop.for free %a0 < 16 {
      loop.for free %a1 < 64 {
        %acc = loop.for reduce %r0 < 32 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<16x32xf64>
          %in_1 = loop.load %p_weight[%a1, %r0] : memref<64x32xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        %in_3 = loop.load %p_bias[%a1] : memref<64xf64>
        %0 = arith.addf %acc, %in_3 : f64
        loop.store %0, %linear[%a0, %a1] : memref<16x64xf64>
      }
    }
  }
  func.return %linear : memref<16x64xf64>
}
// -----
func.func @main(%x: memref<1x2x8x16xf64>, %y: memref<1x2x8x16xf64>, %z: memref<1x2x8x16xf64>) -> memref<1x2x8x16xf64> {
  %red = memref.alloc() : memref<1x2x8x1x8xf64>
  loop.kernel @k_red ins(%x, %y : memref<1x2x8x16xf64>, memref<1x2x8x16xf64>) outs(%red : memref<1x2x8x1x8xf64>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 8 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 8 {
              %acc = loop.for reduce %r0 < 16 -> f64 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x8x16xf64>
                %in_1 = loop.load %y[%a0, %a1, %a4, %r0] : memref<1x2x8x16xf64>
                %in_2 = arith.mulf %in, %in_1 : f64
                loop.accumulate add %in_2 : f64
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x2x8x1x8xf64>
            }
          }
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x8x16xf64>
  loop.kernel @k_scaled_dot_product_attention ins(%z, %red : memref<1x2x8x16xf64>, memref<1x2x8x1x8xf64>) outs(%scaled_dot_product_attention : memref<1x2x8x16xf64>) {
    %0 = arith.constant 0xfff0000000000000 : f64
    %1 = arith.constant 2.500000e-01 : f64
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 2 {
        loop.for free %a2_1 < 8 {
          %acc_1 = loop.for reduce %r0_1 < 8 -> f64 {
            %in_3 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x2x8x1x8xf64>
            %2 = arith.cmpi ugt, %r0_1, %a2_1 : index
            %3 = arith.mulf %in_3, %1 : f64
            %in_4 = arith.select %2, %0, %3 : f64
            loop.accumulate max %in_4 : f64
          }
          %acc_2 = loop.for reduce %r0_2 < 8 -> f64 {
            %in_5 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x2x8x1x8xf64>
            %4 = arith.cmpi ugt, %r0_2, %a2_1 : index
            %5 = arith.mulf %in_5, %1 : f64
            %a = arith.select %4, %0, %5 : f64
            %6 = arith.subf %a, %acc_1 : f64
            %in_6 = math.exp %6 : f64
            loop.accumulate add %in_6 : f64
          }
          loop.for free %a3_1 < 16 {
            %acc_3 = loop.for reduce %r0_3 < 8 -> f64 {
              %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_3] : memref<1x2x8x1x8xf64>
              %7 = arith.cmpi ugt, %r0_3, %a2_1 : index
              %8 = arith.mulf %in_7, %1 : f64
              %a_1 = arith.select %7, %0, %8 : f64
              %9 = arith.subf %a_1, %acc_1 : f64
              %a_2 = math.exp %9 : f64
              %in_8 = arith.divf %a_2, %acc_2 : f64
              %in_9 = loop.load %z[%a0_1, %a1_1, %r0_3, %a3_1] : memref<1x2x8x16xf64>
              %in_10 = arith.mulf %in_8, %in_9 : f64
              loop.accumulate add %in_10 : f64
            }
            loop.store %acc_3, %scaled_dot_product_attention[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x2x8x16xf64>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x8x16xf64>
}

// CHECK-LABEL: tile.kernel @k_relu
// CHECK:         tile.tile (%a0_b : 2 = block, %a0_t : 4 = thread, %a1 : 64 = thread)
// CHECK-LABEL: tile.kernel @k_rms_norm
// CHECK:         tile.tile (%lane : 64 = thread, %a0 : 4 = block)
// CHECK:         tile.stage %x origin [%a0, 0] slab [r0 : 64 at 1]
// CHECK:         tile.combine add %acc_part across [%lane] warp_shuffle
// CHECK-LABEL: tile.kernel @k_linear
// CHECK:         tile.tile (%a0 : 8 = thread, %a1_b : 2 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK:         tile.stage %x origin [0, 0]
// CHECK:         tile.stage %p_weight origin [%a1_b * 32, 0]
// CHECK:         loop.for reduce %r0 < 32
// CHECK-LABEL: tile.kernel @k_red
// CHECK:         %a2_c : 2 = cell, %a4_c : 2 = cell
// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention
// CHECK:         tile.tile (%a1_1 : 2 = thread, %a2_1 : 8 = thread)

// BAD: dpl-opt: error: bad target 'volta'
