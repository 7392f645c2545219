// RUN: dpl-opt %s --split-input-file --pass-pipeline='double-buffer{buffers=2}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='double-buffer{buffers=3}' | filecheck %s --check-prefix=THREE
// double-buffer: relu(matmul(x + bias, w)) with K = 64 in two K tiles of 32 (the seeds' shape):
// the bias, x and w stages are refilled on every iteration of the K-outer loop %a2, so each gets
// `buffers 2 at %a2` (a leading dim of 2) and its loads index `%a2 mod 2` first. Declined: a
// stage outside any loop (w, filled once per block) and a stage inside the K loop whose origin
// does not depend on it (bias staged whole).

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_relu_matmul ins(%bias, %x, %w : memref<64xf64>, memref<16x64xf64>, memref<64x16xf64>) outs(%relu : memref<16x16xf64>) {
    %zero = arith.constant 0.0 : f64
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %acc = loop.for reduce %a2 < 2 -> f64 {
        %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] : memref<64xf64> -> memref<32xf64, #tile.smem>
        %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 16 at 0, a3 : 32 at 1] : memref<16x64xf64> -> memref<16x32xf64, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 16 at 1] : memref<64x16xf64> -> memref<32x16xf64, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f64 {
          %in0 = loop.load %bias_smem[%a3] : memref<32xf64, #tile.smem>
          %in1 = loop.load %x_smem[%a0, %a3] : memref<16x32xf64, #tile.smem>
          %in2 = loop.load %w_smem[%a3, %a1] : memref<32x16xf64, #tile.smem>
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
// CHECK:         %acc = loop.for reduce %a2 < 2 -> f64 {
// CHECK-NEXT:      %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 : memref<64xf64> -> memref<2x32xf64, #tile.smem>
// CHECK-NEXT:      %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 16 at 0, a3 : 32 at 1] buffers 2 at %a2 : memref<16x64xf64> -> memref<2x16x32xf64, #tile.smem>
// CHECK-NEXT:      %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 16 at 1] buffers 2 at %a2 : memref<64x16xf64> -> memref<2x32x16xf64, #tile.smem>
// CHECK-NEXT:      %part = loop.for reduce %a3 < 32 -> f64 {
// CHECK-NEXT:        %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf64, #tile.smem>
// CHECK-NEXT:        %in1 = loop.load %x_smem[%a2 mod 2, %a0, %a3] : memref<2x16x32xf64, #tile.smem>
// CHECK-NEXT:        %in2 = loop.load %w_smem[%a2 mod 2, %a3, %a1] : memref<2x32x16xf64, #tile.smem>

// THREE-LABEL: tile.kernel @k_relu_matmul
// THREE:         %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 16 at 0, a3 : 32 at 1] buffers 3 at %a2 : memref<16x64xf64> -> memref<3x16x32xf64, #tile.smem>
// THREE:         %in1 = loop.load %x_smem[%a2 mod 3, %a0, %a3] : memref<3x16x32xf64, #tile.smem>

// -----

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %y = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_declined ins(%bias, %x, %w : memref<64xf64>, memref<16x64xf64>, memref<64x16xf64>) outs(%y : memref<16x16xf64>) {
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %w_smem = tile.stage %w origin [0, 0] slab [k : 64 at 0, a1 : 16 at 1] : memref<64x16xf64> -> memref<64x16xf64, #tile.smem>
      %acc = loop.for reduce %a2 < 2 -> f64 {
        %bias_smem = tile.stage %bias origin [0] slab [k : 64 at 0] : memref<64xf64> -> memref<64xf64, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f64 {
          %in0 = loop.load %bias_smem[%a2 * 32 + %a3] : memref<64xf64, #tile.smem>
          %in1 = loop.load %x[%a0, %a2 * 32 + %a3] : memref<16x64xf64>
          %in2 = loop.load %w_smem[%a2 * 32 + %a3, %a1] : memref<64x16xf64, #tile.smem>
          %v0 = arith.addf %in1, %in0 : f64
          %v1 = arith.mulf %v0, %in2 : f64
          loop.accumulate add %v1 : f64
        }
        loop.accumulate add %part : f64
      }
      loop.store %acc, %y[%a0, %a1] : memref<16x16xf64>
    }
  }
  func.return %y : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_declined
// CHECK-NOT:     buffers
// CHECK:         %w_smem = tile.stage %w origin [0, 0] slab [k : 64 at 0, a1 : 16 at 1] : memref<64x16xf64> -> memref<64x16xf64, #tile.smem>
// CHECK:         %bias_smem = tile.stage %bias origin [0] slab [k : 64 at 0] : memref<64xf64> -> memref<64xf64, #tile.smem>
// CHECK:         %in0 = loop.load %bias_smem[%a2 * 32 + %a3] : memref<64xf64, #tile.smem>
// CHECK-NOT:     buffers
