// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// A thin N (under schedule_mma.THIN = 32) gets wgmma tiles NARROW_N = 32 wide (128 x 32 and
// 64 x 32), not padded to 64 or more, and the old models weigh them (no wave model covers them).
// - 5867 x 23 x 1024 (A stored [K, M]): wgmma 128 x 32, split 4 (H200, session 29: the 9 sweep
//   programs with N < 32 this changes 1.08 -> 1.24x eager, bmm_tt 32 x 2579x29x1152 0.72 ->
//   1.01x);
// - declined: N = 32 is not thin: its tiles stay 64 wide and the wave models race them (the
//   same tiles there made bmm_tt 16 x 2816x32x109 0.63 -> 0.51x): 4096 x 32 x 1024 on wgmma
//   64 x 64, split 4.

func.func @main(%x: memref<1024x5867xf32>, %y: memref<1024x23xf32>) -> memref<5867x23xf32> {
  %matmul = memref.alloc() : memref<5867x23xf32>
  loop.kernel @k_thin ins(%x, %y : memref<1024x5867xf32>, memref<1024x23xf32>) outs(%matmul : memref<5867x23xf32>) {
    loop.for free %a0 < 5867 {
      loop.for free %a1 < 23 {
        %acc = loop.for reduce %r0 < 1024 -> f32 {
          %in = loop.load %x[%r0, %a0] : memref<1024x5867xf32>
          %in_1 = loop.load %y[%r0, %a1] : memref<1024x23xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<5867x23xf32>
      }
    }
  }
  func.return %matmul : memref<5867x23xf32>
}
// CHECK-LABEL: tile.kernel @k_thin
// CHECK:       tile.schedule = "tileify,pad-matmul{rows=128 cols=32 threads=1 k-tile=32},{{.*}}tensorize-matmul{layout=wgmma bm=128 bn=32 precision=3xtf32{{.*}}}"

// -----

func.func @main(%x: memref<4096x1024xf32>, %y: memref<1024x32xf32>) -> memref<4096x32xf32> {
  %matmul = memref.alloc() : memref<4096x32xf32>
  loop.kernel @k_n32 ins(%x, %y : memref<4096x1024xf32>, memref<1024x32xf32>) outs(%matmul : memref<4096x32xf32>) {
    loop.for free %a0 < 4096 {
      loop.for free %a1 < 32 {
        %acc = loop.for reduce %r0 < 1024 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<4096x1024xf32>
          %in_1 = loop.load %y[%r0, %a1] : memref<1024x32xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<4096x32xf32>
      }
    }
  }
  func.return %matmul : memref<4096x32xf32>
}
// CHECK-LABEL: tile.kernel @k_n32
// CHECK:       tile.schedule = "tileify,pad-matmul{rows=64 cols=64 threads=1 k-tile=32},{{.*}}tensorize-matmul{layout=wgmma bm=64 bn=64 precision=3xtf32{{.*}}}"
