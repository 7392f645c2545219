// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=8 blocks-per-sm=4 atomic-trips=0.5 min-trips=8 tile-elements=16 sparse-tile=16}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=8 blocks-per-sm=4 atomic-trips=0.5 min-trips=8 tile-elements=16}' | filecheck %s --check-prefix=OFF
// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=8 blocks-per-sm=4 atomic-trips=0.5 min-trips=8 tile-elements=16 sparse-tile=16 splits=2}' | filecheck %s --check-prefix=GIVEN
// split-matmul-k's `sparse-tile`: one tile of 16 elements over 17 K-outer trips (prime) splits
// 2 ways at min-trips 8 (2 x 9 trips, padded to 18), which leaves the launch on fewer blocks than
// its 8 SMs (sparse); splits of down to 2 trips, padded as far as need be, are then tried too,
// and 6 splits of 3 trips (18, one past the end, masked: 3.5 trips modeled against 9.5) are
// taken. The kernel records the count the sparse split displaced (`tile.dense_splits = 2`), which
// the schedule weighs too. Without the option (OFF) the split stays at 2. An explicit `splits=2`
// (GIVEN), which does not divide the 17 trips, pads the loop to 18 as the model's pick would
// (the loads past K masked). Declined: 8 blocks (128 elements at tile-elements 16) split 2 ways
// already fill the 8 SMs, so no shorter splits are tried; and where the accumulated value does
// not vanish past K (a product plus 1), no split of the 17 trips, automatic or given, since
// running the loop past its end would add to the sum.

func.func @main(%x: memref<4x272xf64>, %w: memref<272x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_sparse ins(%x, %w : memref<4x272xf64>, memref<272x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 17 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x272xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<272x4xf64>
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

// CHECK-LABEL: tile.kernel @k_sparse
// CHECK-NEXT:    tile.tile (%ks : 6 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 3 -> f64 {
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ks * 48 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<4x272xf64>
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<4x4xf64>
// CHECK:         } {tile.dense_splits = 2 : i64, tile.zero_init = [0 : i64]}
// OFF-LABEL: tile.kernel @k_sparse
// OFF-NEXT:    tile.tile (%ks : 2 = block, %i : 4 = thread, %j : 4 = thread) {
// OFF-NEXT:      %acc = loop.for reduce %ko < 9 -> f64 {
// OFF-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// OFF-NEXT:          %a = loop.load %x[%i, %ks * 144 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<4x272xf64>
// OFF:           } {tile.zero_init = [0 : i64]}
// GIVEN-LABEL: tile.kernel @k_sparse
// GIVEN-NEXT:    tile.tile (%ks : 2 = block, %i : 4 = thread, %j : 4 = thread) {
// GIVEN-NEXT:      %acc = loop.for reduce %ko < 9 -> f64 {
// GIVEN-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// GIVEN-NEXT:          %a = loop.load %x[%i, %ks * 144 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<4x272xf64>
// GIVEN:           } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<16x272xf64>, %w: memref<272x8xf64>) -> memref<16x8xf64> {
  %out = memref.alloc() : memref<16x8xf64>
  tile.kernel @k_big_tile ins(%x, %w : memref<16x272xf64>, memref<272x8xf64>) outs(%out : memref<16x8xf64>) {
    tile.tile (%i : 16 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 17 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<16x272xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<272x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<16x8xf64>
    }
  }
  func.return %out : memref<16x8xf64>
}

// The tile's 128 elements make 8 blocks of tile-elements=16 (the estimate before blockify-launch):
// 8 x 2 splits = 16 > 8 SMs, not sparse: split 2 ways, nothing recorded.
// CHECK-LABEL: tile.kernel @k_big_tile
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %i : 16 = thread, %j : 8 = thread) {
// CHECK:         } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<4x272xf64>, %w: memref<272x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_not_masked ins(%x, %w : memref<4x272xf64>, memref<272x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 17 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x272xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<272x4xf64>
          %p = arith.mulf %a, %b : f64
          %one = arith.constant 1.0 : f64
          %q = arith.addf %p, %one : f64
          loop.accumulate add %q : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<4x4xf64>
    }
  }
  func.return %out : memref<4x4xf64>
}

// CHECK-LABEL: tile.kernel @k_not_masked
// CHECK-NEXT:    tile.tile (%i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 17 -> f64 {
// GIVEN-LABEL: tile.kernel @k_not_masked
// GIVEN-NEXT:    tile.tile (%i : 4 = thread, %j : 4 = thread) {
// GIVEN-NEXT:      %acc = loop.for reduce %ko < 17 -> f64 {
