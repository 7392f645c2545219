// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify' | filecheck %s
// tileify: the outer free loops of a loop kernel become the thread axes of a tile.tile (the
// extent-1 loop is dropped and its index folds to 0); a kernel with no outer free loop (a full
// sum) gets one axis of extent 1.

func.func @main(%x: memref<1x4x64xf64>, %w: memref<64xf64>) -> memref<1x4x64xf64> {
  %out = memref.alloc() : memref<1x4x64xf64>
  loop.kernel @k_rms_norm ins(%x, %w : memref<1x4x64xf64>, memref<64xf64>) outs(%out : memref<1x4x64xf64>) {
    %c = arith.constant 0.015625 : f64
    %eps = arith.constant 1.0e-06 : f64
    loop.for free %a0 < 1 {
      loop.for free %a1 < 4 {
        %acc = loop.for reduce %r0 < 64 -> f64 {
          %in2 = loop.load %x[%a0, %a1, %r0] : memref<1x4x64xf64>
          %v1 = arith.mulf %in2, %in2 : f64
          loop.accumulate add %v1 : f64
        }
        %v2 = arith.mulf %acc, %c : f64
        %v3 = arith.addf %v2, %eps : f64
        %v4 = math.rsqrt %v3 : f64
        loop.for free %a2 < 64 {
          %in3 = loop.load %x[%a0, %a1, %a2] : memref<1x4x64xf64>
          %in4 = loop.load %w[%a2] : memref<64xf64>
          %v5 = arith.mulf %in3, %v4 : f64
          %v6 = arith.mulf %v5, %in4 : f64
          loop.store %v6, %out[%a0, %a1, %a2] : memref<1x4x64xf64>
        }
      }
    }
  }
  func.return %out : memref<1x4x64xf64>
}

// CHECK-LABEL: tile.kernel @k_rms_norm
// CHECK:       %c = arith.constant
// CHECK:       tile.tile (%a1 : 4 = thread) {
// CHECK-NEXT:    %acc = loop.for reduce %r0 < 64 -> f64 {
// CHECK-NEXT:      %in2 = loop.load %x[0, %a1, %r0] : memref<1x4x64xf64>
// CHECK:         loop.for free %a2 < 64 {
// CHECK:           loop.store %v6, %out[0, %a1, %a2] : memref<1x4x64xf64>
// CHECK-NOT:   loop.kernel

// -----

func.func @main(%x: memref<8x512xf64>, %y: memref<8x512xf64>) -> memref<8x512xf64> {
  %out = memref.alloc() : memref<8x512xf64>
  loop.kernel @k_add ins(%x, %y : memref<8x512xf64>, memref<8x512xf64>) outs(%out : memref<8x512xf64>) {
    loop.for free %i < 8 {
      loop.for free %j < 512 {
        %a = loop.load %x[%i, %j] : memref<8x512xf64>
        %b = loop.load %y[%i, %j] : memref<8x512xf64>
        %c = arith.addf %a, %b : f64
        loop.store %c, %out[%i, %j] : memref<8x512xf64>
      }
    }
  }
  func.return %out : memref<8x512xf64>
}

// CHECK-LABEL: tile.kernel @k_add
// CHECK:       tile.tile (%i : 8 = thread, %j : 512 = thread) {
// CHECK-NEXT:    %a = loop.load %x[%i, %j] : memref<8x512xf64>

// -----

func.func @main(%x: memref<16xf64>) -> memref<f64> {
  %out = memref.alloc() : memref<f64>
  loop.kernel @k_sum ins(%x : memref<16xf64>) outs(%out : memref<f64>) {
    %s = loop.for reduce %r < 16 -> f64 {
      %v = loop.load %x[%r] : memref<16xf64>
      loop.accumulate add %v : f64
    }
    loop.store %s, %out[] : memref<f64>
  }
  func.return %out : memref<f64>
}

// CHECK-LABEL: tile.kernel @k_sum
// CHECK-NEXT:    tile.tile (%one : 1 = thread) {
// CHECK-NEXT:      %s = loop.for reduce %r < 16 -> f64 {

// -----

// A scatter's loop.atomic becomes a tile.atomic; its buffer starts at 0 (tile.zero_init).
func.func @main(%s: memref<8x3xf32>, %i: memref<8xi64>) -> memref<5x3xf32> {
  %o = memref.alloc() : memref<5x3xf32>
  loop.kernel @k_scatter ins(%s, %i : memref<8x3xf32>, memref<8xi64>) outs(%o : memref<5x3xf32>) {
    loop.for free %a0 < 8 {
      %id = loop.load %i[%a0] : memref<8xi64>
      %at = arith.index_cast %id : i64 to index
      loop.for free %a1 < 3 {
        %v = loop.load %s[%a0, %a1] : memref<8x3xf32>
        loop.atomic add %v, %o[%at, %a1] : memref<5x3xf32>
      }
    }
  }
  func.return %o : memref<5x3xf32>
}

// CHECK-LABEL: tile.kernel @k_scatter
// CHECK:       tile.tile (%a0 : 8 = thread, %a1 : 3 = thread) {
// CHECK-NEXT:    %id = loop.load %i[%a0] : memref<8xi64>
// CHECK-NEXT:    %at = arith.index_cast %id : i64 to index
// CHECK-NEXT:    %v = loop.load %s[%a0, %a1] : memref<8x3xf32>
// CHECK-NEXT:    tile.atomic add %v, %o[%at, %a1] : memref<5x3xf32>
// CHECK:       } {tile.zero_init = [0 : i64]}
// CHECK-NOT:   loop.atomic
