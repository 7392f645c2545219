// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// Which tensor-core tile a matmul gets (f32, sm_90, 132 SMs): the old model (schedule_mma.mma_us)
// picks, unless the wave model (schedule_mma.wave_us, fitted on every wgmma candidate of 34 sweep
// matmuls timed on the H200) finds another tile WAVE_MARGIN (1.1) times faster.
// - 128 x 1152 x 704 (y = x @ w.T): the old model ties 128 x 128 split 2 (18 blocks, each alone
//   on an SM) with 64 x 64 split 2 (72 blocks) at 22 us; the wave model puts 128 x 128 at 1.6x
//   the 64 x 64 time (a lone 128 x 128 block's fixed 7.7 us and 1.36 us steps), so 64 x 64, split
//   2 (measured 17.5 against 28.1 us);
// - declined: 115 x 4567 x 827, w stored [K, N] (padded; rows of 827 and 4567 floats read one at
//   a time): the wave model's pick is within its margin of the old one's, so 128 x 128, split 2
//   stays (measured 41.3 us against 53.8 for the wave model's 64 x 64).

func.func @main(%x: memref<128x704xf32>, %w: memref<1152x704xf32>) -> memref<128x1152xf32> {
  %y = memref.alloc() : memref<128x1152xf32>
  loop.kernel @k_wave ins(%x, %w : memref<128x704xf32>, memref<1152x704xf32>) outs(%y : memref<128x1152xf32>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 1152 {
        %acc = loop.for reduce %r0 < 704 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<128x704xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<1152x704xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x1152xf32>
      }
    }
  }
  func.return %y : memref<128x1152xf32>
}
// CHECK-LABEL: tile.kernel @k_wave
// CHECK:         tile.tile (%ks : 2 = block, %bm : 2 = block, %bn : 18 = block, %wg : 1 = thread
// CHECK:         mma.dot {{.*}} precision "3xtf32" layout wgmma promote 4 : memref<64x32xf32, #tile.smem>, memref<64x32xf32, #tile.smem>

// -----

func.func @main(%x: memref<115x827xf32>, %w: memref<827x4567xf32>) -> memref<115x4567xf32> {
  %y = memref.alloc() : memref<115x4567xf32>
  loop.kernel @k_kept ins(%x, %w : memref<115x827xf32>, memref<827x4567xf32>) outs(%y : memref<115x4567xf32>) {
    loop.for free %a0 < 115 {
      loop.for free %a1 < 4567 {
        %acc = loop.for reduce %r0 < 827 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<115x827xf32>
          %in_1 = loop.load %w[%r0, %a1] : memref<827x4567xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<115x4567xf32>
      }
    }
  }
  func.return %y : memref<115x4567xf32>
}
// CHECK-LABEL: tile.kernel @k_kept
// CHECK:         tile.tile (%ks : 2 = block, %bm : 1 = block, %bn : 36 = block, %wg : 2 = thread
// CHECK:         mma.dot {{.*}} precision "3xtf32" layout wgmma promote 4 : memref<128x32xf32, #tile.smem>, memref<128x32xf32, #tile.smem>
