// RUN: dpl-opt %s --split-input-file --pass-pipeline='pipeline-k-outer{depth=2}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='pipeline-k-outer{depth=3}' | filecheck %s --check-prefix=DEPTH3
// pipeline-k-outer: the seeds' relu(matmul) K-tile loop %a2 fills cp.async stages of 2 buffers
// along it, so it gets {tile.pipeline = 2}; the inner K loop fills nothing and is declined. With
// depth 3 the 2-buffer stages are too few and nothing is marked. Declined too: a K loop whose
// buffered stages are synchronous.

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_async ins(%bias, %x, %w : memref<64xf64>, memref<16x64xf64>, memref<64x16xf64>) outs(%relu : memref<16x16xf64>) {
    %zero = arith.constant 0.0 : f64
    tile.tile (%a0 : 8 = thread, %a1 : 8 = thread, %c0 : 2 = cell, %c1 : 2 = cell) {
      %acc = loop.for reduce %a2 < 2 -> f64 {
        %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 async : memref<64xf64> -> memref<2x32xf64, #tile.smem>
        %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 8 at 0, a3 : 32 at 1, cell : 2 at 0] buffers 2 at %a2 async : memref<16x64xf64> -> memref<2x8x32x2xf64, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 8 at 1, cell : 2 at 1] buffers 2 at %a2 async : memref<64x16xf64> -> memref<2x32x8x2xf64, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f64 {
          %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf64, #tile.smem>
          %in1 = loop.load %x_smem[%a2 mod 2, %a0, %a3, %c0] : memref<2x8x32x2xf64, #tile.smem>
          %in3 = loop.load %w_smem[%a2 mod 2, %a3, %a1, %c1] : memref<2x32x8x2xf64, #tile.smem>
          %v0 = arith.addf %in1, %in0 : f64
          %v1 = arith.mulf %v0, %in3 : f64
          loop.accumulate add %v1 : f64
        }
        loop.accumulate add %part : f64
      }
      %v2 = arith.maximumf %acc, %zero : f64
      loop.store %v2, %relu[%a0 * 2 + %c0, %a1 * 2 + %c1] : memref<16x16xf64>
    }
  }
  func.return %relu : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_async
// CHECK:         %acc = loop.for reduce %a2 < 2 -> f64 {
// CHECK:           %part = loop.for reduce %a3 < 32 -> f64 {
// CHECK:             loop.accumulate add %v1 : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.accumulate add %part : f64
// CHECK-NEXT:    } {tile.pipeline = 2 : i64}

// DEPTH3-LABEL: tile.kernel @k_async
// DEPTH3-NOT:     tile.pipeline

// -----

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_sync ins(%bias, %x, %w : memref<64xf64>, memref<16x64xf64>, memref<64x16xf64>) outs(%relu : memref<16x16xf64>) {
    %zero = arith.constant 0.0 : f64
    tile.tile (%a0 : 8 = thread, %a1 : 8 = thread, %c0 : 2 = cell, %c1 : 2 = cell) {
      %acc = loop.for reduce %a2 < 2 -> f64 {
        %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 : memref<64xf64> -> memref<2x32xf64, #tile.smem>
        %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 8 at 0, a3 : 32 at 1, cell : 2 at 0] buffers 2 at %a2 : memref<16x64xf64> -> memref<2x8x32x2xf64, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 8 at 1, cell : 2 at 1] buffers 2 at %a2 : memref<64x16xf64> -> memref<2x32x8x2xf64, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f64 {
          %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf64, #tile.smem>
          %in1 = loop.load %x_smem[%a2 mod 2, %a0, %a3, %c0] : memref<2x8x32x2xf64, #tile.smem>
          %in3 = loop.load %w_smem[%a2 mod 2, %a3, %a1, %c1] : memref<2x32x8x2xf64, #tile.smem>
          %v0 = arith.addf %in1, %in0 : f64
          %v1 = arith.mulf %v0, %in3 : f64
          loop.accumulate add %v1 : f64
        }
        loop.accumulate add %part : f64
      }
      %v2 = arith.maximumf %acc, %zero : f64
      loop.store %v2, %relu[%a0 * 2 + %c0, %a1 * 2 + %c1] : memref<16x16xf64>
    }
  }
  func.return %relu : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_sync
// CHECK-NOT:     tile.pipeline
