// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// Where padded tensor-core tiles (a ragged shape) win a matmul's model so far, on a grid of at
// most half the SMs over a K of at most 8 trips of 32, the schedule also weighs SIMT 64 x 32
// (4 x 2 registers), unsplit, which it otherwise tries only where the 64 x 64 grid is at most a
// tenth of the SMs.
// - 64 x 3389 x 137 (A transposed): wgmma 128 x 128 is 27 blocks (modeled 17 us), SIMT 64 x 64
//   53 blocks (21 us); 64 x 32 unsplit, 106 blocks, 5 trips, models 15 us and beats it (on the
//   H100, session 11: 9.8 us against wgmma's 17.3). The tensor cores then no longer win, so the
//   estimated 32 x 32 tile is weighed too (schedule.tensor_cores_win): its 212 blocks model 13
//   us and take it.
// - The same at K = 300 (10 trips) is not a short K: 64 x 32 is not tried; the tensor cores'
//   pick (wgmma 64 x 64, 53 blocks: the wave model, schedule-wave.mlir, finds the 27 half-empty
//   blocks of 128 x 128 more than 1.1x slower) then races SIMT 64 x 64 at the wave models
//   (schedule.race_waves), which takes it (H200, session 26: split 2, 12.9 us against the tensor
//   cores' 13.8). Its 53 blocks split 2 ways (106) leave SMs idle, so split-matmul-k's sparse splits
//   take 5 splits of 2 trips (265 blocks), which model 14 us against split 2's 20 (weighed too:
//   `tile.dense_splits`).

func.func @main(%a: memref<137x64xf32>, %b: memref<137x3389xf32>) -> memref<64x3389xf32> {
  %matmul = memref.alloc() : memref<64x3389xf32>
  loop.kernel @k_short ins(%a, %b : memref<137x64xf32>, memref<137x3389xf32>) outs(%matmul : memref<64x3389xf32>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 3389 {
        %acc = loop.for reduce %r0 < 137 -> f32 {
          %in = loop.load %a[%r0, %a0] : memref<137x64xf32>
          %in_1 = loop.load %b[%r0, %a1] : memref<137x3389xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<64x3389xf32>
      }
    }
  }
  func.return %matmul : memref<64x3389xf32>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%a0_b : 2 = block, %a0_t : 16 = thread, %a1_b : 106 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK:       } {tile.schedule = "tileify,pad-matmul{rows=2 cols=2 whole-k=124 sms=132},{{.*}}splits=1},register-tile{rows=2 cols=2},{{.*}}"}

// -----

func.func @main(%a: memref<300x64xf32>, %b: memref<300x3389xf32>) -> memref<64x3389xf32> {
  %matmul = memref.alloc() : memref<64x3389xf32>
  loop.kernel @k_longer ins(%a, %b : memref<300x64xf32>, memref<300x3389xf32>) outs(%matmul : memref<64x3389xf32>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 3389 {
        %acc = loop.for reduce %r0 < 300 -> f32 {
          %in = loop.load %a[%r0, %a0] : memref<300x64xf32>
          %in_1 = loop.load %b[%r0, %a1] : memref<300x3389xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<64x3389xf32>
      }
    }
  }
  func.return %matmul : memref<64x3389xf32>
}
// CHECK-LABEL: tile.kernel @k_longer
// CHECK:         tile.tile (%ks : 5 = block, %a0 : 16 = thread, %a1_b : 53 = block, %a1_t : 16 = thread, %a0_c : 4 = cell, %a1_c : 4 = cell)
// CHECK:       } {tile.dense_splits = 2 : i64, tile.zero_init = [0 : i64], tile.schedule = "tileify,pad-matmul{rows=4 cols=4 {{.*}}"}
