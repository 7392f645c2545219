// RUN: dpl-opt %s --pass-pipeline='fuse-loops' | filecheck %s
// Softmax as four kernels (max, exp, sum, divide) fuses into one nest: two reduce loops inside the
// row loop (max, then exp-sum), then the normalising free loop. The seeds' reduction chain.

func.func @main(%x: memref<4x8xf64>) -> memref<4x8xf64> {
  %m = memref.alloc() : memref<4x1xf64>
  loop.kernel @k_max ins(%x : memref<4x8xf64>) outs(%m : memref<4x1xf64>) {
    loop.for free %i < 4 {
      loop.for free %z < 1 {
        %r = loop.for reduce %k < 8 -> f64 {
          %v = loop.load %x[%i, %k] : memref<4x8xf64>
          loop.accumulate max %v : f64
        }
        loop.store %r, %m[%i, %z] : memref<4x1xf64>
      }
    }
  }
  %e = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_exp ins(%x, %m : memref<4x8xf64>, memref<4x1xf64>) outs(%e : memref<4x8xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %v = loop.load %x[%i, %j] : memref<4x8xf64>
        %mm = loop.load %m[%i, 0] : memref<4x1xf64>
        %d = arith.subf %v, %mm : f64
        %ex = math.exp %d : f64
        loop.store %ex, %e[%i, %j] : memref<4x8xf64>
      }
    }
  }
  %s = memref.alloc() : memref<4x1xf64>
  loop.kernel @k_sum ins(%e : memref<4x8xf64>) outs(%s : memref<4x1xf64>) {
    loop.for free %i < 4 {
      loop.for free %z < 1 {
        %r = loop.for reduce %k < 8 -> f64 {
          %v = loop.load %e[%i, %k] : memref<4x8xf64>
          loop.accumulate add %v : f64
        }
        loop.store %r, %s[%i, %z] : memref<4x1xf64>
      }
    }
  }
  %o = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_div ins(%e, %s : memref<4x8xf64>, memref<4x1xf64>) outs(%o : memref<4x8xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %v = loop.load %e[%i, %j] : memref<4x8xf64>
        %ss = loop.load %s[%i, 0] : memref<4x1xf64>
        %q = arith.divf %v, %ss : f64
        loop.store %q, %o[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %o : memref<4x8xf64>
}

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %o = memref.alloc() : memref<4x8xf64>
// CHECK-NEXT:    loop.kernel @k_div ins(%x : memref<4x8xf64>) outs(%o : memref<4x8xf64>) {
// CHECK-NEXT:      loop.for free %i < 4 {
// CHECK-NEXT:        %r = loop.for reduce %k < 8 -> f64 {
// CHECK-NEXT:          %v = loop.load %x[%i, %k] : memref<4x8xf64>
// CHECK-NEXT:          loop.accumulate max %v : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        %r_1 = loop.for reduce %k_1 < 8 -> f64 {
// CHECK-NEXT:          %v_1 = loop.load %x[%i, %k_1] : memref<4x8xf64>
// CHECK-NEXT:          %d = arith.subf %v_1, %r : f64
// CHECK-NEXT:          %ex = math.exp %d : f64
// CHECK-NEXT:          loop.accumulate add %ex : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.for free %j < 8 {
// CHECK-NEXT:          %v_2 = loop.load %x[%i, %j] : memref<4x8xf64>
// CHECK-NEXT:          %d_1 = arith.subf %v_2, %r : f64
// CHECK-NEXT:          %ex_1 = math.exp %d_1 : f64
// CHECK-NEXT:          %q = arith.divf %ex_1, %r_1 : f64
// CHECK-NEXT:          loop.store %q, %o[%i, %j] : memref<4x8xf64>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %o : memref<4x8xf64>
