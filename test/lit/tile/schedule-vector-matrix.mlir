// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// A contraction whose one side has extent 1 (x[0, k] * w[k, n]: a vector-matrix product, decode
// attention's P @ V) is scheduled as a reduction: the matrix's contiguous columns on a warp, the
// lanes sharing K; the long K split over blocks (atomics). A real matmul (M = 2) is not.

func.func @main(%x: memref<1x2048xf32>, %w: memref<2048x128xf32>) -> memref<1x128xf32> {
  %y = memref.alloc() : memref<1x128xf32>
  loop.kernel @k_vecmat ins(%x, %w : memref<1x2048xf32>, memref<2048x128xf32>) outs(%y : memref<1x128xf32>) {
    loop.for free %m < 1 {
      loop.for free %n < 128 {
        %s = loop.for reduce %k < 2048 -> f32 {
          %u = loop.load %x[%m, %k] : memref<1x2048xf32>
          %v = loop.load %w[%k, %n] : memref<2048x128xf32>
          %p = arith.mulf %u, %v : f32
          loop.accumulate add %p : f32
        }
        loop.store %s, %y[%m, %n] : memref<1x128xf32>
      }
    }
  }
  func.return %y : memref<1x128xf32>
}
// CHECK-LABEL: tile.kernel @k_vecmat
// CHECK:         tile.tile (%rs : {{[0-9]+}} = block, %lane : 8 = thread, %n_b : 4 = block, %n_t : 32 = thread)
// CHECK:           loop.load %w[{{.*}}, %n_b * 32 + %n_t]
// CHECK:         tile.schedule = "collapse-loops,merge-dims,tileify,merge-columns{sms={{[0-9]+}}},pad-columns,blockify-launch

// -----

func.func @main(%x: memref<2x2048xf32>, %w: memref<2048x128xf32>) -> memref<2x128xf32> {
  %y = memref.alloc() : memref<2x128xf32>
  loop.kernel @k_matmul ins(%x, %w : memref<2x2048xf32>, memref<2048x128xf32>) outs(%y : memref<2x128xf32>) {
    loop.for free %m < 2 {
      loop.for free %n < 128 {
        %s = loop.for reduce %k < 2048 -> f32 {
          %u = loop.load %x[%m, %k] : memref<2x2048xf32>
          %v = loop.load %w[%k, %n] : memref<2048x128xf32>
          %p = arith.mulf %u, %v : f32
          loop.accumulate add %p : f32
        }
        loop.store %s, %y[%m, %n] : memref<2x128xf32>
      }
    }
  }
  func.return %y : memref<2x128xf32>
}
// CHECK-LABEL: tile.kernel @k_matmul
// CHECK:         tile.schedule = "tileify,pad-matmul
