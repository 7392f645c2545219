// RUN: dpl-opt %s | dpl-opt | filecheck %s
// The mma dialect's tile-level ops (mma.stage with its region, mma.dot) print and parse back unchanged.

func.func @main(%x: memref<128x64xf32>, %wt: memref<256x64xf32>) -> memref<128x256xf32> {
  %y = memref.alloc() : memref<128x256xf32>
  tile.kernel @k_linear ins(%x, %wt : memref<128x64xf32>, memref<256x64xf32>) outs(%y : memref<128x256xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 2 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 32 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %xs = mma.stage rows 128 k 32 {
        ^bb0(%r: index, %c: index):
          %v = loop.load %x[%bm * 128 + %r, %ko * 32 + %c] : memref<128x64xf32>
          mma.yield %v : f32
        } : memref<128x32xf32, #tile.smem>
        %ws = mma.stage rows 256 k 32 {
        ^bb0(%r: index, %c: index):
          %v = loop.load %wt[%bn * 256 + %r, %ko * 32 + %c] : memref<256x64xf32>
          mma.yield %v : f32
        } : memref<256x32xf32, #tile.smem>
        %p = mma.dot %xs[%wg * 64 + %w * 16 + %h * 8 + %g], %ws[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 2 : memref<128x32xf32, #tile.smem>, memref<256x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %y[%bm * 128 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 256 + %j * 8 + %t * 2 + %e] : memref<128x256xf32>
    }
  }
  func.return %y : memref<128x256xf32>
}

// CHECK:      tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 2 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 32 = cell, %e : 2 = cell) {
// CHECK:        %xs = mma.stage rows 128 k 32 {
// CHECK-NEXT:   ^bb0(%r: index, %c: index):
// CHECK-NEXT:     %v = loop.load %x[%bm * 128 + %r, %ko * 32 + %c] : memref<128x64xf32>
// CHECK-NEXT:     mma.yield %v : f32
// CHECK-NEXT:   } : memref<128x32xf32, #tile.smem>
// CHECK:        %p = mma.dot %xs[%wg * 64 + %w * 16 + %h * 8 + %g], %ws[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 2 : memref<128x32xf32, #tile.smem>, memref<256x32xf32, #tile.smem>
