// RUN: dpl-opt %s --split-input-file --pass-pipeline='collapse-loops' | filecheck %s
// collapse-loops merges a perfect nest of reduce loops, and of free loops beside a reduce, into
// one loop whose index is split back by floordiv / mod. Cases: a sum over the last two dims and
// a scaling loop over them (both nests collapse); a reduce nest whose outer body does more than
// accumulate the inner result, and a pointwise kernel's free nest (neither collapses); nests
// with a cheap prologue before the inner loop (collapse), one with a division (does not).

func.func @main(%x: memref<3x4x5xf64>) -> memref<3x4x5xf64> {
  %y = memref.alloc() : memref<3x4x5xf64>
  loop.kernel @k_scale ins(%x : memref<3x4x5xf64>) outs(%y : memref<3x4x5xf64>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 4 -> f64 {
        %t = loop.for reduce %q < 5 -> f64 {
          %v = loop.load %x[%a, %r, %q] : memref<3x4x5xf64>
          loop.accumulate add %v : f64
        }
        loop.accumulate add %t : f64
      }
      loop.for free %i < 4 {
        loop.for free %j < 5 {
          %v = loop.load %x[%a, %i, %j] : memref<3x4x5xf64>
          %w = arith.mulf %v, %s : f64
          loop.store %w, %y[%a, %i, %j] : memref<3x4x5xf64>
        }
      }
    }
  }
  func.return %y : memref<3x4x5xf64>
}
// CHECK-LABEL: loop.kernel @k_scale
// CHECK:         loop.for free %a < 3 {
// CHECK-NEXT:      %s = loop.for reduce %r < 20 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r floordiv 5, %r mod 5] : memref<3x4x5xf64>
// CHECK-NEXT:        loop.accumulate add %v : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.for free %i < 20 {
// CHECK-NEXT:        %v_1 = loop.load %x[%a, %i floordiv 5, %i mod 5] : memref<3x4x5xf64>
// CHECK-NEXT:        %w = arith.mulf %v_1, %s : f64
// CHECK-NEXT:        loop.store %w, %y[%a, %i floordiv 5, %i mod 5] : memref<3x4x5xf64>

// -----

func.func @main(%x: memref<3x4x5xf64>) -> memref<3xf64> {
  %y = memref.alloc() : memref<3xf64>
  loop.kernel @k_squares ins(%x : memref<3x4x5xf64>) outs(%y : memref<3xf64>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 4 -> f64 {
        %t = loop.for reduce %q < 5 -> f64 {
          %v = loop.load %x[%a, %r, %q] : memref<3x4x5xf64>
          loop.accumulate add %v : f64
        }
        %t2 = arith.mulf %t, %t : f64
        loop.accumulate add %t2 : f64
      }
      loop.store %s, %y[%a] : memref<3xf64>
    }
  }
  func.return %y : memref<3xf64>
}
// CHECK-LABEL: loop.kernel @k_squares
// CHECK:         %s = loop.for reduce %r < 4 -> f64 {
// CHECK-NEXT:      %t = loop.for reduce %q < 5 -> f64 {

// -----

func.func @main(%x: memref<4x5xf64>) -> memref<4x5xf64> {
  %y = memref.alloc() : memref<4x5xf64>
  loop.kernel @k_neg ins(%x : memref<4x5xf64>) outs(%y : memref<4x5xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 5 {
        %v = loop.load %x[%i, %j] : memref<4x5xf64>
        %w = arith.negf %v : f64
        loop.store %w, %y[%i, %j] : memref<4x5xf64>
      }
    }
  }
  func.return %y : memref<4x5xf64>
}
// CHECK-LABEL: loop.kernel @k_neg
// CHECK:         loop.for free %i < 4 {
// CHECK-NEXT:      loop.for free %j < 5 {

// -----

// A cheap prologue before the inner loop (StyleGAN2's demodulation: the style s read per input
// channel around the 3-tap window) moves into the collapsed loop, recomputed per element; so
// does the normalizing loop's. A prologue with a division stays a nest.
func.func @main(%w: memref<2x4x3xf64>, %s: memref<4xf64>) -> memref<2x4x3xf64> {
  %y = memref.alloc() : memref<2x4x3xf64>
  loop.kernel @k_demod ins(%w, %s : memref<2x4x3xf64>, memref<4xf64>) outs(%y : memref<2x4x3xf64>) {
    %one = arith.constant 1.0 : f64
    loop.for free %o < 2 {
      %acc = loop.for reduce %i < 4 -> f64 {
        %si = loop.load %s[%i] : memref<4xf64>
        %sc = arith.addf %si, %one : f64
        %t = loop.for reduce %k < 3 -> f64 {
          %v = loop.load %w[%o, %i, %k] : memref<2x4x3xf64>
          %m = arith.mulf %v, %sc : f64
          %q = arith.mulf %m, %m : f64
          loop.accumulate add %q : f64
        }
        loop.accumulate add %t : f64
      }
      loop.for free %i2 < 4 {
        %si2 = loop.load %s[%i2] : memref<4xf64>
        loop.for free %k2 < 3 {
          %v2 = loop.load %w[%o, %i2, %k2] : memref<2x4x3xf64>
          %m2 = arith.mulf %v2, %si2 : f64
          %d = arith.mulf %m2, %acc : f64
          loop.store %d, %y[%o, %i2, %k2] : memref<2x4x3xf64>
        }
      }
    }
  }
  func.return %y : memref<2x4x3xf64>
}
// CHECK-LABEL: loop.kernel @k_demod
// CHECK:         %acc = loop.for reduce %i < 12 -> f64 {
// CHECK-NEXT:      %si = loop.load %s[%i floordiv 3] : memref<4xf64>
// CHECK-NEXT:      %sc = arith.addf %si, %one : f64
// CHECK-NEXT:      %v = loop.load %w[%o, %i floordiv 3, %i mod 3] : memref<2x4x3xf64>
// CHECK:           loop.accumulate add %q : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.for free %i2 < 12 {
// CHECK-NEXT:      %si2 = loop.load %s[%i2 floordiv 3] : memref<4xf64>

// -----

func.func @main(%w: memref<2x4x3xf64>, %s: memref<4xf64>) -> memref<2xf64> {
  %z = memref.alloc() : memref<2xf64>
  loop.kernel @k_divided ins(%w, %s : memref<2x4x3xf64>, memref<4xf64>) outs(%z : memref<2xf64>) {
    %one = arith.constant 1.0 : f64
    loop.for free %o < 2 {
      %acc = loop.for reduce %i < 4 -> f64 {
        %si = loop.load %s[%i] : memref<4xf64>
        %sc = arith.divf %one, %si : f64
        %t = loop.for reduce %k < 3 -> f64 {
          %v = loop.load %w[%o, %i, %k] : memref<2x4x3xf64>
          %m = arith.mulf %v, %sc : f64
          loop.accumulate add %m : f64
        }
        loop.accumulate add %t : f64
      }
      loop.store %acc, %z[%o] : memref<2xf64>
    }
  }
  func.return %z : memref<2xf64>
}
// CHECK-LABEL: loop.kernel @k_divided
// CHECK:         %acc = loop.for reduce %i < 4 -> f64 {
// CHECK:           arith.divf
// CHECK-NEXT:      %t = loop.for reduce %k < 3 -> f64 {
