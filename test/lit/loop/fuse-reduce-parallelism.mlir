// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-loops' | filecheck %s
// A reduction (longer than max-recompute-reduce, 16, per value) stays out of a consumer that
// reads it inside a reduce loop with fewer outputs than the reduction has values: the mean of a
// cross entropy's per-row log-sum-exp (1 output) would run each row's 20 iterations inside its
// own loop over 4 rows, serially, where apart the rows reduce in parallel.

func.func @main(%x: memref<4x20xf64>) -> memref<f64> {
  %s = memref.alloc() : memref<4xf64>
  loop.kernel @k_rows ins(%x : memref<4x20xf64>) outs(%s : memref<4xf64>) {
    loop.for free %i < 4 {
      %acc = loop.for reduce %k < 20 -> f64 {
        %v = loop.load %x[%i, %k] : memref<4x20xf64>
        %e = math.exp %v : f64
        loop.accumulate add %e : f64
      }
      loop.store %acc, %s[%i] : memref<4xf64>
    }
  }
  %t = memref.alloc() : memref<f64>
  loop.kernel @k_mean ins(%s : memref<4xf64>) outs(%t : memref<f64>) {
    %acc = loop.for reduce %i < 4 -> f64 {
      %v = loop.load %s[%i] : memref<4xf64>
      %l = math.log %v : f64
      loop.accumulate add %l : f64
    }
    loop.store %acc, %t[] : memref<f64>
  }
  func.return %t : memref<f64>
}
// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_rows ins(%x : memref<4x20xf64>) outs(%s : memref<4xf64>)
// CHECK:         loop.kernel @k_mean ins(%s : memref<4xf64>) outs(%t : memref<f64>)
// CHECK-NOT:       math.exp

// -----

// A masked sum over j of x[b, j] where j < i (a scan's or a sort's shape) is no contraction (its
// loads do not meet in a multiply), though the mask m[i, j] and x[b, j] are indexed like a
// matmul's operands: the mask's comparison of loop indices fuses into it, no n x n buffer.

func.func @main(%x: memref<2x4xf64>) -> memref<2x4xf64> {
  %m = memref.alloc() : memref<4x4xi1>
  loop.kernel @k_mask outs(%m : memref<4x4xi1>) {
    loop.for free %i < 4 {
      loop.for free %j < 4 {
        %lt = arith.cmpi ult, %j, %i : index
        loop.store %lt, %m[%i, %j] : memref<4x4xi1>
      }
    }
  }
  %c = memref.alloc() : memref<2x4xf64>
  loop.kernel @k_sum ins(%m, %x : memref<4x4xi1>, memref<2x4xf64>) outs(%c : memref<2x4xf64>) {
    %zero = arith.constant 0.0 : f64
    loop.for free %b < 2 {
      loop.for free %i < 4 {
        %acc = loop.for reduce %j < 4 -> f64 {
          %k = loop.load %m[%i, %j] : memref<4x4xi1>
          %v = loop.load %x[%b, %j] : memref<2x4xf64>
          %s = arith.select %k, %v, %zero : f64
          loop.accumulate add %s : f64
        }
        loop.store %acc, %c[%b, %i] : memref<2x4xf64>
      }
    }
  }
  func.return %c : memref<2x4xf64>
}
// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.kernel @k_mask
// CHECK:         loop.kernel @k_sum ins(%x : memref<2x4xf64>) outs(%c : memref<2x4xf64>)
// CHECK:           loop.for reduce
// CHECK:             arith.cmpi ult
