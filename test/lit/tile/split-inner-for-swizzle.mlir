// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-inner-for-swizzle{swizzle=128}' | filecheck %s
// split-inner-for-swizzle: the double-buffered relu(matmul) after tma-copy (f64). x's slab rows are
// 32 doubles = 256 bytes, two 128-byte swizzle spans: the row splits into a3_o : 2 (placed before
// the a0 rows, so the stage is two 16 x 16 boxes) and a3 : 16, and its loads read
// [%a3 floordiv 16, %a0, %a3 mod 16] after the slot index. w's rows are exactly 128 bytes: only
// `swizzle 128`. Declined: bias (one row, nothing to swizzle), a tma stage of 64-byte rows
// (narrower than the span) and a synchronous stage.

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_relu_matmul ins(%bias, %x, %w : memref<64xf64>, memref<16x64xf64>, memref<64x16xf64>) outs(%relu : memref<16x16xf64>) {
    %zero = arith.constant 0.000000e+00 : f64
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %acc = loop.for reduce %a2 < 2 -> f64 {
        %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 tma : memref<64xf64> -> memref<2x32xf64, #tile.smem>
        %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 16 at 0, a3 : 32 at 1] buffers 2 at %a2 tma : memref<16x64xf64> -> memref<2x16x32xf64, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 16 at 1] buffers 2 at %a2 tma : memref<64x16xf64> -> memref<2x32x16xf64, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f64 {
          %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf64, #tile.smem>
          %in1 = loop.load %x_smem[%a2 mod 2, %a0, %a3] : memref<2x16x32xf64, #tile.smem>
          %in2 = loop.load %w_smem[%a2 mod 2, %a3, %a1] : memref<2x32x16xf64, #tile.smem>
          %v0 = arith.addf %in1, %in0 : f64
          %v1 = arith.mulf %v0, %in2 : f64
          loop.accumulate add %v1 : f64
        }
        loop.accumulate add %part : f64
      }
      %v2 = arith.maximumf %acc, %zero : f64
      loop.store %v2, %relu[%a0, %a1] : memref<16x16xf64>
    }
  }
  func.return %relu : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_relu_matmul
// CHECK:         %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 tma : memref<64xf64> -> memref<2x32xf64, #tile.smem>
// CHECK-NEXT:    %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a3_o : 2 at 1, a0 : 16 at 0, a3 : 16 at 1] buffers 2 at %a2 tma swizzle 128 : memref<16x64xf64> -> memref<2x2x16x16xf64, #tile.smem>
// CHECK-NEXT:    %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 16 at 1] buffers 2 at %a2 tma swizzle 128 : memref<64x16xf64> -> memref<2x32x16xf64, #tile.smem>
// CHECK-NEXT:    %part = loop.for reduce %a3 < 32 -> f64 {
// CHECK-NEXT:      %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf64, #tile.smem>
// CHECK-NEXT:      %in1 = loop.load %x_smem[%a2 mod 2, %a3 floordiv 16, %a0, %a3 mod 16] : memref<2x2x16x16xf64, #tile.smem>
// CHECK-NEXT:      %in2 = loop.load %w_smem[%a2 mod 2, %a3, %a1] : memref<2x32x16xf64, #tile.smem>

// -----

func.func @main(%x: memref<16x8xf64>, %w: memref<8x16xf64>) -> memref<16x16xf64> {
  %y = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_declined ins(%x, %w : memref<16x8xf64>, memref<8x16xf64>) outs(%y : memref<16x16xf64>) {
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %x_smem = tile.stage %x origin [0, 0] slab [a0 : 16 at 0, k : 8 at 1] tma : memref<16x8xf64> -> memref<16x8xf64, #tile.smem>
      %w_smem = tile.stage %w origin [0, 0] slab [k : 8 at 0, a1 : 16 at 1] : memref<8x16xf64> -> memref<8x16xf64, #tile.smem>
      %acc = loop.for reduce %k < 8 -> f64 {
        %in1 = loop.load %x_smem[%a0, %k] : memref<16x8xf64, #tile.smem>
        %in2 = loop.load %w_smem[%k, %a1] : memref<8x16xf64, #tile.smem>
        %v1 = arith.mulf %in1, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      loop.store %acc, %y[%a0, %a1] : memref<16x16xf64>
    }
  }
  func.return %y : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_declined
// CHECK-NOT:     swizzle
// CHECK:         %x_smem = tile.stage %x origin [0, 0] slab [a0 : 16 at 0, k : 8 at 1] tma : memref<16x8xf64> -> memref<16x8xf64, #tile.smem>
// CHECK-NEXT:    %w_smem = tile.stage %w origin [0, 0] slab [k : 8 at 0, a1 : 16 at 1] : memref<8x16xf64> -> memref<8x16xf64, #tile.smem>
// CHECK-NOT:     swizzle
