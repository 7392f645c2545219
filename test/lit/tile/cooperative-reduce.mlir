// RUN: dpl-opt %s --split-input-file --pass-pipeline='cooperative-reduce' | filecheck %s
// cooperative-reduce: the RMSNorm row sum, which no lane depends on, is shared by the lanes: a
// strided reduce from the lane plus a combine seen by all of them, by warp shuffles for 16
// lanes (a power of two), by a shared-memory tree for 12. A reduce that depends on the only
// thread axis (each thread owns a row) is declined, and so is one in a flat tile of more threads
// than a block (3 x 13 x 32: the threads along %a0 that would share it are in other blocks).

func.func @main(%x: memref<1x4x64xf64>, %w: memref<64xf64>) -> memref<1x4x64xf64> {
  %out = memref.alloc() : memref<1x4x64xf64>
  tile.kernel @k_rms_norm ins(%x, %w : memref<1x4x64xf64>, memref<64xf64>) outs(%out : memref<1x4x64xf64>) {
    %c = arith.constant 1.562500e-02 : f64
    %eps = arith.constant 1.000000e-06 : f64
    tile.tile (%lane : 16 = thread, %a1 : 4 = block) {
      %acc = loop.for reduce %r0 < 64 -> f64 {
        %in2 = loop.load %x[0, %a1, %r0] : memref<1x4x64xf64>
        %v1 = arith.mulf %in2, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      %v2 = arith.mulf %acc, %c : f64
      %v3 = arith.addf %v2, %eps : f64
      %v4 = math.rsqrt %v3 : f64
      tile.strided_for free %a2 = %lane to 64 step 16 {
        %in3 = loop.load %x[0, %a1, %a2] : memref<1x4x64xf64>
        %in4 = loop.load %w[%a2] : memref<64xf64>
        %v5 = arith.mulf %in3, %v4 : f64
        %v6 = arith.mulf %v5, %in4 : f64
        loop.store %v6, %out[0, %a1, %a2] : memref<1x4x64xf64>
      }
    }
  }
  func.return %out : memref<1x4x64xf64>
}


// CHECK-LABEL: tile.kernel @k_rms_norm
// CHECK:       tile.tile (%lane : 16 = thread, %a1 : 4 = block) {
// CHECK-NEXT:    %acc_part = tile.strided_for reduce %r0 = %lane to 64 step 16 -> f64 {
// CHECK-NEXT:      %in2 = loop.load %x[0, %a1, %r0] : memref<1x4x64xf64>
// CHECK:           loop.accumulate add %v1 : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %acc = tile.combine add %acc_part across [%lane] warp_shuffle : f64
// CHECK-NEXT:    %v2 = arith.mulf %acc, %c : f64

// -----

func.func @main(%x: memref<1x4x64xf64>, %w: memref<64xf64>) -> memref<1x4x64xf64> {
  %out = memref.alloc() : memref<1x4x64xf64>
  tile.kernel @k_rows ins(%x, %w : memref<1x4x64xf64>, memref<64xf64>) outs(%out : memref<1x4x64xf64>) {
    %c = arith.constant 1.562500e-02 : f64
    %eps = arith.constant 1.000000e-06 : f64
    tile.tile (%a1 : 4 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f64 {
        %in2 = loop.load %x[0, %a1, %r0] : memref<1x4x64xf64>
        %v1 = arith.mulf %in2, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      %v2 = arith.mulf %acc, %c : f64
      %v3 = arith.addf %v2, %eps : f64
      %v4 = math.rsqrt %v3 : f64
      loop.for free %a2 < 64 {
        %in3 = loop.load %x[0, %a1, %a2] : memref<1x4x64xf64>
        %in4 = loop.load %w[%a2] : memref<64xf64>
        %v5 = arith.mulf %in3, %v4 : f64
        %v6 = arith.mulf %v5, %in4 : f64
        loop.store %v6, %out[0, %a1, %a2] : memref<1x4x64xf64>
      }
    }
  }
  func.return %out : memref<1x4x64xf64>
}


// CHECK-LABEL: tile.kernel @k_rows
// CHECK:       tile.tile (%a1 : 4 = thread) {
// CHECK-NEXT:    %acc = loop.for reduce %r0 < 64 -> f64 {
// CHECK-NOT:   tile.combine

// -----

func.func @main(%x: memref<4x48xf64>) -> memref<4xf64> {
  %out = memref.alloc() : memref<4xf64>
  tile.kernel @k_sum12 ins(%x : memref<4x48xf64>) outs(%out : memref<4xf64>) {
    tile.tile (%lane : 12 = thread, %a0 : 4 = block) {
      %acc = loop.for reduce %r0 < 48 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<4x48xf64>
        loop.accumulate add %v : f64
      }
      loop.store %acc, %out[%a0] : memref<4xf64>
    }
  }
  func.return %out : memref<4xf64>
}

// CHECK-LABEL: tile.kernel @k_sum12
// CHECK:         %acc_part = tile.strided_for reduce %r0 = %lane to 48 step 12 -> f64 {
// CHECK:         %acc = tile.combine add %acc_part across [%lane] tree : f64

// -----

func.func @main(%x: memref<3x32x13xf64>) -> memref<3x13x32xf64> {
  %out = memref.alloc() : memref<3x13x32xf64>
  tile.kernel @k_flat ins(%x : memref<3x32x13xf64>) outs(%out : memref<3x13x32xf64>) {
    tile.tile (%a0 : 3 = thread, %a1 : 13 = thread, %a2 : 32 = thread) {
      %acc = loop.for reduce %r0 < 3 -> f64 {
        %v = loop.load %x[%r0, %a2, %a1] : memref<3x32x13xf64>
        loop.accumulate max %v : f64
      }
      %in = loop.load %x[%a0, %a2, %a1] : memref<3x32x13xf64>
      %y = arith.subf %in, %acc : f64
      loop.store %y, %out[%a0, %a1, %a2] : memref<3x13x32xf64>
    }
  }
  func.return %out : memref<3x13x32xf64>
}

// CHECK-LABEL: tile.kernel @k_flat
// CHECK:         %acc = loop.for reduce %r0 < 3 -> f64 {
// CHECK-NOT:     tile.combine
