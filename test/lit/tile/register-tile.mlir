// RUN: dpl-opt %s --split-input-file --pass-pipeline='register-tile{rows=4 cols=2}' | filecheck %s
// register-tile: the M thread axis of a matmul tile splits into threads x 4 cells, N into
// threads x 2 cells, and every index a becomes a * R + a_c (the seeds' relu(matmul) after
// chunk-matmul-k; a Linear x @ W^T + b whose bias load in the epilogue only uses N). Declined:
// M = 6 is not a multiple of 4; a tile already register-tiled.

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_relu ins(%w, %x, %bias : memref<64x16xf64>, memref<16x64xf64>, memref<64xf64>) outs(%relu : memref<16x16xf64>) {
    %zero = arith.constant 0.000000e+00 : f64
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%a0, %ko * 16 + %ki] : memref<16x64xf64>
          %in = loop.load %bias[%ko * 16 + %ki] : memref<64xf64>
          %s = arith.addf %a, %in : f64
          %in_1 = loop.load %w[%ko * 16 + %ki, %a1] : memref<64x16xf64>
          %p = arith.mulf %s, %in_1 : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      %r = arith.maximumf %acc, %zero : f64
      loop.store %r, %relu[%a0, %a1] : memref<16x16xf64>
    }
  }
  func.return %relu : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_relu
// CHECK:       tile.tile (%a0 : 4 = thread, %a1 : 8 = thread, %a0_c : 4 = cell, %a1_c : 2 = cell) {
// CHECK-NEXT:    %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%a0 * 4 + %a0_c, %ko * 16 + %ki] : memref<16x64xf64>
// CHECK-NEXT:        %in = loop.load %bias[%ko * 16 + %ki] : memref<64xf64>
// CHECK-NEXT:        %s = arith.addf %a, %in : f64
// CHECK-NEXT:        %in_1 = loop.load %w[%ko * 16 + %ki, %a1 * 2 + %a1_c] : memref<64x16xf64>
// CHECK:         loop.store %r, %relu[%a0 * 4 + %a0_c, %a1 * 2 + %a1_c] : memref<16x16xf64>

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
// CHECK:       tile.tile (%a1 : 2 = thread, %a2 : 8 = thread, %a1_c : 4 = cell, %a2_c : 2 = cell) {
// CHECK-NEXT:    %acc = loop.for reduce %r0 < 32 -> f64 {
// CHECK-NEXT:      %in = loop.load %x[0, %a1 * 4 + %a1_c, %r0] : memref<1x8x32xf64>
// CHECK-NEXT:      %in_1 = loop.load %wt[%a2 * 2 + %a2_c, %r0] : memref<16x32xf64>
// CHECK:         %in_3 = loop.load %b[%a2 * 2 + %a2_c] : memref<16xf64>
// CHECK:         loop.store %v, %out[0, %a1 * 4 + %a1_c, %a2 * 2 + %a2_c] : memref<1x8x16xf64>

// -----

func.func @main(%x: memref<6x8xf64>, %w: memref<8x8xf64>) -> memref<6x8xf64> {
  %out = memref.alloc() : memref<6x8xf64>
  tile.kernel @k_six ins(%x, %w : memref<6x8xf64>, memref<8x8xf64>) outs(%out : memref<6x8xf64>) {
    tile.tile (%i : 6 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %x[%i, %k] : memref<6x8xf64>
        %b = loop.load %w[%k, %j] : memref<8x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<6x8xf64>
    }
  }
  func.return %out : memref<6x8xf64>
}

// CHECK-LABEL: tile.kernel @k_six
// CHECK-NEXT:    tile.tile (%i : 6 = thread, %j : 8 = thread) {

// -----

func.func @main(%x: memref<8x8xf64>, %w: memref<8x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_done ins(%x, %w : memref<8x8xf64>, memref<8x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 2 = thread, %j : 4 = thread, %c : 4 = cell, %d : 2 = cell) {
      %acc = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %x[%i * 4 + %c, %k] : memref<8x8xf64>
        %b = loop.load %w[%k, %j * 2 + %d] : memref<8x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i * 4 + %c, %j * 2 + %d] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_done
// CHECK-NEXT:    tile.tile (%i : 2 = thread, %j : 4 = thread, %c : 4 = cell, %d : 2 = cell) {
