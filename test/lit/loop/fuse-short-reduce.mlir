// RUN: dpl-opt %s --pass-pipeline='fuse-loops{max-column-reduce=0}' --split-input-file | filecheck %s
// A short reduction (at most max-recompute-reduce = 16 iterations per value) fuses even where
// each read recomputes it: x / sum(x, dim=0) over a dim of 3 is one kernel, every element
// summing its column's 3 terms, instead of two kernels with the sums in memory between them
// (max-column-reduce=0: without the interchange of fuse-column-reduce.mlir that hoists the sums).

func.func @main(%x: memref<3x8xf64>) -> memref<3x8xf64> {
  %s = memref.alloc() : memref<1x8xf64>
  loop.kernel @k_colsum ins(%x : memref<3x8xf64>) outs(%s : memref<1x8xf64>) {
    loop.for free %z < 1 {
      loop.for free %j < 8 {
        %r = loop.for reduce %k < 3 -> f64 {
          %v = loop.load %x[%k, %j] : memref<3x8xf64>
          loop.accumulate add %v : f64
        }
        loop.store %r, %s[%z, %j] : memref<1x8xf64>
      }
    }
  }
  %o = memref.alloc() : memref<3x8xf64>
  loop.kernel @k_div ins(%x, %s : memref<3x8xf64>, memref<1x8xf64>) outs(%o : memref<3x8xf64>) {
    loop.for free %i < 3 {
      loop.for free %j < 8 {
        %v = loop.load %x[%i, %j] : memref<3x8xf64>
        %c = loop.load %s[0, %j] : memref<1x8xf64>
        %q = arith.divf %v, %c : f64
        loop.store %q, %o[%i, %j] : memref<3x8xf64>
      }
    }
  }
  func.return %o : memref<3x8xf64>
}

// CHECK-LABEL: func.func @main(%x: memref<3x8xf64>)
// CHECK-NOT:     loop.kernel @k_colsum
// CHECK:         loop.kernel @k_div ins(%x : memref<3x8xf64>) outs(%o : memref<3x8xf64>) {
// CHECK-NEXT:      loop.for free %i < 3 {
// CHECK-NEXT:        loop.for free %[[J:.*]] < 8 {
// CHECK-NEXT:          %[[V:.*]] = loop.load %x[%i, %[[J]]] : memref<3x8xf64>
// CHECK-NEXT:          %[[R:.*]] = loop.for reduce %[[K:.*]] < 3 -> f64 {
// CHECK-NEXT:            %[[W:.*]] = loop.load %x[%[[K]], %[[J]]] : memref<3x8xf64>
// CHECK-NEXT:            loop.accumulate add %[[W]] : f64
// CHECK-NEXT:          }
// CHECK-NEXT:          %q = arith.divf %[[V]], %[[R]] : f64
// CHECK-NEXT:          loop.store %q, %o[%i, %[[J]]] : memref<3x8xf64>

// -----

// 17 iterations per value are more than max-recompute-reduce: the sums stay their own kernel.

func.func @main(%x: memref<17x8xf64>) -> memref<17x8xf64> {
  %s = memref.alloc() : memref<1x8xf64>
  loop.kernel @k_colsum ins(%x : memref<17x8xf64>) outs(%s : memref<1x8xf64>) {
    loop.for free %z < 1 {
      loop.for free %j < 8 {
        %r = loop.for reduce %k < 17 -> f64 {
          %v = loop.load %x[%k, %j] : memref<17x8xf64>
          loop.accumulate add %v : f64
        }
        loop.store %r, %s[%z, %j] : memref<1x8xf64>
      }
    }
  }
  %o = memref.alloc() : memref<17x8xf64>
  loop.kernel @k_div ins(%x, %s : memref<17x8xf64>, memref<1x8xf64>) outs(%o : memref<17x8xf64>) {
    loop.for free %i < 17 {
      loop.for free %j < 8 {
        %v = loop.load %x[%i, %j] : memref<17x8xf64>
        %c = loop.load %s[0, %j] : memref<1x8xf64>
        %q = arith.divf %v, %c : f64
        loop.store %q, %o[%i, %j] : memref<17x8xf64>
      }
    }
  }
  func.return %o : memref<17x8xf64>
}

// CHECK-LABEL: func.func @main(%x: memref<17x8xf64>)
// CHECK:         loop.kernel @k_colsum ins(%x : memref<17x8xf64>) outs(%s : memref<1x8xf64>)
// CHECK:         loop.kernel @k_div ins(%x, %s : memref<17x8xf64>, memref<1x8xf64>) outs(%o : memref<17x8xf64>)

// -----

// A short float sum read at two indices (a rank: how many rows' sums lie below row i's) stays its
// own kernel: fused, row i's sum would be computed twice, at %i and inside the loop at %k, and
// the two copies, scheduled apart, could round apart (a row counted below itself).

func.func @main(%x: memref<6x4xf64>) -> memref<6xi64> {
  %s = memref.alloc() : memref<6xf64>
  loop.kernel @k_rowsum ins(%x : memref<6x4xf64>) outs(%s : memref<6xf64>) {
    loop.for free %i < 6 {
      %r = loop.for reduce %j < 4 -> f64 {
        %v = loop.load %x[%i, %j] : memref<6x4xf64>
        loop.accumulate add %v : f64
      }
      loop.store %r, %s[%i] : memref<6xf64>
    }
  }
  %o = memref.alloc() : memref<6xi64>
  loop.kernel @k_rank ins(%s : memref<6xf64>) outs(%o : memref<6xi64>) {
    loop.for free %i < 6 {
      %mine = loop.load %s[%i] : memref<6xf64>
      %n = loop.for reduce %k < 6 -> i64 {
        %other = loop.load %s[%k] : memref<6xf64>
        %lt = arith.cmpf olt, %other, %mine : f64
        %one = arith.extui %lt : i1 to i64
        loop.accumulate add %one : i64
      }
      loop.store %n, %o[%i] : memref<6xi64>
    }
  }
  func.return %o : memref<6xi64>
}

// CHECK-LABEL: func.func @main(%x: memref<6x4xf64>) -> memref<6xi64>
// CHECK:         loop.kernel @k_rowsum ins(%x : memref<6x4xf64>) outs(%s : memref<6xf64>)
// CHECK:         loop.kernel @k_rank ins(%s : memref<6xf64>) outs(%o : memref<6xi64>)

// -----

// The same rank of row maxima fuses: a max is exact in any order, so the copies agree.

func.func @main(%x: memref<6x4xf64>) -> memref<6xi64> {
  %s = memref.alloc() : memref<6xf64>
  loop.kernel @k_rowmax ins(%x : memref<6x4xf64>) outs(%s : memref<6xf64>) {
    loop.for free %i < 6 {
      %r = loop.for reduce %j < 4 -> f64 {
        %v = loop.load %x[%i, %j] : memref<6x4xf64>
        loop.accumulate max %v : f64
      }
      loop.store %r, %s[%i] : memref<6xf64>
    }
  }
  %o = memref.alloc() : memref<6xi64>
  loop.kernel @k_rank ins(%s : memref<6xf64>) outs(%o : memref<6xi64>) {
    loop.for free %i < 6 {
      %mine = loop.load %s[%i] : memref<6xf64>
      %n = loop.for reduce %k < 6 -> i64 {
        %other = loop.load %s[%k] : memref<6xf64>
        %lt = arith.cmpf olt, %other, %mine : f64
        %one = arith.extui %lt : i1 to i64
        loop.accumulate add %one : i64
      }
      loop.store %n, %o[%i] : memref<6xi64>
    }
  }
  func.return %o : memref<6xi64>
}

// CHECK-LABEL: func.func @main(%x: memref<6x4xf64>) -> memref<6xi64>
// CHECK-NOT:     loop.kernel @k_rowmax
// CHECK:         loop.kernel @k_rank ins(%x : memref<6x4xf64>) outs(%o : memref<6xi64>)
