// RUN: dpl-opt %s --split-input-file --pass-pipeline='chunk-matmul-k{k-tile=16}' | filecheck %s
// chunk-matmul-k: the K reduce of a matmul tile (the seeds' relu(matmul(x + bias, w)); a
// Linear x @ W^T + b) becomes a K-outer loop of K/16 trips holding a K-inner loop of 16, indices
// k -> ko * 16 + ki. Declined: K = 24 is not a multiple of 16; a row reduce (no matmul).

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_relu ins(%w, %x, %bias : memref<64x16xf64>, memref<16x64xf64>, memref<64xf64>) outs(%relu : memref<16x16xf64>) {
    %zero = arith.constant 0.000000e+00 : f64
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f64 {
        %a = loop.load %x[%a0, %r0] : memref<16x64xf64>
        %in = loop.load %bias[%r0] : memref<64xf64>
        %s = arith.addf %a, %in : f64
        %in_1 = loop.load %w[%r0, %a1] : memref<64x16xf64>
        %p = arith.mulf %s, %in_1 : f64
        loop.accumulate add %p : f64
      }
      %r = arith.maximumf %acc, %zero : f64
      loop.store %r, %relu[%a0, %a1] : memref<16x16xf64>
    }
  }
  func.return %relu : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_relu
// CHECK:       tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
// CHECK-NEXT:    %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%a0, %ko * 16 + %ki] : memref<16x64xf64>
// CHECK-NEXT:        %in = loop.load %bias[%ko * 16 + %ki] : memref<64xf64>
// CHECK-NEXT:        %s = arith.addf %a, %in : f64
// CHECK-NEXT:        %in_1 = loop.load %w[%ko * 16 + %ki, %a1] : memref<64x16xf64>
// CHECK-NEXT:        %p = arith.mulf %s, %in_1 : f64
// CHECK-NEXT:        loop.accumulate add %p : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.accumulate add %acc_k : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = arith.maximumf %acc, %zero : f64
// CHECK-NEXT:    loop.store %r, %relu[%a0, %a1] : memref<16x16xf64>

// -----

func.func @main(%x: memref<1x8x32xf64>, %wt: memref<16x32xf64>, %b: memref<16xf64>) -> memref<1x8x16xf64> {
  %out = memref.alloc() : memref<1x8x16xf64>
  tile.kernel @k_linear ins(%b, %x, %wt : memref<16xf64>, memref<1x8x32xf64>, memref<16x32xf64>) outs(%out : memref<1x8x16xf64>) {
    tile.tile (%a1 : 8 = thread, %a2 : 16 = thread) {
      %acc = loop.for reduce %r0 < 32 -> f64 {
        %in = loop.load %x[0, %a1, %r0] : memref<1x8x32xf64>
        %in_1 = loop.load %wt[%a2, %r0] : memref<16x32xf64>
        %in_2 = arith.mulf %in, %in_1 : f64
        loop.accumulate add %in_2 : f64
      }
      %in_3 = loop.load %b[%a2] : memref<16xf64>
      %v = arith.addf %acc, %in_3 : f64
      loop.store %v, %out[0, %a1, %a2] : memref<1x8x16xf64>
    }
  }
  func.return %out : memref<1x8x16xf64>
}

// CHECK-LABEL: tile.kernel @k_linear
// CHECK:         %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:        %in = loop.load %x[0, %a1, %ko * 16 + %ki] : memref<1x8x32xf64>
// CHECK-NEXT:        %in_1 = loop.load %wt[%a2, %ko * 16 + %ki] : memref<16x32xf64>

// -----

func.func @main(%x: memref<8x24xf64>, %w: memref<24x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_odd ins(%x, %w : memref<8x24xf64>, memref<24x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %k < 24 -> f64 {
        %a = loop.load %x[%i, %k] : memref<8x24xf64>
        %b = loop.load %w[%k, %j] : memref<24x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_odd
// CHECK-NEXT:    tile.tile (%i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 24 -> f64 {

// -----

func.func @main(%x: memref<4x64xf64>) -> memref<4xf64> {
  %out = memref.alloc() : memref<4xf64>
  tile.kernel @k_rowsum ins(%x : memref<4x64xf64>) outs(%out : memref<4xf64>) {
    tile.tile (%i : 4 = thread) {
      %acc = loop.for reduce %k < 64 -> f64 {
        %a = loop.load %x[%i, %k] : memref<4x64xf64>
        loop.accumulate add %a : f64
      }
      loop.store %acc, %out[%i] : memref<4xf64>
    }
  }
  func.return %out : memref<4xf64>
}

// CHECK-LABEL: tile.kernel @k_rowsum
// CHECK-NEXT:    tile.tile (%i : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 64 -> f64 {

// -----

func.func @main(%x: memref<8x16xf64>, %w: memref<16x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_one_tile ins(%x, %w : memref<8x16xf64>, memref<16x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %k < 16 -> f64 {
        %a = loop.load %x[%i, %k] : memref<8x16xf64>
        %b = loop.load %w[%k, %j] : memref<16x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// K = 16 is one k-tile: declined, no K-outer loop of one trip.
// CHECK-LABEL: tile.kernel @k_one_tile
// CHECK:         %acc = loop.for reduce %k < 16 -> f64 {
// CHECK-NEXT:      %a = loop.load %x[%i, %k] : memref<8x16xf64>
