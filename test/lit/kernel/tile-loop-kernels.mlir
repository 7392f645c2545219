// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(tile-loop-kernels)' | filecheck %s
// tile-loop-kernels (materialize's first pass): a loop.kernel no schedule tiled becomes a
// grid-stride tile.kernel. Cases: a 4 x 40 free nest (160 iterations: 160 threads in one block,
// the flat index split back into %i, %j; the constant stays before the tile); a tile.kernel,
// which is left alone.

func.func @main(%x: memref<4x40xf32>) -> memref<4x40xf32> {
  %y = memref.alloc() : memref<4x40xf32>
  loop.kernel @k_scale ins(%x : memref<4x40xf32>) outs(%y : memref<4x40xf32>) {
    %c = arith.constant 2.0 : f32
    loop.for free %i < 4 {
      loop.for free %j < 40 {
        %v = loop.load %x[%i, %j] : memref<4x40xf32>
        %n = arith.mulf %v, %c : f32
        loop.store %n, %y[%i, %j] : memref<4x40xf32>
      }
    }
  }
  func.return %y : memref<4x40xf32>
}

// CHECK-LABEL: tile.kernel @k_scale ins(%x : memref<4x40xf32>) outs(%y : memref<4x40xf32>) {
// CHECK-NEXT:    %c = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    tile.tile (%t : 160 = thread, %b : 1 = block) {
// CHECK-NEXT:      %gtid = affine.apply affine_map<(d0, d1) -> (((d0 * 160) + d1))> (%b, %t)
// CHECK-NEXT:      tile.strided_for free %flat = %gtid to 160 step 160 {
// CHECK-NEXT:        %i = affine.apply affine_map<(d0) -> ((d0 floordiv 40))> (%flat)
// CHECK-NEXT:        %j = affine.apply affine_map<(d0) -> ((d0 mod 40))> (%flat)
// CHECK-NEXT:        %v = loop.load %x[%i, %j] : memref<4x40xf32>
// CHECK-NEXT:        %n = arith.mulf %v, %c : f32
// CHECK-NEXT:        loop.store %n, %y[%i, %j] : memref<4x40xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// -----

func.func @main(%x: memref<64xf32>) -> memref<64xf32> {
  %y = memref.alloc() : memref<64xf32>
  tile.kernel @k_tiled ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%t : 64 = thread) {
      %v = loop.load %x[%t] : memref<64xf32>
      loop.store %v, %y[%t] : memref<64xf32>
    }
  }
  func.return %y : memref<64xf32>
}

// CHECK-LABEL: tile.kernel @k_tiled ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
// CHECK-NEXT:    tile.tile (%t : 64 = thread) {
// CHECK-NEXT:      %v = loop.load %x[%t] : memref<64xf32>
// CHECK-NEXT:      loop.store %v, %y[%t] : memref<64xf32>

// -----

// A scatter's loop.atomic becomes a tile.atomic; its buffer starts at the identity (tile.zero_init).
func.func @main(%s: memref<40xf32>, %i: memref<40xi64>) -> memref<7xf32> {
  %o = memref.alloc() : memref<7xf32>
  loop.kernel @k_scatter ins(%s, %i : memref<40xf32>, memref<40xi64>) outs(%o : memref<7xf32>) {
    loop.for free %a0 < 40 {
      %id = loop.load %i[%a0] : memref<40xi64>
      %at = arith.index_cast %id : i64 to index
      %v = loop.load %s[%a0] : memref<40xf32>
      loop.atomic max %v, %o[%at] : memref<7xf32>
    }
  }
  func.return %o : memref<7xf32>
}

// CHECK-LABEL: tile.kernel @k_scatter
// CHECK:           tile.atomic max %v, %o[%at] : memref<7xf32>
// CHECK:       } {tile.zero_init = [0 : i64]}
// CHECK-NOT:   loop.atomic
