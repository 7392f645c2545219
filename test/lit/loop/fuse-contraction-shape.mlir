// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-loops' | filecheck %s
// A contraction fuses into an elementwise consumer only where the consumer's loops are the
// contraction's: not into a consumer that broadcasts each of its values over more loops (a
// squeeze-excite scale: the broadcast would run inside the matmul's tile, serially per thread),
// nor into one whose loops index both operands (a pixel shuffle: the matmul's M x N would
// shrink to what the shuffle's loops leave). A plain epilogue still fuses (@k_epi).

func.func @main(%a: memref<2x4xf64>, %w: memref<3x4xf64>, %x: memref<2x3x5xf64>) -> (memref<2x3x5xf64>, memref<2x3xf64>) {
  %y = memref.alloc() : memref<2x3xf64>
  loop.kernel @k_mm ins(%a, %w : memref<2x4xf64>, memref<3x4xf64>) outs(%y : memref<2x3xf64>) {
    loop.for free %i < 2 {
      loop.for free %j < 3 {
        %acc = loop.for reduce %k < 4 -> f64 {
          %u = loop.load %a[%i, %k] : memref<2x4xf64>
          %v = loop.load %w[%j, %k] : memref<3x4xf64>
          %m = arith.mulf %u, %v : f64
          loop.accumulate add %m : f64
        }
        loop.store %acc, %y[%i, %j] : memref<2x3xf64>
      }
    }
  }
  %z = memref.alloc() : memref<2x3x5xf64>
  loop.kernel @k_scale ins(%x, %y : memref<2x3x5xf64>, memref<2x3xf64>) outs(%z : memref<2x3x5xf64>) {
    loop.for free %i < 2 {
      loop.for free %j < 3 {
        loop.for free %h < 5 {
          %s = loop.load %y[%i, %j] : memref<2x3xf64>
          %e = loop.load %x[%i, %j, %h] : memref<2x3x5xf64>
          %p = arith.mulf %e, %s : f64
          loop.store %p, %z[%i, %j, %h] : memref<2x3x5xf64>
        }
      }
    }
  }
  %t = memref.alloc() : memref<2x3xf64>
  loop.kernel @k_epi ins(%y : memref<2x3xf64>) outs(%t : memref<2x3xf64>) {
    %c = arith.constant 2.0 : f64
    loop.for free %i < 2 {
      loop.for free %j < 3 {
        %s = loop.load %y[%i, %j] : memref<2x3xf64>
        %p = arith.mulf %s, %c : f64
        loop.store %p, %t[%i, %j] : memref<2x3xf64>
      }
    }
  }
  func.return %z, %t : memref<2x3x5xf64>, memref<2x3xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_scale ins(%x, %y : memref<2x3x5xf64>, memref<2x3xf64>) outs(%z : memref<2x3x5xf64>)
// CHECK-NOT:       loop.for reduce
// CHECK:         loop.kernel @k_epi ins(%a, %w : memref<2x4xf64>, memref<3x4xf64>) outs(%t : memref<2x3xf64>)
// CHECK:           loop.for reduce %{{.*}} < 4

// -----

// A pixel shuffle of a 1-D "convolution" y[o, n] (o < 4 channels, n < 6 positions): z[c, 2n + r]
// = y[2c + r, n]. Fused, %w would be read at [%c * 2 + %q mod 2] and %x at [%q floordiv 2]: the
// consumer's %q indexes both, leaving M x N = 2 x 1 of 4 x 6.

func.func @main(%x: memref<6x3xf64>, %w: memref<4x3xf64>) -> memref<2x12xf64> {
  %y = memref.alloc() : memref<4x6xf64>
  loop.kernel @k_conv ins(%w, %x : memref<4x3xf64>, memref<6x3xf64>) outs(%y : memref<4x6xf64>) {
    loop.for free %o < 4 {
      loop.for free %n < 6 {
        %acc = loop.for reduce %k < 3 -> f64 {
          %u = loop.load %w[%o, %k] : memref<4x3xf64>
          %v = loop.load %x[%n, %k] : memref<6x3xf64>
          %m = arith.mulf %u, %v : f64
          loop.accumulate add %m : f64
        }
        loop.store %acc, %y[%o, %n] : memref<4x6xf64>
      }
    }
  }
  %z = memref.alloc() : memref<2x12xf64>
  loop.kernel @k_shuffle ins(%y : memref<4x6xf64>) outs(%z : memref<2x12xf64>) {
    loop.for free %c < 2 {
      loop.for free %q < 12 {
        %s = loop.load %y[%c * 2 + %q mod 2, %q floordiv 2] : memref<4x6xf64>
        loop.store %s, %z[%c, %q] : memref<2x12xf64>
      }
    }
  }
  func.return %z : memref<2x12xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_conv ins(%w, %x : memref<4x3xf64>, memref<6x3xf64>) outs(%y : memref<4x6xf64>)
// CHECK:         loop.kernel @k_shuffle ins(%y : memref<4x6xf64>) outs(%z : memref<2x12xf64>)
// CHECK-NOT:       loop.for reduce
