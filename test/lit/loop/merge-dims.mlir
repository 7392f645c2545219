// RUN: dpl-opt %s --split-input-file --pass-pipeline='merge-dims' | filecheck %s
// merge-dims gives a kernel each buffer whose accesses all index a run of its dims at the
// row-major position of one expression as a loop.view with the run merged. Cases: an RMSNorm
// over (2, 3, 4) after collapse-loops (nested floordivs: x, the weight and the output merged);
// a middle run beside a last dim indexed on its own; declined: a transposed read, and a buffer
// read both at one flat position and by two loop indices. Last, a flat read whose mod is spelled
// as a floordiv times minus its divisor, a 1x1 convolution's weight (dims of extent 1 read
// at 0), and a grouped convolution's window offsets composed by fold-index-maps.

func.func @main(%x: memref<5x2x3x4xf32>, %w: memref<2x3x4xf32>) -> memref<5x2x3x4xf32> {
  %y = memref.alloc() : memref<5x2x3x4xf32>
  loop.kernel @k_rms ins(%x, %w : memref<5x2x3x4xf32>, memref<2x3x4xf32>) outs(%y : memref<5x2x3x4xf32>) {
    loop.for free %a < 5 {
      %s = loop.for reduce %r < 24 -> f32 {
        %v = loop.load %x[%a, %r floordiv 4 floordiv 3, %r floordiv 4 mod 3, %r mod 4] : memref<5x2x3x4xf32>
        %q = arith.mulf %v, %v : f32
        loop.accumulate add %q : f32
      }
      loop.for free %i < 24 {
        %v = loop.load %x[%a, %i floordiv 4 floordiv 3, %i floordiv 4 mod 3, %i mod 4] : memref<5x2x3x4xf32>
        %g = loop.load %w[%i floordiv 4 floordiv 3, %i floordiv 4 mod 3, %i mod 4] : memref<2x3x4xf32>
        %n = arith.mulf %v, %s : f32
        %o = arith.mulf %n, %g : f32
        loop.store %o, %y[%a, %i floordiv 4 floordiv 3, %i floordiv 4 mod 3, %i mod 4] : memref<5x2x3x4xf32>
      }
    }
  }
  func.return %y : memref<5x2x3x4xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         %y = memref.alloc() : memref<5x2x3x4xf32>
// CHECK-NEXT:    %x_1 = loop.view %x : memref<5x2x3x4xf32> -> memref<5x24xf32>
// CHECK-NEXT:    %w_1 = loop.view %w : memref<2x3x4xf32> -> memref<24xf32>
// CHECK-NEXT:    %y_1 = loop.view %y : memref<5x2x3x4xf32> -> memref<5x24xf32>
// CHECK-NEXT:    loop.kernel @k_rms ins(%x_1, %w_1 : memref<5x24xf32>, memref<24xf32>) outs(%y_1 : memref<5x24xf32>) {
// CHECK:           %v = loop.load %x_1[%a, %r] : memref<5x24xf32>
// CHECK:           %v_1 = loop.load %x_1[%a, %i] : memref<5x24xf32>
// CHECK-NEXT:      %g = loop.load %w_1[%i] : memref<24xf32>
// CHECK:           loop.store %o, %y_1[%a, %i] : memref<5x24xf32>
// CHECK:         func.return %y : memref<5x2x3x4xf32>

// -----

func.func @main(%x: memref<5x4x6x7xf32>) -> memref<5x7xf32> {
  %y = memref.alloc() : memref<5x7xf32>
  loop.kernel @k_sum ins(%x : memref<5x4x6x7xf32>) outs(%y : memref<5x7xf32>) {
    loop.for free %a < 5 {
      loop.for free %c < 7 {
        %s = loop.for reduce %r < 24 -> f32 {
          %v = loop.load %x[%a, %r floordiv 6, %r mod 6, %c] : memref<5x4x6x7xf32>
          loop.accumulate add %v : f32
        }
        loop.store %s, %y[%a, %c] : memref<5x7xf32>
      }
    }
  }
  func.return %y : memref<5x7xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         %x_1 = loop.view %x : memref<5x4x6x7xf32> -> memref<5x24x7xf32>
// CHECK:           %v = loop.load %x_1[%a, %r, %c] : memref<5x24x7xf32>
// CHECK:           loop.store %s, %y[%a, %c] : memref<5x7xf32>

// -----

func.func @main(%x: memref<3x4x6xf32>) -> memref<3x4x6xf32> {
  %y = memref.alloc() : memref<3x4x6xf32>
  loop.kernel @k_t ins(%x : memref<3x4x6xf32>) outs(%y : memref<3x4x6xf32>) {
    loop.for free %a < 3 {
      loop.for free %i < 24 {
        %v = loop.load %x[%a, %i mod 4, %i floordiv 4] : memref<3x4x6xf32>
        loop.store %v, %y[%a, %i floordiv 6, %i mod 6] : memref<3x4x6xf32>
      }
    }
  }
  func.return %y : memref<3x4x6xf32>
}
// The read is a transpose: x is declined; the store merges.
// CHECK-LABEL: func.func @main
// CHECK:         %y_1 = loop.view %y : memref<3x4x6xf32> -> memref<3x24xf32>
// CHECK-NEXT:    loop.kernel @k_t ins(%x : memref<3x4x6xf32>) outs(%y_1 : memref<3x24xf32>) {
// CHECK:           %v = loop.load %x[%a, %i mod 4, %i floordiv 4] : memref<3x4x6xf32>
// CHECK-NEXT:      loop.store %v, %y_1[%a, %i] : memref<3x24xf32>

// -----

func.func @main(%x: memref<3x4x6xf32>) -> memref<3x4x6xf32> {
  %y = memref.alloc() : memref<3x4x6xf32>
  loop.kernel @k_mixed ins(%x : memref<3x4x6xf32>) outs(%y : memref<3x4x6xf32>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 24 -> f32 {
        %v = loop.load %x[%a, %r floordiv 6, %r mod 6] : memref<3x4x6xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %i < 4 {
        loop.for free %j < 6 {
          %v = loop.load %x[%a, %i, %j] : memref<3x4x6xf32>
          %o = arith.mulf %v, %s : f32
          loop.store %o, %y[%a, %i, %j] : memref<3x4x6xf32>
        }
      }
    }
  }
  func.return %y : memref<3x4x6xf32>
}
// x is read by two loop indices too: neither buffer merges.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.view
// CHECK:         loop.kernel @k_mixed ins(%x : memref<3x4x6xf32>) outs(%y : memref<3x4x6xf32>) {

// -----

// `%r mod 6` spelled `%r + %r floordiv 6 * -6` (how fold-index-maps' composed maps leave it):
// read at one flat position all the same.
func.func @main(%x: memref<3x4x6xf32>) -> memref<3xf32> {
  %y = memref.alloc() : memref<3xf32>
  loop.kernel @k_spelled ins(%x : memref<3x4x6xf32>) outs(%y : memref<3xf32>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 24 -> f32 {
        %v = loop.load %x[%a, %r floordiv 6, %r + %r floordiv 6 * -6] : memref<3x4x6xf32>
        loop.accumulate add %v : f32
      }
      loop.store %s, %y[%a] : memref<3xf32>
    }
  }
  func.return %y : memref<3xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         %x_1 = loop.view %x : memref<3x4x6xf32> -> memref<3x24xf32>
// CHECK:           %v = loop.load %x_1[%a, %r] : memref<3x24xf32>

// -----

// A dim of extent 1 read at 0 adds nothing to the flat position: a 1x1 convolution's weight
// [o, c, 1, 1] read at [%o, %r, 0, 0] is the matrix [o, c] (its rows then staged by float4s).
func.func @main(%x: memref<2x8x5xf32>, %w: memref<3x8x1x1xf32>) -> memref<2x3x5xf32> {
  %y = memref.alloc() : memref<2x3x5xf32>
  loop.kernel @k_conv ins(%x, %w : memref<2x8x5xf32>, memref<3x8x1x1xf32>) outs(%y : memref<2x3x5xf32>) {
    loop.for free %o < 3 {
      loop.for free %n < 10 {
        %s = loop.for reduce %r < 8 -> f32 {
          %v = loop.load %x[%n floordiv 5, %r, %n mod 5] : memref<2x8x5xf32>
          %g = loop.load %w[%o, %r, 0, 0] : memref<3x8x1x1xf32>
          %p = arith.mulf %v, %g : f32
          loop.accumulate add %p : f32
        }
        loop.store %s, %y[%n floordiv 5, %o, %n mod 5] : memref<2x3x5xf32>
      }
    }
  }
  func.return %y : memref<2x3x5xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         %w_1 = loop.view %w : memref<3x8x1x1xf32> -> memref<3x8xf32>
// CHECK:           %g = loop.load %w_1[%o, %r] : memref<3x8xf32>


// -----

// A grouped convolution's weight computed in the program (StyleGAN2's modulated weight) is read
// at the window's offsets as fold-index-maps composes them: the middle one is `%r floordiv 3 -
// 3 * (%r floordiv 9)`, which simplify_map spells `(%r floordiv 3) mod 3`, delinearize's form:
// the run (4, 3, 3) is one dim of 36. Declined: the same read with -2 in place of -3 (no mod).
func.func @main(%w: memref<2x4x3x3xf32>, %v: memref<2x4x6x3xf32>) -> (memref<2x5xf32>, memref<2x5xf32>) {
  %y = memref.alloc() : memref<2x5xf32>
  %z = memref.alloc() : memref<2x5xf32>
  loop.kernel @k_grouped ins(%w : memref<2x4x3x3xf32>) outs(%y : memref<2x5xf32>) {
    loop.for free %o < 2 {
      loop.for free %n < 5 {
        %s = loop.for reduce %r < 36 -> f32 {
          %g = loop.load %w[%o, %r floordiv 9, %r floordiv 3 + %r floordiv 9 * -3, %r + %r floordiv 3 * -3] : memref<2x4x3x3xf32>
          loop.accumulate add %g : f32
        }
        loop.store %s, %y[%o, %n] : memref<2x5xf32>
      }
    }
  }
  loop.kernel @k_declined ins(%v : memref<2x4x6x3xf32>) outs(%z : memref<2x5xf32>) {
    loop.for free %o < 2 {
      loop.for free %n < 5 {
        %s = loop.for reduce %r < 36 -> f32 {
          %g = loop.load %v[%o, %r floordiv 9, %r floordiv 3 + %r floordiv 9 * -2, %r mod 3] : memref<2x4x6x3xf32>
          loop.accumulate add %g : f32
        }
        loop.store %s, %z[%o, %n] : memref<2x5xf32>
      }
    }
  }
  func.return %y, %z : memref<2x5xf32>, memref<2x5xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         %w_1 = loop.view %w : memref<2x4x3x3xf32> -> memref<2x36xf32>
// CHECK:           %g = loop.load %w_1[%o, %r] : memref<2x36xf32>
// CHECK-NOT:     loop.view %v
// CHECK:           %g_1 = loop.load %v[%o_1, %r_1 floordiv 9, %r_1 floordiv 3 + %r_1 floordiv 9 * -2, %r_1 mod 3] : memref<2x4x6x3xf32>
