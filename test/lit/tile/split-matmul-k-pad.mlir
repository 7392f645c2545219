// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 min-trips=4 tile-elements=16}' | filecheck %s
// split-matmul-k pads its K-outer loop when the splits that divide the trips leave half the GPU
// idle: 34 trips (2 x 17) of one block on a GPU of 16 blocks at once divide only by 2 (17 trips
// each, 17.5 trips modeled); 7 splits of 5 trips (35, one past the end: 5.5) are taken, and the
// loads the added trip reads past K are masked. Below 16 trips one trip may be added: 11 trips
// (prime) as 2 splits of 6. Declined padding: a product that does not vanish past K (an added
// constant), which keeps the split of 2.

func.func @main(%x: memref<4x544xf64>, %w: memref<544x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_pad ins(%x, %w : memref<4x544xf64>, memref<544x4xf64>) outs(%out : memref<4x4xf64>) {
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 34 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x544xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<544x4xf64>
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

// CHECK-LABEL: tile.kernel @k_pad
// CHECK-NEXT:    tile.tile (%ks : 7 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 5 -> f64 {
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ks * 80 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<4x544xf64>
// CHECK-NEXT:          %b = loop.load %w[%ks * 80 + %ko * 16 + %ki, %j] {tile.masked = [0 : i64]} : memref<544x4xf64>
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<4x4xf64>

// -----

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
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 6 -> f64 {
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ks * 96 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<4x176xf64>
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<4x4xf64>

// -----

func.func @main(%x: memref<4x544xf64>, %w: memref<544x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  tile.kernel @k_plus ins(%x, %w : memref<4x544xf64>, memref<544x4xf64>) outs(%out : memref<4x4xf64>) {
    %one = arith.constant 1.0 : f64
    tile.tile (%i : 4 = thread, %j : 4 = thread) {
      %acc = loop.for reduce %ko < 34 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<4x544xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<544x4xf64>
          %p = arith.mulf %a, %b : f64
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

// CHECK-LABEL: tile.kernel @k_plus
// CHECK:         tile.tile (%ks : 2 = block, %i : 4 = thread, %j : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 17 -> f64 {

// -----

// No split that divides the trips beats the unsplit launch, which leaves SMs idle: 10 blocks of
// an 8 x 20 output on 16 at once, 34 trips; 2 splits (17 each) take two rounds and gain nothing.
// 3 splits of 12 trips (36, two past the end) are taken.
func.func @main(%x: memref<8x544xf64>, %w: memref<544x20xf64>) -> memref<8x20xf64> {
  %out = memref.alloc() : memref<8x20xf64>
  tile.kernel @k_part_filled ins(%x, %w : memref<8x544xf64>, memref<544x20xf64>) outs(%out : memref<8x20xf64>) {
    tile.tile (%i : 8 = thread, %j : 20 = thread) {
      %acc = loop.for reduce %ko < 34 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<8x544xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<544x20xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x20xf64>
    }
  }
  func.return %out : memref<8x20xf64>
}

// CHECK-LABEL: tile.kernel @k_part_filled
// CHECK-NEXT:    tile.tile (%ks : 3 = block, %i : 8 = thread, %j : 20 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 12 -> f64 {
// CHECK:             %a = loop.load %x[%i, %ks * 192 + %ko * 16 + %ki] {tile.masked = [1 : i64]} : memref<8x544xf64>
// CHECK:           tile.atomic add %acc, %out[%i, %j] : memref<8x20xf64>
