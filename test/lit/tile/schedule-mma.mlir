// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// The schedule's tensor-core candidates (schedule_mma.py) next to the SIMT ones, the least
// modeled time kept (f32, sm_90, 132 SMs):
// - 128 x 2048 x 2048 (a projection at seq 128): the 16 blocks of 128 x 128 would leave 116 SMs
//   idle, so split-matmul-k spreads K over 8 (wgmma 128 x 128, split 8: 15 us against 100 us
//   unsplit and SIMT's 34 us);
// - 2048 x 2048 x 512: 256 blocks of 128 x 128 fill the GPU, no split (128 x 256 is no
//   candidate: its accumulators and promoted chain fragment would spill);
// - declined: a product whose factors mix M and N (x[i, k] * w[j, k] * s[i, j], 128 x 256 x 128) is not an MMA
//   (tensorize-matmul declines it on a copy), so the SIMT schedule takes it (32 x 32 tiles: the
//   8 blocks of 64 x 64 would leave 124 SMs idle).

func.func @main(%x: memref<128x2048xf32>, %w: memref<2048x2048xf32>) -> memref<128x2048xf32> {
  %y = memref.alloc() : memref<128x2048xf32>
  loop.kernel @k_short ins(%x, %w : memref<128x2048xf32>, memref<2048x2048xf32>) outs(%y : memref<128x2048xf32>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 2048 {
        %acc = loop.for reduce %r0 < 2048 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<128x2048xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<2048x2048xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x2048xf32>
      }
    }
  }
  func.return %y : memref<128x2048xf32>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%ks : 8 = block, %bm : 1 = block, %bn : 16 = block, %wg : 2 = thread
// CHECK:         mma.dot {{.*}} precision "3xtf32" layout wgmma promote 4 : memref<128x32xf32, #tile.smem>, memref<128x32xf32, #tile.smem>

// -----

func.func @main(%x: memref<2048x512xf32>, %w: memref<2048x512xf32>) -> memref<2048x2048xf32> {
  %y = memref.alloc() : memref<2048x2048xf32>
  loop.kernel @k_big ins(%x, %w : memref<2048x512xf32>, memref<2048x512xf32>) outs(%y : memref<2048x2048xf32>) {
    loop.for free %a0 < 2048 {
      loop.for free %a1 < 2048 {
        %acc = loop.for reduce %r0 < 512 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<2048x512xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<2048x512xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<2048x2048xf32>
      }
    }
  }
  func.return %y : memref<2048x2048xf32>
}
// CHECK-LABEL: tile.kernel @k_big
// CHECK:         tile.tile (%bm : 16 = block, %bn : 16 = block, %wg : 2 = thread
// CHECK:         mma.dot {{.*}} memref<128x32xf32, #tile.smem>, memref<128x32xf32, #tile.smem>

// -----

func.func @main(%x: memref<128x128xf32>, %w: memref<256x128xf32>, %s: memref<128x256xf32>) -> memref<128x256xf32> {
  %y = memref.alloc() : memref<128x256xf32>
  loop.kernel @k_mixed ins(%x, %w, %s : memref<128x128xf32>, memref<256x128xf32>, memref<128x256xf32>) outs(%y : memref<128x256xf32>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 256 {
        %acc = loop.for reduce %r0 < 128 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<128x128xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<256x128xf32>
          %sv = loop.load %s[%a0, %a1] : memref<128x256xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          %in_3 = arith.mulf %in_2, %sv : f32
          loop.accumulate add %in_3 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x256xf32>
      }
    }
  }
  func.return %y : memref<128x256xf32>
}
// CHECK-LABEL: tile.kernel @k_mixed
// CHECK-NOT:     mma.dot
// CHECK:         tile.tile (%a0_b : 4 = block, %a0_t : 16 = thread, %a1_b : 8 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK-NOT:     mma.dot
