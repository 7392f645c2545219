// RUN: dpl-opt %s --split-input-file --pass-pipeline='collapse-matmul-axes' | filecheck %s
// collapse-matmul-axes gives each side of a contraction one free loop where it spans several.
// Cases: a linear over 2 x 5 rows (its M side %a0, %a1 becomes %a1 < 10, and x and y views of
// 10 rows); a convolution whose output positions (%n, %h, %q) become one loop in the place of
// %q, beside the output-channel loop %o and the ops hoisted into it (its weight a view of 8 rows
// of 27); a convolution whose store sits in a free loop of extent 1 after the reduce loop (a
// kept reduced dim: the loop goes, its index 0); declined: a side loop whose body holds a load of its own
// (%a0's scale), a product of two loads indexed alike (no contraction), and a side of one loop
// of extent > 1 beside one of extent 1 (nothing to do). Last, a Gram matrix of a reshaped
// feature map: no side to collapse, its K read at one flat position merged all the same.
// Prologue factors: an RMSNorm before a linear over 2 x 5 rows (the norm's weight g[%r], a third
// load in the reduce loop, on K alone; rstd[%a0, %a1] on x's side) collapses as the plain
// linear; declined, a product of three loads each indexed by a free loop of its own (a
// trilinear form: no two operands). Then the batch: the scores q @ k^T of an attention over
// 2 x 3 heads (its batch loops %a0, %a1 index both operands) become one loop of 6, as a 3-D
// batched matmul's (four block axes with the M and N tiles were more than materialize-mma lays
// on a grid: Gemma-2's soft-capped attention crashed there); a batch whose outer loop holds a
// load of its own stays, its sides collapsed all the same.

func.func @main(%x: memref<2x5x16xf32>, %w: memref<24x16xf32>, %b: memref<24xf32>) -> memref<2x5x24xf32> {
  %y = memref.alloc() : memref<2x5x24xf32>
  loop.kernel @k_linear ins(%b, %x, %w : memref<24xf32>, memref<2x5x16xf32>, memref<24x16xf32>) outs(%y : memref<2x5x24xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 24 {
          %acc = loop.for reduce %r < 16 -> f32 {
            %u = loop.load %x[%a0, %a1, %r] : memref<2x5x16xf32>
            %v = loop.load %w[%a2, %r] : memref<24x16xf32>
            %p = arith.mulf %u, %v : f32
            loop.accumulate add %p : f32
          }
          %c = loop.load %b[%a2] : memref<24xf32>
          %s = arith.addf %acc, %c : f32
          loop.store %s, %y[%a0, %a1, %a2] : memref<2x5x24xf32>
        }
      }
    }
  }
  func.return %y : memref<2x5x24xf32>
}
// CHECK:         %x_1 = loop.view %x : memref<2x5x16xf32> -> memref<10x16xf32>
// CHECK-NEXT:    %y_1 = loop.view %y : memref<2x5x24xf32> -> memref<10x24xf32>
// CHECK-NEXT:    loop.kernel @k_linear ins(%b, %x_1, %w : memref<24xf32>, memref<10x16xf32>, memref<24x16xf32>) outs(%y_1 : memref<10x24xf32>) {
// CHECK-NEXT:    loop.for free %a1 < 10 {
// CHECK-NEXT:      loop.for free %a2 < 24 {
// CHECK-NEXT:        %acc = loop.for reduce %r < 16 -> f32 {
// CHECK-NEXT:          %u = loop.load %x_1[%a1, %r] : memref<10x16xf32>
// CHECK-NEXT:          %v = loop.load %w[%a2, %r] : memref<24x16xf32>
// CHECK:             %c = loop.load %b[%a2] : memref<24xf32>
// CHECK:             loop.store %s, %y_1[%a1, %a2] : memref<10x24xf32>

// -----

func.func @main(%x: memref<2x3x6x7xf32>, %w: memref<8x3x3x3xf32>, %g: memref<8xf32>) -> memref<2x8x4x5xf32> {
  %y = memref.alloc() : memref<2x8x4x5xf32>
  loop.kernel @k_conv ins(%x, %w, %g : memref<2x3x6x7xf32>, memref<8x3x3x3xf32>, memref<8xf32>) outs(%y : memref<2x8x4x5xf32>) {
    loop.for free %n < 2 {
      loop.for free %o < 8 {
        %gv = loop.load %g[%o] : memref<8xf32>
        %sc = math.exp %gv : f32
        loop.for free %h < 4 {
          loop.for free %q < 5 {
            %acc = loop.for reduce %r < 27 -> f32 {
              %u = loop.load %x[%n, %r floordiv 9, %h + %r mod 9 floordiv 3, %q + %r mod 3] : memref<2x3x6x7xf32>
              %v = loop.load %w[%o, %r floordiv 9, %r mod 9 floordiv 3, %r mod 3] : memref<8x3x3x3xf32>
              %p = arith.mulf %u, %v : f32
              loop.accumulate add %p : f32
            }
            %s = arith.mulf %acc, %sc : f32
            loop.store %s, %y[%n, %o, %h, %q] : memref<2x8x4x5xf32>
          }
        }
      }
    }
  }
  func.return %y : memref<2x8x4x5xf32>
}
// CHECK:         %w_1 = loop.view %w : memref<8x3x3x3xf32> -> memref<8x27xf32>
// CHECK-NEXT:    loop.kernel @k_conv ins(%x, %w_1, %g : memref<2x3x6x7xf32>, memref<8x27xf32>, memref<8xf32>) outs(%y : memref<2x8x4x5xf32>) {
// CHECK-NEXT:    loop.for free %o < 8 {
// CHECK-NEXT:      %gv = loop.load %g[%o] : memref<8xf32>
// CHECK-NEXT:      %sc = math.exp %gv : f32
// CHECK-NEXT:      loop.for free %q < 40 {
// CHECK-NEXT:        %acc = loop.for reduce %r < 27 -> f32 {
// CHECK-NEXT:          %u = loop.load %x[%q floordiv 20, %r floordiv 9, %q floordiv 5 mod 4 + %r mod 9 floordiv 3, %q mod 5 + %r mod 3] : memref<2x3x6x7xf32>
// CHECK-NEXT:          %v = loop.load %w_1[%o, %r] : memref<8x27xf32>
// CHECK:             loop.store %s, %y[%q floordiv 20, %o, %q floordiv 5 mod 4, %q mod 5] : memref<2x8x4x5xf32>

// -----

func.func @main(%x: memref<2x5x16xf32>, %w: memref<24x16xf32>, %s: memref<2xf32>) -> memref<2x5x24xf32> {
  %y = memref.alloc() : memref<2x5x24xf32>
  loop.kernel @k_scaled ins(%x, %w, %s : memref<2x5x16xf32>, memref<24x16xf32>, memref<2xf32>) outs(%y : memref<2x5x24xf32>) {
    loop.for free %a0 < 2 {
      %sv = loop.load %s[%a0] : memref<2xf32>
      loop.for free %a1 < 5 {
        loop.for free %a2 < 24 {
          %acc = loop.for reduce %r < 16 -> f32 {
            %u = loop.load %x[%a0, %a1, %r] : memref<2x5x16xf32>
            %v = loop.load %w[%a2, %r] : memref<24x16xf32>
            %p = arith.mulf %u, %v : f32
            loop.accumulate add %p : f32
          }
          %t = arith.mulf %acc, %sv : f32
          loop.store %t, %y[%a0, %a1, %a2] : memref<2x5x24xf32>
        }
      }
    }
  }
  func.return %y : memref<2x5x24xf32>
}
// CHECK-LABEL: loop.kernel @k_scaled
// CHECK-NEXT:    loop.for free %a0 < 2 {
// CHECK-NEXT:      %sv = loop.load %s[%a0] : memref<2xf32>
// CHECK-NEXT:      loop.for free %a1 < 5 {
// CHECK-NEXT:        loop.for free %a2 < 24 {
// CHECK:             loop.store %t, %y[%a0, %a1, %a2] : memref<2x5x24xf32>

// -----

func.func @main(%x: memref<2x5x16xf32>, %z: memref<2x5x16xf32>) -> memref<2x5xf32> {
  %y = memref.alloc() : memref<2x5xf32>
  loop.kernel @k_dot ins(%x, %z : memref<2x5x16xf32>, memref<2x5x16xf32>) outs(%y : memref<2x5xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        %acc = loop.for reduce %r < 16 -> f32 {
          %u = loop.load %x[%a0, %a1, %r] : memref<2x5x16xf32>
          %v = loop.load %z[%a0, %a1, %r] : memref<2x5x16xf32>
          %p = arith.mulf %u, %v : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<2x5xf32>
      }
    }
  }
  func.return %y : memref<2x5xf32>
}
// CHECK-LABEL: loop.kernel @k_dot
// CHECK-NEXT:    loop.for free %a0 < 2 {
// CHECK-NEXT:      loop.for free %a1 < 5 {

// -----

func.func @main(%x: memref<1x5x16xf32>, %w: memref<24x16xf32>) -> memref<1x5x24xf32> {
  %y = memref.alloc() : memref<1x5x24xf32>
  loop.kernel @k_one ins(%x, %w : memref<1x5x16xf32>, memref<24x16xf32>) outs(%y : memref<1x5x24xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 24 {
          %acc = loop.for reduce %r < 16 -> f32 {
            %u = loop.load %x[%a0, %a1, %r] : memref<1x5x16xf32>
            %v = loop.load %w[%a2, %r] : memref<24x16xf32>
            %p = arith.mulf %u, %v : f32
            loop.accumulate add %p : f32
          }
          loop.store %acc, %y[%a0, %a1, %a2] : memref<1x5x24xf32>
        }
      }
    }
  }
  func.return %y : memref<1x5x24xf32>
}
// CHECK-LABEL: loop.kernel @k_one
// CHECK-NEXT:    loop.for free %a0 < 1 {
// CHECK-NEXT:      loop.for free %a1 < 5 {
// CHECK-NEXT:        loop.for free %a2 < 24 {

// -----

func.func @main(%x: memref<2x3x6x7xf32>, %w: memref<8x27xf32>) -> memref<2x8x4x5x1xf32> {
  %y = memref.alloc() : memref<2x8x4x5x1xf32>
  loop.kernel @k_unit ins(%x, %w : memref<2x3x6x7xf32>, memref<8x27xf32>) outs(%y : memref<2x8x4x5x1xf32>) {
    loop.for free %n < 2 {
      loop.for free %o < 8 {
        loop.for free %h < 4 {
          loop.for free %q < 5 {
            %acc = loop.for reduce %r < 27 -> f32 {
              %u = loop.load %x[%n, %r floordiv 9, %h + %r mod 9 floordiv 3, %q + %r mod 3] : memref<2x3x6x7xf32>
              %v = loop.load %w[%o, %r] : memref<8x27xf32>
              %p = arith.mulf %u, %v : f32
              loop.accumulate add %p : f32
            }
            loop.for free %e < 1 {
              loop.store %acc, %y[%n, %o, %h, %q, %e] : memref<2x8x4x5x1xf32>
            }
          }
        }
      }
    }
  }
  func.return %y : memref<2x8x4x5x1xf32>
}
// CHECK-LABEL: loop.kernel @k_unit
// CHECK-NEXT:    loop.for free %o < 8 {
// CHECK-NEXT:      loop.for free %q < 40 {
// CHECK-NEXT:        %acc = loop.for reduce %r < 27 -> f32 {
// CHECK:             }
// CHECK-NOT:         loop.for free %e
// CHECK-NEXT:        loop.store %acc, %y

// -----

// A Gram matrix of a (2, 6, 4, 8) feature map seen as (2, 6, 32): one loop a side, nothing to
// collapse, but K reads the last two dims at one flat position (its `mod` spelled as
// fold-index-maps leaves it, `%r + %r floordiv 8 * -8`): the operand is a view of 2 x 6 x 32.
func.func @main(%f: memref<2x6x4x8xf32>) -> memref<2x6x6xf32> {
  %y = memref.alloc() : memref<2x6x6xf32>
  loop.kernel @k_gram ins(%f : memref<2x6x4x8xf32>) outs(%y : memref<2x6x6xf32>) {
    loop.for free %b < 2 {
      loop.for free %i < 6 {
        loop.for free %j < 6 {
          %acc = loop.for reduce %r < 32 -> f32 {
            %u = loop.load %f[%b, %i, %r floordiv 8, %r + %r floordiv 8 * -8] : memref<2x6x4x8xf32>
            %v = loop.load %f[%b, %j, %r floordiv 8, %r + %r floordiv 8 * -8] : memref<2x6x4x8xf32>
            %p = arith.mulf %u, %v : f32
            loop.accumulate add %p : f32
          }
          loop.store %acc, %y[%b, %i, %j] : memref<2x6x6xf32>
        }
      }
    }
  }
  func.return %y : memref<2x6x6xf32>
}
// CHECK:         %f_1 = loop.view %f : memref<2x6x4x8xf32> -> memref<2x6x32xf32>
// CHECK-NEXT:    loop.kernel @k_gram ins(%f_1 : memref<2x6x32xf32>) outs(%y : memref<2x6x6xf32>) {
// CHECK:             %u = loop.load %f_1[%b, %i, %r] : memref<2x6x32xf32>
// CHECK-NEXT:        %v = loop.load %f_1[%b, %j, %r] : memref<2x6x32xf32>

// -----

func.func @main(%x: memref<2x5x16xf32>, %rstd: memref<2x5xf32>, %g: memref<16xf32>, %w: memref<24x16xf32>) -> memref<2x5x24xf32> {
  %y = memref.alloc() : memref<2x5x24xf32>
  loop.kernel @k_normed ins(%x, %rstd, %g, %w : memref<2x5x16xf32>, memref<2x5xf32>, memref<16xf32>, memref<24x16xf32>) outs(%y : memref<2x5x24xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 24 {
          %acc = loop.for reduce %r < 16 -> f32 {
            %u = loop.load %x[%a0, %a1, %r] : memref<2x5x16xf32>
            %s = loop.load %rstd[%a0, %a1] : memref<2x5xf32>
            %k = loop.load %g[%r] : memref<16xf32>
            %v = loop.load %w[%a2, %r] : memref<24x16xf32>
            %n = arith.mulf %u, %s : f32
            %m = arith.mulf %n, %k : f32
            %p = arith.mulf %m, %v : f32
            loop.accumulate add %p : f32
          }
          loop.store %acc, %y[%a0, %a1, %a2] : memref<2x5x24xf32>
        }
      }
    }
  }
  func.return %y : memref<2x5x24xf32>
}
// CHECK:         %x_1 = loop.view %x : memref<2x5x16xf32> -> memref<10x16xf32>
// CHECK-NEXT:    %rstd_1 = loop.view %rstd : memref<2x5xf32> -> memref<10xf32>
// CHECK-NEXT:    %y_1 = loop.view %y : memref<2x5x24xf32> -> memref<10x24xf32>
// CHECK-NEXT:    loop.kernel @k_normed ins(%x_1, %rstd_1, %g, %w : memref<10x16xf32>, memref<10xf32>, memref<16xf32>, memref<24x16xf32>) outs(%y_1 : memref<10x24xf32>) {
// CHECK-NEXT:    loop.for free %a1 < 10 {
// CHECK-NEXT:      loop.for free %a2 < 24 {
// CHECK-NEXT:        %acc = loop.for reduce %r < 16 -> f32 {
// CHECK-NEXT:          %u = loop.load %x_1[%a1, %r] : memref<10x16xf32>
// CHECK-NEXT:          %s = loop.load %rstd_1[%a1] : memref<10xf32>
// CHECK-NEXT:          %k = loop.load %g[%r] : memref<16xf32>
// CHECK-NEXT:          %v = loop.load %w[%a2, %r] : memref<24x16xf32>
// CHECK:             loop.store %acc, %y_1[%a1, %a2] : memref<10x24xf32>

// -----

func.func @main(%x: memref<2x16xf32>, %z: memref<5x16xf32>, %w: memref<24x16xf32>) -> memref<2x5x24xf32> {
  %y = memref.alloc() : memref<2x5x24xf32>
  loop.kernel @k_three ins(%x, %z, %w : memref<2x16xf32>, memref<5x16xf32>, memref<24x16xf32>) outs(%y : memref<2x5x24xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 24 {
          %acc = loop.for reduce %r < 16 -> f32 {
            %u = loop.load %x[%a0, %r] : memref<2x16xf32>
            %c = loop.load %z[%a1, %r] : memref<5x16xf32>
            %v = loop.load %w[%a2, %r] : memref<24x16xf32>
            %n = arith.mulf %u, %c : f32
            %p = arith.mulf %n, %v : f32
            loop.accumulate add %p : f32
          }
          loop.store %acc, %y[%a0, %a1, %a2] : memref<2x5x24xf32>
        }
      }
    }
  }
  func.return %y : memref<2x5x24xf32>
}
// CHECK-LABEL: loop.kernel @k_three
// CHECK-NEXT:    loop.for free %a0 < 2 {
// CHECK-NEXT:      loop.for free %a1 < 5 {
// CHECK-NEXT:        loop.for free %a2 < 24 {

// -----

func.func @main(%q: memref<2x3x128x32xf32>, %k: memref<2x3x128x32xf32>) -> memref<2x3x128x1x128xf32> {
  %red = memref.alloc() : memref<2x3x128x1x128xf32>
  loop.kernel @k_scores ins(%q, %k : memref<2x3x128x32xf32>, memref<2x3x128x32xf32>) outs(%red : memref<2x3x128x1x128xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 3 {
        loop.for free %a2 < 128 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 128 {
              %acc = loop.for reduce %r0 < 32 -> f32 {
                %in = loop.load %q[%a0, %a1, %a2, %r0] : memref<2x3x128x32xf32>
                %in_1 = loop.load %k[%a0, %a1, %a4, %r0] : memref<2x3x128x32xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<2x3x128x1x128xf32>
            }
          }
        }
      }
    }
  }
  func.return %red : memref<2x3x128x1x128xf32>
}
// CHECK:         %q_1 = loop.view %q : memref<2x3x128x32xf32> -> memref<6x128x32xf32>
// CHECK-NEXT:    %k_1 = loop.view %k : memref<2x3x128x32xf32> -> memref<6x128x32xf32>
// CHECK-NEXT:    %red_1 = loop.view %red : memref<2x3x128x1x128xf32> -> memref<6x128x1x128xf32>
// CHECK-NEXT:    loop.kernel @k_scores ins(%q_1, %k_1 : memref<6x128x32xf32>, memref<6x128x32xf32>) outs(%red_1 : memref<6x128x1x128xf32>) {
// CHECK-NEXT:    loop.for free %a1 < 6 {
// CHECK-NEXT:      loop.for free %a2 < 128 {
// CHECK-NEXT:        loop.for free %a3 < 1 {
// CHECK-NEXT:          loop.for free %a4 < 128 {
// CHECK-NEXT:            %acc = loop.for reduce %r0 < 32 -> f32 {
// CHECK-NEXT:              %in = loop.load %q_1[%a1, %a2, %r0] : memref<6x128x32xf32>
// CHECK-NEXT:              %in_1 = loop.load %k_1[%a1, %a4, %r0] : memref<6x128x32xf32>
// CHECK:                 loop.store %acc, %red_1[%a1, %a2, %a3, %a4] : memref<6x128x1x128xf32>

// -----

func.func @main(%x: memref<2x3x5x16xf32>, %w: memref<2x3x24x16xf32>, %s: memref<2xf32>) -> memref<2x3x5x24xf32> {
  %y = memref.alloc() : memref<2x3x5x24xf32>
  loop.kernel @k_batch_kept ins(%x, %w, %s : memref<2x3x5x16xf32>, memref<2x3x24x16xf32>, memref<2xf32>) outs(%y : memref<2x3x5x24xf32>) {
    loop.for free %a0 < 2 {
      %sv = loop.load %s[%a0] : memref<2xf32>
      loop.for free %a1 < 3 {
        loop.for free %a2 < 5 {
          loop.for free %a3 < 24 {
            %acc = loop.for reduce %r < 16 -> f32 {
              %u = loop.load %x[%a0, %a1, %a2, %r] : memref<2x3x5x16xf32>
              %v = loop.load %w[%a0, %a1, %a3, %r] : memref<2x3x24x16xf32>
              %p = arith.mulf %u, %v : f32
              loop.accumulate add %p : f32
            }
            %t = arith.mulf %acc, %sv : f32
            loop.store %t, %y[%a0, %a1, %a2, %a3] : memref<2x3x5x24xf32>
          }
        }
      }
    }
  }
  func.return %y : memref<2x3x5x24xf32>
}
// CHECK-LABEL: loop.kernel @k_batch_kept
// CHECK-NEXT:    loop.for free %a0 < 2 {
// CHECK-NEXT:      %sv = loop.load %s[%a0] : memref<2xf32>
// CHECK-NEXT:      loop.for free %a1 < 3 {
// CHECK-NEXT:        loop.for free %a2 < 5 {
// CHECK-NEXT:          loop.for free %a3 < 24 {
