// RUN: dpl-opt %s --pass-pipeline='fuse-loops{max-recompute-reduce=0 max-column-reduce=0}' | filecheck %s
// Fusion must be refused when it would recompute a reduction: the column sums s[j] are read inside
// the (i, j) nest, so an inlined sum could not be hoisted out of the j loop and would run 4 times
// per column (a reduction this short is recomputed by default: max-recompute-reduce=0 turns that
// off here, and max-column-reduce=0 the interchange that would hoist it, fuse-column-reduce.mlir; fuse-short-reduce.mlir has the default). A cheap elementwise producer read at a broadcast index is still inlined.

func.func @main(%x: memref<4x8xf64>, %y: memref<4x8xf64>) -> memref<4x8xf64> {
  %s = memref.alloc() : memref<1x8xf64>
  loop.kernel @k_colsum ins(%x : memref<4x8xf64>) outs(%s : memref<1x8xf64>) {
    loop.for free %z < 1 {
      loop.for free %j < 8 {
        %r = loop.for reduce %k < 4 -> f64 {
          %v = loop.load %x[%k, %j] : memref<4x8xf64>
          loop.accumulate add %v : f64
        }
        loop.store %r, %s[%z, %j] : memref<1x8xf64>
      }
    }
  }
  %t = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_scale ins(%y : memref<4x8xf64>) outs(%t : memref<4x8xf64>) {
    %two = arith.constant 2.0 : f64
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %v = loop.load %y[%i, %j] : memref<4x8xf64>
        %w = arith.mulf %v, %two : f64
        loop.store %w, %t[%i, %j] : memref<4x8xf64>
      }
    }
  }
  %o = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_div ins(%t, %s : memref<4x8xf64>, memref<1x8xf64>) outs(%o : memref<4x8xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %v = loop.load %t[%i, %j] : memref<4x8xf64>
        %c = loop.load %s[0, %j] : memref<1x8xf64>
        %q = arith.divf %v, %c : f64
        loop.store %q, %o[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %o : memref<4x8xf64>
}

// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_colsum ins(%x : memref<4x8xf64>) outs(%s : memref<1x8xf64>)
// CHECK-NOT:     loop.kernel @k_scale
// CHECK:         loop.kernel @k_div ins(%s, %y : memref<1x8xf64>, memref<4x8xf64>) outs(%o : memref<4x8xf64>) {
// CHECK:           %two = arith.constant 2.000000e+00 : f64
// CHECK:           loop.for free %i < 4 {
// CHECK-NEXT:        loop.for free %[[J:.*]] < 8 {
// CHECK-NEXT:          %[[V:.*]] = loop.load %y[%i, %[[J]]] : memref<4x8xf64>
// CHECK-NEXT:          %w = arith.mulf %[[V]], %two : f64
// CHECK-NEXT:          %c = loop.load %s[0, %[[J]]] : memref<1x8xf64>
// CHECK-NEXT:          %q = arith.divf %w, %c : f64
