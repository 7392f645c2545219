// RUN: not dpl-opt %s -p schedule 2>&1 | filecheck %s
// A value the pass rejects is the pass's own one-line error.
func.func @main(%x: memref<64x128xf64>, %w: memref<128x128xf64>) -> memref<64x128xf64> {
  %y = memref.alloc() : memref<64x128xf64>
  loop.kernel @k_bad ins(%x, %w : memref<64x128xf64>, memref<128x128xf64>) outs(%y : memref<64x128xf64>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 128 {
        %acc = loop.for reduce %r0 < 128 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<64x128xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<128x128xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x128xf64>
      }
    }
  } {tile.point = {buffers = 1 : i64}}
  func.return %y : memref<64x128xf64>
}
// CHECK: error: schedule: @k_bad: tile.point: double-buffer: option buffers must be at least 2, got 1

