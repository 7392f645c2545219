// RUN: dpl-opt %s --split-input-file --pass-pipeline='mark-unroll{max-extent=4}' | filecheck %s
// mark-unroll: innermost loops of at most 4 trips get {tile.unroll}: the 4-trip strided loops of
// the RMSNorm tile and a 4-long loop.for; a 64-long loop.for (declined) and the loop holding the
// unrolled one stay rolled.

func.func @main(%x: memref<1x4x64xf64>, %w: memref<64xf64>) -> memref<1x4x64xf64> {
  %out = memref.alloc() : memref<1x4x64xf64>
  tile.kernel @k_rms_norm ins(%x, %w : memref<1x4x64xf64>, memref<64xf64>) outs(%out : memref<1x4x64xf64>) {
    %c = arith.constant 1.562500e-02 : f64
    %eps = arith.constant 1.000000e-06 : f64
    tile.tile (%lane : 16 = thread, %a1 : 4 = block) {
      %acc_part = tile.strided_for reduce %r0 = %lane to 64 step 16 -> f64 {
        %in2 = loop.load %x[0, %a1, %r0] : memref<1x4x64xf64>
        %v1 = arith.mulf %in2, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      %acc = tile.combine add %acc_part across [%lane] tree : f64
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
// CHECK:         %acc_part = tile.strided_for reduce %r0 = %lane to 64 step 16 -> f64 {
// CHECK:         } {tile.unroll}
// CHECK:         tile.strided_for free %a2 = %lane to 64 step 16 {
// CHECK:         } {tile.unroll}

// -----

func.func @main(%x: memref<8x64x4xf64>) -> memref<8xf64> {
  %out = memref.alloc() : memref<8xf64>
  tile.kernel @k_nested ins(%x : memref<8x64x4xf64>) outs(%out : memref<8xf64>) {
    tile.tile (%i : 8 = thread) {
      %s = loop.for reduce %k < 64 -> f64 {
        %t = loop.for reduce %c < 4 -> f64 {
          %v = loop.load %x[%i, %k, %c] : memref<8x64x4xf64>
          loop.accumulate add %v : f64
        }
        loop.accumulate max %t : f64
      }
      loop.store %s, %out[%i] : memref<8xf64>
    }
  }
  func.return %out : memref<8xf64>
}

// CHECK-LABEL: tile.kernel @k_nested
// CHECK:           loop.accumulate add %v : f64
// CHECK-NEXT:    } {tile.unroll}
// CHECK-NEXT:    loop.accumulate max %t : f64
// CHECK-NEXT:  }{{$}}

// -----

func.func @main(%x: memref<8x64xf64>) -> memref<8xf64> {
  %out = memref.alloc() : memref<8xf64>
  tile.kernel @k_long ins(%x : memref<8x64xf64>) outs(%out : memref<8xf64>) {
    tile.tile (%i : 8 = thread) {
      %s = loop.for reduce %k < 64 -> f64 {
        %v = loop.load %x[%i, %k] : memref<8x64xf64>
        loop.accumulate add %v : f64
      }
      loop.store %s, %out[%i] : memref<8xf64>
    }
  }
  func.return %out : memref<8xf64>
}

// CHECK-LABEL: tile.kernel @k_long
// CHECK-NOT:   tile.unroll
