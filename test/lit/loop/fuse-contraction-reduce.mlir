// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-loops' | filecheck %s
// A contraction is not fused into a consumer that reads its output inside a reduce loop
// (`sum(x @ w.T, dim=1)`): the K loop would run inside the sum's loop, untiled. It stays a matmul
// kernel and the sum a row reduction over its output. An elementwise epilogue read outside any
// reduce loop still fuses.

func.func @main(%x: memref<6x5xf64>, %w: memref<7x5xf64>) -> memref<6xf64> {
  %y = memref.alloc() : memref<6x7xf64>
  loop.kernel @k_mm ins(%x, %w : memref<6x5xf64>, memref<7x5xf64>) outs(%y : memref<6x7xf64>) {
    loop.for free %i < 6 {
      loop.for free %j < 7 {
        %acc = loop.for reduce %k < 5 -> f64 {
          %a = loop.load %x[%i, %k] : memref<6x5xf64>
          %b = loop.load %w[%j, %k] : memref<7x5xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%i, %j] : memref<6x7xf64>
      }
    }
  }
  %s = memref.alloc() : memref<6xf64>
  loop.kernel @k_sum ins(%y : memref<6x7xf64>) outs(%s : memref<6xf64>) {
    loop.for free %i < 6 {
      %r = loop.for reduce %j < 7 -> f64 {
        %v = loop.load %y[%i, %j] : memref<6x7xf64>
        loop.accumulate add %v : f64
      }
      loop.store %r, %s[%i] : memref<6xf64>
    }
  }
  func.return %s : memref<6xf64>
}

// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_mm ins(%x, %w : memref<6x5xf64>, memref<7x5xf64>) outs(%y : memref<6x7xf64>)
// CHECK:         loop.kernel @k_sum ins(%y : memref<6x7xf64>) outs(%s : memref<6xf64>)
// CHECK-NEXT:      loop.for free %i{{.*}} < 6 {
// CHECK-NEXT:        %r = loop.for reduce %j{{.*}} < 7 -> f64 {
// CHECK-NEXT:          %v = loop.load %y

// -----

func.func @main(%x: memref<6x5xf64>, %w: memref<7x5xf64>) -> memref<6x7xf64> {
  %y = memref.alloc() : memref<6x7xf64>
  loop.kernel @k_mm ins(%x, %w : memref<6x5xf64>, memref<7x5xf64>) outs(%y : memref<6x7xf64>) {
    loop.for free %i < 6 {
      loop.for free %j < 7 {
        %acc = loop.for reduce %k < 5 -> f64 {
          %a = loop.load %x[%i, %k] : memref<6x5xf64>
          %b = loop.load %w[%j, %k] : memref<7x5xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%i, %j] : memref<6x7xf64>
      }
    }
  }
  %o = memref.alloc() : memref<6x7xf64>
  loop.kernel @k_relu ins(%y : memref<6x7xf64>) outs(%o : memref<6x7xf64>) {
    %z = arith.constant 0.0 : f64
    loop.for free %i < 6 {
      loop.for free %j < 7 {
        %v = loop.load %y[%i, %j] : memref<6x7xf64>
        %r = arith.maximumf %v, %z : f64
        loop.store %r, %o[%i, %j] : memref<6x7xf64>
      }
    }
  }
  func.return %o : memref<6x7xf64>
}

// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.kernel @k_mm
// CHECK:         loop.kernel @k_relu ins(%x, %w : memref<6x5xf64>, memref<7x5xf64>) outs(%o : memref<6x7xf64>)
// CHECK:           loop.for reduce
// CHECK:           arith.maximumf
