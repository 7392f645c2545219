// RUN: dpl-opt %s --pass-pipeline='fuse-loops' | filecheck %s
// A reflect-padded input (read at positions from a table: a gather) stays out of a
// contraction's reduce body (@k_conv, a 1-D convolution: the tensor cores' stages take plain
// loads only) but fuses into a window sum that is no contraction (@k_win).

func.func @main(%x: memref<2x6xf64>, %w: memref<4x3xf64>, %t: memref<8xi64>) -> (memref<4x2x6xf64>, memref<2x6xf64>) {
  %p = memref.alloc() : memref<2x8xf64>
  loop.kernel @k_pad ins(%x, %t : memref<2x6xf64>, memref<8xi64>) outs(%p : memref<2x8xf64>) {
    loop.for free %n < 2 {
      loop.for free %o < 8 {
        %id = loop.load %t[%o] : memref<8xi64>
        %i = arith.index_cast %id : i64 to index
        %v = loop.load %x[%n, %i] : memref<2x6xf64>
        loop.store %v, %p[%n, %o] : memref<2x8xf64>
      }
    }
  }
  %y = memref.alloc() : memref<4x2x6xf64>
  loop.kernel @k_conv ins(%p, %w : memref<2x8xf64>, memref<4x3xf64>) outs(%y : memref<4x2x6xf64>) {
    loop.for free %c < 4 {
      loop.for free %n < 2 {
        loop.for free %o < 6 {
          %acc = loop.for reduce %k < 3 -> f64 {
            %u = loop.load %p[%n, %o + %k] : memref<2x8xf64>
            %v = loop.load %w[%c, %k] : memref<4x3xf64>
            %m = arith.mulf %u, %v : f64
            loop.accumulate add %m : f64
          }
          loop.store %acc, %y[%c, %n, %o] : memref<4x2x6xf64>
        }
      }
    }
  }
  %z = memref.alloc() : memref<2x6xf64>
  loop.kernel @k_win ins(%p : memref<2x8xf64>) outs(%z : memref<2x6xf64>) {
    loop.for free %n < 2 {
      loop.for free %o < 6 {
        %acc = loop.for reduce %k < 3 -> f64 {
          %u = loop.load %p[%n, %o + %k] : memref<2x8xf64>
          loop.accumulate add %u : f64
        }
        loop.store %acc, %z[%n, %o] : memref<2x6xf64>
      }
    }
  }
  func.return %y, %z : memref<4x2x6xf64>, memref<2x6xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_pad ins(%x, %t : memref<2x6xf64>, memref<8xi64>) outs(%p : memref<2x8xf64>)
// CHECK:         loop.kernel @k_conv ins(%p, %w : memref<2x8xf64>, memref<4x3xf64>) outs(%y : memref<4x2x6xf64>)
// CHECK-NOT:       arith.index_cast
// CHECK:         loop.kernel @k_win ins(%x, %t : memref<2x6xf64>, memref<8xi64>) outs(%z : memref<2x6xf64>)
// CHECK:           loop.for reduce
// CHECK:             arith.index_cast
