// RUN: dpl-opt %s --pass-pipeline='fuse-loops' | filecheck %s
// A max-pool (a short reduction: 2 per value) stays out of the contraction that reads it in its
// K loop (@k_lin, LeNet's linear after the pool): the pool's window loop would run inside the
// K loop, and the nest would be no matmul. It fuses into the elementwise consumer (@k_relu).

func.func @main(%x: memref<6x16xf64>, %w: memref<4x8xf64>) -> (memref<6x4xf64>, memref<6x8xf64>) {
  %p = memref.alloc() : memref<6x8xf64>
  loop.kernel @k_pool ins(%x : memref<6x16xf64>) outs(%p : memref<6x8xf64>) {
    loop.for free %n < 6 {
      loop.for free %o < 8 {
        %m = loop.for reduce %k < 2 -> f64 {
          %v = loop.load %x[%n, %o * 2 + %k] : memref<6x16xf64>
          loop.accumulate max %v : f64
        }
        loop.store %m, %p[%n, %o] : memref<6x8xf64>
      }
    }
  }
  %y = memref.alloc() : memref<6x4xf64>
  loop.kernel @k_lin ins(%p, %w : memref<6x8xf64>, memref<4x8xf64>) outs(%y : memref<6x4xf64>) {
    loop.for free %n < 6 {
      loop.for free %c < 4 {
        %acc = loop.for reduce %k < 8 -> f64 {
          %u = loop.load %p[%n, %k] : memref<6x8xf64>
          %v = loop.load %w[%c, %k] : memref<4x8xf64>
          %m = arith.mulf %u, %v : f64
          loop.accumulate add %m : f64
        }
        loop.store %acc, %y[%n, %c] : memref<6x4xf64>
      }
    }
  }
  %z = memref.alloc() : memref<6x8xf64>
  loop.kernel @k_relu ins(%p : memref<6x8xf64>) outs(%z : memref<6x8xf64>) {
    %zero = arith.constant 0.0 : f64
    loop.for free %n < 6 {
      loop.for free %o < 8 {
        %u = loop.load %p[%n, %o] : memref<6x8xf64>
        %r = arith.maximumf %u, %zero : f64
        loop.store %r, %z[%n, %o] : memref<6x8xf64>
      }
    }
  }
  func.return %y, %z : memref<6x4xf64>, memref<6x8xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_pool ins(%x : memref<6x16xf64>) outs(%p : memref<6x8xf64>)
// CHECK:         loop.kernel @k_lin ins(%p, %w : memref<6x8xf64>, memref<4x8xf64>) outs(%y : memref<6x4xf64>)
// CHECK-NOT:       loop.accumulate max
// CHECK:         loop.kernel @k_relu ins(%x : memref<6x16xf64>) outs(%z : memref<6x8xf64>)
// CHECK:           loop.accumulate max
