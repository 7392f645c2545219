// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 contention-trips=1.0 min-trips=2 tile-elements=16}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 contention-trips=8.0 min-trips=2 tile-elements=16}' | filecheck %s --check-prefix=HIGH
// split-matmul-k's `contention-trips`: per round, the cost of each further split of a tile that
// adds into the same outputs at the same time (about C / B splits of each tile share a round of
// C = 16 blocks, at most s). split-matmul-k-auto.mlir has the same kernels without it (s = 8 and 4):
// - 4 x 4 threads (B = 1), T = 16: s = 8 would add 7 trips (8 splits at once: 2 + 0.5 + 7 = 9.5),
//   s = 4 costs 4 + 0.5 + 3 = 7.5 of the unsplit 16; with contention-trips = 8, s = 2 costs
//   8 + 0.5 + 8 = 16.5 > 0.9 x 16: declined.
// - 8 x 8 threads (B = 4), T = 8: s = 2 (4 + 0.5 + 1 = 5.5, ties s = 4's 2 + 0.5 + 3: the smaller
//   split wins); with contention-trips = 8 declined (4.5 + 8 > 8).

func.func @main(%x: memref<4x256xf64>, %w: memref<256x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_one_tile ins(%x, %w : memref<4x256xf64>, memref<256x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 16 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x256xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<256x4xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<4x4xf64>
    }
  }
  func.return %out : memref<4x4xf64>
}

// CHECK-LABEL: tile.kernel @k_one_tile
// CHECK-NEXT:    tile.tile (%ks : 4 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<4x4xf64>

// HIGH-LABEL: tile.kernel @k_one_tile
// HIGH-NEXT:    tile.tile (%i : 4 = thread, %j : 4 = thread) {
// HIGH-NEXT:      %acc = loop.for reduce %ko < 16 -> f64 {
// HIGH:           loop.store %acc, %out[%i, %j] : memref<4x4xf64>

// -----

func.func @main(%x: memref<8x128xf64>, %w: memref<128x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_four_tiles ins(%x, %w : memref<8x128xf64>, memref<128x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 8 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<8x128xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<128x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_four_tiles
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<8x8xf64>

// HIGH-LABEL: tile.kernel @k_four_tiles
// HIGH-NEXT:    tile.tile (%i : 8 = thread, %j : 8 = thread) {
// HIGH:           loop.store %acc, %out[%i, %j] : memref<8x8xf64>
