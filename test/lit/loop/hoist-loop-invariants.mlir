// RUN: dpl-opt %s --pass-pipeline='hoist-loop-invariants' | filecheck %s
// A reduction that only depends on the row moves out of the column loop, with the arithmetic on
// its result; code that reads the column index stays.

func.func @main(%x: memref<4x8xf64>) -> memref<4x8xf64> {
  %o = memref.alloc() : memref<4x8xf64>
  loop.kernel @k ins(%x : memref<4x8xf64>) outs(%o : memref<4x8xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %s = loop.for reduce %k < 8 -> f64 {
          %v = loop.load %x[%i, %k] : memref<4x8xf64>
          %sq = arith.mulf %v, %v : f64
          loop.accumulate add %sq : f64
        }
        %r = math.rsqrt %s : f64
        %v = loop.load %x[%i, %j] : memref<4x8xf64>
        %q = arith.mulf %v, %r : f64
        loop.store %q, %o[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %o : memref<4x8xf64>
}

// CHECK:      loop.for free %i < 4 {
// CHECK-NEXT:   %s = loop.for reduce %k < 8 -> f64 {
// CHECK:        }
// CHECK-NEXT:   %r = math.rsqrt %s : f64
// CHECK-NEXT:   loop.for free %j < 8 {
// CHECK-NEXT:     %v_1 = loop.load %x[%i, %j] : memref<4x8xf64>
// CHECK-NEXT:     %q = arith.mulf %v_1, %r : f64
// CHECK-NEXT:     loop.store %q, %o[%i, %j] : memref<4x8xf64>

