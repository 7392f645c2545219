// RUN: dpl-opt %s --pass-pipeline='fuse-loops' | filecheck %s
// A contraction's reduce body runs once per multiply-add, so it takes only a cheap prologue: the
// bias (m + 1) fuses into the second matmul @k_mm2, SiLU (an exp and a division per
// multiply-add) stays out of @k_mm, and @k_mm itself is not fused into @k_mm2 (one contraction
// per kernel). The scaling (a * 2) fuses into its elementwise readers @k_silu and @k_act.

func.func @main(%a: memref<4x8xf64>, %w: memref<6x8xf64>, %v: memref<6x6xf64>) -> (memref<4x6xf64>, memref<4x8xf64>) {
  %s = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_scale ins(%a : memref<4x8xf64>) outs(%s : memref<4x8xf64>) {
    %two = arith.constant 2.0 : f64
    loop.for free %i < 4 {
      loop.for free %k < 8 {
        %x = loop.load %a[%i, %k] : memref<4x8xf64>
        %y = arith.mulf %x, %two : f64
        loop.store %y, %s[%i, %k] : memref<4x8xf64>
      }
    }
  }
  %g = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_silu ins(%s : memref<4x8xf64>) outs(%g : memref<4x8xf64>) {
    %one = arith.constant 1.0 : f64
    loop.for free %i < 4 {
      loop.for free %k < 8 {
        %x = loop.load %s[%i, %k] : memref<4x8xf64>
        %n = arith.negf %x : f64
        %e = math.exp %n : f64
        %d = arith.addf %one, %e : f64
        %y = arith.divf %x, %d : f64
        loop.store %y, %g[%i, %k] : memref<4x8xf64>
      }
    }
  }
  %m = memref.alloc() : memref<4x6xf64>
  loop.kernel @k_mm ins(%g, %w : memref<4x8xf64>, memref<6x8xf64>) outs(%m : memref<4x6xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 6 {
        %r = loop.for reduce %k < 8 -> f64 {
          %x = loop.load %g[%i, %k] : memref<4x8xf64>
          %y = loop.load %w[%j, %k] : memref<6x8xf64>
          %p = arith.mulf %x, %y : f64
          loop.accumulate add %p : f64
        }
        loop.store %r, %m[%i, %j] : memref<4x6xf64>
      }
    }
  }
  %b = memref.alloc() : memref<4x6xf64>
  loop.kernel @k_bias ins(%m : memref<4x6xf64>) outs(%b : memref<4x6xf64>) {
    %one = arith.constant 1.0 : f64
    loop.for free %i < 4 {
      loop.for free %j < 6 {
        %x = loop.load %m[%i, %j] : memref<4x6xf64>
        %y = arith.addf %x, %one : f64
        loop.store %y, %b[%i, %j] : memref<4x6xf64>
      }
    }
  }
  %o = memref.alloc() : memref<4x6xf64>
  loop.kernel @k_mm2 ins(%b, %v : memref<4x6xf64>, memref<6x6xf64>) outs(%o : memref<4x6xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 6 {
        %r = loop.for reduce %k < 6 -> f64 {
          %x = loop.load %b[%i, %k] : memref<4x6xf64>
          %y = loop.load %v[%j, %k] : memref<6x6xf64>
          %p = arith.mulf %x, %y : f64
          loop.accumulate add %p : f64
        }
        loop.store %r, %o[%i, %j] : memref<4x6xf64>
      }
    }
  }
  %t = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_act ins(%s : memref<4x8xf64>) outs(%t : memref<4x8xf64>) {
    loop.for free %i < 4 {
      loop.for free %k < 8 {
        %x = loop.load %s[%i, %k] : memref<4x8xf64>
        %e = math.exp %x : f64
        loop.store %e, %t[%i, %k] : memref<4x8xf64>
      }
    }
  }
  func.return %o, %t : memref<4x6xf64>, memref<4x8xf64>
}

// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.kernel @k_scale
// CHECK:         loop.kernel @k_silu ins(%a : memref<4x8xf64>) outs(%g : memref<4x8xf64>)
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:         loop.kernel @k_mm ins(%g, %w : memref<4x8xf64>, memref<6x8xf64>) outs(%m : memref<4x6xf64>)
// CHECK-NOT:     loop.kernel @k_bias
// CHECK:         loop.kernel @k_mm2 ins(%v, %m : memref<6x6xf64>, memref<4x6xf64>) outs(%o : memref<4x6xf64>)
// CHECK:           loop.for reduce
// CHECK:             arith.addf
// CHECK:         loop.kernel @k_act ins(%a : memref<4x8xf64>) outs(%t : memref<4x8xf64>)
// CHECK:           arith.mulf
// CHECK:           math.exp
