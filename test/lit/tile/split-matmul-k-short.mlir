// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 short-k-splits=4 tile-elements=16}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 tile-elements=16}' | filecheck %s --check-prefix=OFF
// short-k-splits = 4: a K-outer shorter than 4 x min-trips (8) trips still splits up to 4 ways,
// each split keeping a quarter of its trips (min_split_trips): 11 trips (K 176 of 16) of one
// block on a GPU of 16 blocks at once keep >= 3 per split; 11 is prime, so 2 splits of 6 or 3
// of 4 (12 trips, one past the end, its loads masked): 3 of 4 (4 x 1.125 = 4.5 trips modeled
// against 11). Without short-k-splits (OFF) no split of 11 trips keeps min-trips = 8. Declined:
// a K-outer of one trip (nothing to split).

func.func @main(%x: memref<4x176xf64>, %w: memref<176x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_short ins(%x, %w : memref<4x176xf64>, memref<176x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 11 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x176xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<176x4xf64>
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
// CHECK-NEXT:    tile.tile (%ks : 3 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ks * 64 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<4x176xf64>
// CHECK-NEXT:          %b = loop.load %w[%ks * 64 + %ko * 16 + %ki, %j] {tile.masked = [0 : i64]} : memref<176x4xf64>
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<4x4xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {tile.zero_init = [0 : i64]}
// OFF-LABEL: tile.kernel @k_short
// OFF-NEXT:    tile.tile (%i : 4 = thread, %j : 4 = thread) {
// OFF-NEXT:      %acc = loop.for reduce %ko < 11 -> f64 {
// OFF:           loop.store %acc, %out[%i, %j] : memref<4x4xf64>
// OFF-NOT:       tile.atomic

// -----

func.func @main(%x: memref<4x32xf64>, %w: memref<32x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_one ins(%x, %w : memref<4x32xf64>, memref<32x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 1 -> f64 {
        %acc_k = loop.for reduce %ki < 32 -> f64 {
          %a = loop.load %x[%i, %ko * 32 + %ki] : memref<4x32xf64>
          %b = loop.load %w[%ko * 32 + %ki, %j] : memref<32x4xf64>
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

// CHECK-LABEL: tile.kernel @k_one
// CHECK-NEXT:    tile.tile (%i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 1 -> f64 {
// CHECK:           loop.store %acc, %out[%i, %j] : memref<4x4xf64>
// CHECK-NOT:   tile.atomic
