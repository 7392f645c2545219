// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch{sms=1}' | filecheck %s
// A one-pass reduction whose loads along the reduce loop read along the fastest tile axis in
// their innermost dim (a window: neighbouring outputs read neighbouring elements; a weight read
// alike by every output broadcasts) runs each row whole in a thread where the rows fill the SMs
// (on 1 SM: 2048): @k_window, 64 x 64 rows of 36 taps, is blocked as a pointwise tile, no lane
// axis. Declined (a lane axis shares each row, as for any row of 32 or more): the same window
// over 16 x 40 rows (too few), and a row read contiguously along the reduce loop (@k_rows).

func.func @main(%x: memref<64x99xf32>, %w: memref<36xf32>) -> memref<64x64xf32> {
  %y = memref.alloc() : memref<64x64xf32>
  tile.kernel @k_window ins(%x, %w : memref<64x99xf32>, memref<36xf32>) outs(%y : memref<64x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 64 = thread) {
      %acc = loop.for reduce %r < 36 -> f32 {
        %u = loop.load %x[%a0, %a1 + %r] : memref<64x99xf32>
        %v = loop.load %w[%r] : memref<36xf32>
        %p = arith.mulf %u, %v : f32
        loop.accumulate add %p : f32
      }
      loop.store %acc, %y[%a0, %a1] : memref<64x64xf32>
    }
  }
  func.return %y : memref<64x64xf32>
}
// CHECK-LABEL: tile.kernel @k_window
// CHECK:         tile.tile (%a0_b : 16 = block, %a0_t : 4 = thread, %a1 : 64 = thread) {
// CHECK-NEXT:      %a0 = affine.apply
// CHECK-NEXT:      %acc = loop.for reduce %r < 36 -> f32 {

// -----

func.func @main(%x: memref<16x75xf32>, %w: memref<36xf32>) -> memref<16x40xf32> {
  %y = memref.alloc() : memref<16x40xf32>
  tile.kernel @k_few ins(%x, %w : memref<16x75xf32>, memref<36xf32>) outs(%y : memref<16x40xf32>) {
    tile.tile (%a0 : 16 = thread, %a1 : 40 = thread) {
      %acc = loop.for reduce %r < 36 -> f32 {
        %u = loop.load %x[%a0, %a1 + %r] : memref<16x75xf32>
        %v = loop.load %w[%r] : memref<36xf32>
        %p = arith.mulf %u, %v : f32
        loop.accumulate add %p : f32
      }
      loop.store %acc, %y[%a0, %a1] : memref<16x40xf32>
    }
  }
  func.return %y : memref<16x40xf32>
}
// CHECK-LABEL: tile.kernel @k_few
// CHECK:         tile.tile ({{.*}}%lane : {{[0-9]+}} = thread

// -----

func.func @main(%x: memref<2560x36xf32>) -> memref<2560xf32> {
  %y = memref.alloc() : memref<2560xf32>
  tile.kernel @k_rows ins(%x : memref<2560x36xf32>) outs(%y : memref<2560xf32>) {
    tile.tile (%a0 : 2560 = thread) {
      %acc = loop.for reduce %r < 36 -> f32 {
        %u = loop.load %x[%a0, %r] : memref<2560x36xf32>
        loop.accumulate add %u : f32
      }
      loop.store %acc, %y[%a0] : memref<2560xf32>
    }
  }
  func.return %y : memref<2560xf32>
}
// CHECK-LABEL: tile.kernel @k_rows
// CHECK:         tile.tile ({{.*}}%lane : {{[0-9]+}} = thread
