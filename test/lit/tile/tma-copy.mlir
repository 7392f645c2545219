// RUN: dpl-opt %s --split-input-file --pass-pipeline='tma-copy{target=sm_90}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tma-copy{target=sm_80}' | filecheck %s --check-prefix=SM80
// Without the option the module's #kernel.target decides; the option overrides it:
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{arch=sm_80},tma-copy' | filecheck %s --check-prefix=SM80
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{arch=sm_80},tma-copy{target=sm_90}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{arch=sm_120},tma-copy' | filecheck %s
// tma-copy: on sm_90 a stage whose slab rows are contiguous, 16-byte aligned runs of the source
// becomes `tma` (kernel.tma_load is a 1-D bulk copy per row). In the seeds' register-tiled
// relu(matmul): bias (a 256-byte run at %a2 * 32 doubles) and w (rows of a1 x cell = 16 doubles,
// the source's contiguous dim) are eligible; x is not, its innermost slab dim (cell) walks rows.
// Declined: an origin 8 bytes off alignment, a padded stage (TMA writes densely), and every
// stage on sm_80.

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_relu_reduce ins(%bias, %x, %w : memref<64xf64>, memref<16x64xf64>, memref<64x16xf64>) outs(%relu : memref<16x16xf64>) {
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

// CHECK-LABEL: tile.kernel @k_relu_reduce
// CHECK:         %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 tma : memref<64xf64> -> memref<2x32xf64, #tile.smem>
// CHECK-NEXT:    %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 8 at 0, a3 : 32 at 1, cell : 2 at 0] buffers 2 at %a2 : memref<16x64xf64> -> memref<2x8x32x2xf64, #tile.smem>
// CHECK-NEXT:    %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 8 at 1, cell : 2 at 1] buffers 2 at %a2 tma : memref<64x16xf64> -> memref<2x32x8x2xf64, #tile.smem>
// CHECK-NEXT:    %part = loop.for reduce %a3 < 32 -> f64 {
// CHECK-NEXT:      %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf64, #tile.smem>

// SM80-LABEL: tile.kernel @k_relu_reduce
// SM80-NOT:     tma

// -----

func.func @main(%x: memref<16x66xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %y = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_ineligible ins(%x, %w : memref<16x66xf64>, memref<64x16xf64>) outs(%y : memref<16x16xf64>) {
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %acc = loop.for reduce %a2 < 2 -> f64 {
        %x_smem = tile.stage %x origin [0, %a2 * 32 + 1] slab [a0 : 16 at 0, a3 : 32 at 1] : memref<16x66xf64> -> memref<16x32xf64, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 16 at 1] pad [0, 1] : memref<64x16xf64> -> memref<32x16xf64, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f64 {
          %in1 = loop.load %x_smem[%a0, %a3] : memref<16x32xf64, #tile.smem>
          %in2 = loop.load %w_smem[%a3, %a1] : memref<32x16xf64, #tile.smem>
          %v1 = arith.mulf %in1, %in2 : f64
          loop.accumulate add %v1 : f64
        }
        loop.accumulate add %part : f64
      }
      loop.store %acc, %y[%a0, %a1] : memref<16x16xf64>
    }
  }
  func.return %y : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_ineligible
// CHECK-NOT:     tma
// CHECK:         %x_smem = tile.stage %x origin [0, %a2 * 32 + 1] slab [a0 : 16 at 0, a3 : 32 at 1] : memref<16x66xf64> -> memref<16x32xf64, #tile.smem>
// CHECK-NEXT:    %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 16 at 1] pad [0, 1] : memref<64x16xf64> -> memref<32x16xf64, #tile.smem>
// CHECK-NOT:     tma
