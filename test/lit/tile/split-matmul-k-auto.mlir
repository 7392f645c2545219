// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 min-trips=2 tile-elements=16}' | filecheck %s
// The multiprocessors from the module's #kernel.target instead of the option:
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{sms=4},split-matmul-k{blocks-per-sm=4 atomic-trips=0.5 min-trips=2 tile-elements=16}' | filecheck %s
// split-matmul-k with no `splits` (= 0) chooses the split count from its launch model: with B the
// blocks of the launch (its block axes, or, before blockify-launch, ceil(tile elements /
// tile-elements)), T the K-outer trips and C = sms x blocks-per-sm = 16 blocks at once, split s
// takes ceil(B s / C) rounds x T / s trips x (1 + s x atomic-trips / T) (no atomics unsplit); the
// least of s = 1 and the divisors leaving >= min-trips = 2 trips wins, a split only if it saves 10%:
// - 8 x 8 threads, no block axis: B = 64 / 16 = 4, T = 8: s = 4 (1 x 2 x 1.25 = 2.5 of 8).
// - 4 x 4 threads: B = 1, T = 16: s = 8 (1 round of 2 trips x 1.25).
// - a block axis of 2 (B = 2, its threads do not count), T = 16: s = 8 (16 blocks, one round).
// Declined: 16 x 16 threads (B = 16 fill C: s = 2 takes 2 rounds x 2 x 1.25 = 5 > 4); T = 2
// (s = 2 leaves 1 trip < 2).

func.func @main(%x: memref<8x128xf64>, %w: memref<128x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_four ins(%x, %w : memref<8x128xf64>, memref<128x8xf64>) outs(%out : memref<8x8xf64>) {
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

// CHECK-LABEL: tile.kernel @k_four
// CHECK-NEXT:    tile.tile (%ks : 4 = block, %i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ks * 32 + %ko * 16 + %ki] : memref<8x128xf64>
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<8x8xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<4x256xf64>, %w: memref<256x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_largest ins(%x, %w : memref<4x256xf64>, memref<256x4xf64>) outs(%out : memref<4x4xf64>) {
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

// CHECK-LABEL: tile.kernel @k_largest
// CHECK-NEXT:    tile.tile (%ks : 8 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<4x4xf64>

// -----

func.func @main(%x: memref<2x8x256xf64>, %w: memref<256x8xf64>) -> memref<2x8x8xf64> {
  %out = memref.alloc() : memref<2x8x8xf64>
  tile.kernel @k_blocks ins(%x, %w : memref<2x8x256xf64>, memref<256x8xf64>) outs(%out : memref<2x8x8xf64>) {
    tile.tile (%n : 2 = block, %i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 16 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%n, %i, %ko * 16 + %ki] : memref<2x8x256xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<256x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%n, %i, %j] : memref<2x8x8xf64>
    }
  }
  func.return %out : memref<2x8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_blocks
// CHECK-NEXT:    tile.tile (%ks : 8 = block, %n : 2 = block, %i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK:           tile.atomic add %acc, %out[%n, %i, %j] : memref<2x8x8xf64>

// -----

func.func @main(%x: memref<16x64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %out = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_enough ins(%x, %w : memref<16x64xf64>, memref<64x16xf64>) outs(%out : memref<16x16xf64>) {
    tile.tile (%i : 16 = thread, %j : 16 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<16x64xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<64x16xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<16x16xf64>
    }
  }
  func.return %out : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_enough
// CHECK-NEXT:    tile.tile (%i : 16 = thread, %j : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK:           loop.store %acc, %out[%i, %j] : memref<16x16xf64>
// CHECK-NOT:   tile.atomic

// -----

func.func @main(%x: memref<4x32xf64>, %w: memref<32x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_short ins(%x, %w : memref<4x32xf64>, memref<32x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 2 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x32xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<32x4xf64>
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

// CHECK-LABEL: tile.kernel @k_short
// CHECK-NEXT:    tile.tile (%i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK:           loop.store %acc, %out[%i, %j] : memref<4x4xf64>
// CHECK-NOT:   tile.atomic
