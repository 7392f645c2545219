// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-attention' | filecheck %s
// fuse-attention: the scores, softmax and P @ V kernels of an attention become one kernel whose
// reduce is attn.softmax_reduce (the scores' contraction inlined into its score region).
// tests/test_loop_passes.py runs each case before and after on random inputs.

// Causal SDPA, 13 queries and keys (odd), 2 heads: one kernel, the mask in the score epilogue.
func.func @main(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %red = memref.alloc() : memref<1x2x13x1x13xf32>
  loop.kernel @k_red ins(%x, %y : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%red : memref<1x2x13x1x13xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 13 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 13 {
              %acc = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x13x8xf32>
                %in_1 = loop.load %y[%a0, %a1, %a4, %r0] : memref<1x2x13x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x2x13x1x13xf32>
            }
          }
        }
      }
    }
  }
  %0 = memref.alloc() : memref<1x2x13x13xf32>
  loop.kernel @k_op ins(%red : memref<1x2x13x1x13xf32>) outs(%0 : memref<1x2x13x13xf32>) {
    %1 = arith.constant 0xff800000 : f32
    %2 = arith.constant 0.353553385 : f32
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 2 {
        loop.for free %a2_1 < 13 {
          %acc_1 = loop.for reduce %r0_1 < 13 -> f32 {
            %in_3 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x2x13x1x13xf32>
            %3 = arith.cmpi ugt, %r0_1, %a2_1 : index
            %4 = arith.mulf %in_3, %2 : f32
            %in_4 = arith.select %3, %1, %4 : f32
            loop.accumulate max %in_4 : f32
          }
          %acc_2 = loop.for reduce %r0_2 < 13 -> f32 {
            %in_5 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x2x13x1x13xf32>
            %5 = arith.cmpi ugt, %r0_2, %a2_1 : index
            %6 = arith.mulf %in_5, %2 : f32
            %a = arith.select %5, %1, %6 : f32
            %7 = arith.subf %a, %acc_1 : f32
            %in_6 = math.exp %7 : f32
            loop.accumulate add %in_6 : f32
          }
          loop.for free %a3_1 < 13 {
            %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %a3_1] : memref<1x2x13x1x13xf32>
            %8 = arith.cmpi ugt, %a3_1, %a2_1 : index
            %9 = arith.mulf %in_7, %2 : f32
            %a_1 = arith.select %8, %1, %9 : f32
            %10 = arith.subf %a_1, %acc_1 : f32
            %a_2 = math.exp %10 : f32
            %11 = arith.divf %a_2, %acc_2 : f32
            loop.store %11, %0[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x2x13x13xf32>
          }
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%0, %z : memref<1x2x13x13xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
    loop.for free %a0_2 < 1 {
      loop.for free %a1_2 < 2 {
        loop.for free %a2_2 < 13 {
          loop.for free %a3_2 < 8 {
            %acc_3 = loop.for reduce %r0_3 < 13 -> f32 {
              %in_8 = loop.load %0[%a0_2, %a1_2, %a2_2, %r0_3] : memref<1x2x13x13xf32>
              %in_9 = loop.load %z[%a0_2, %a1_2, %r0_3, %a3_2] : memref<1x2x13x8xf32>
              %in_10 = arith.mulf %in_8, %in_9 : f32
              loop.accumulate add %in_10 : f32
            }
            loop.store %acc_3, %scaled_dot_product_attention[%a0_2, %a1_2, %a2_2, %a3_2] : memref<1x2x13x8xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x8xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<1x2x13x8xf32>
// CHECK-NOT:   loop.kernel @k_red
// CHECK-NOT:   loop.kernel @k_op
// CHECK:       loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>)
// CHECK:         %acc = attn.softmax_reduce < 13 -> f32 score {
// CHECK-NEXT:    ^bb0(%s: index):
// CHECK:           loop.for reduce %r0 < 8 -> f32 {
// CHECK-NEXT:        loop.load %x[%a0, %a1, %a2, %r0]
// CHECK-NEXT:        loop.load %y[%a0, %a1, %s, %r0]
// CHECK:           arith.cmpi ugt, %s, %a2 : index
// CHECK:           attn.yield
// CHECK:         } value {
// CHECK-NEXT:    ^bb0(%s_1: index):
// CHECK-NEXT:      loop.load %z[%a0, %a1, %s_1, %a3]
// CHECK:         loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3]
// CHECK-NOT:   loop.kernel
// CHECK:       func.return

// -----

// GQA: 4 query heads over 2 key/value heads (read at head floordiv 2), 7 queries, 9 keys,
// value depth 4, not causal.
func.func @main(%x: memref<1x4x7x8xf32>, %y: memref<1x2x9x8xf32>, %z: memref<1x2x9x4xf32>) -> memref<1x4x7x4xf32> {
  %red = memref.alloc() : memref<1x4x7x1x9xf32>
  loop.kernel @k_red ins(%x, %y : memref<1x4x7x8xf32>, memref<1x2x9x8xf32>) outs(%red : memref<1x4x7x1x9xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 4 {
        loop.for free %a2 < 7 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 9 {
              %acc = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x4x7x8xf32>
                %in_1 = loop.load %y[%a0, %a1 floordiv 2, %a4, %r0] : memref<1x2x9x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x4x7x1x9xf32>
            }
          }
        }
      }
    }
  }
  %0 = memref.alloc() : memref<1x4x7x9xf32>
  loop.kernel @k_op ins(%red : memref<1x4x7x1x9xf32>) outs(%0 : memref<1x4x7x9xf32>) {
    %1 = arith.constant 0.353553385 : f32
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 4 {
        loop.for free %a2_1 < 7 {
          %acc_1 = loop.for reduce %r0_1 < 9 -> f32 {
            %in_3 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x4x7x1x9xf32>
            %in_4 = arith.mulf %in_3, %1 : f32
            loop.accumulate max %in_4 : f32
          }
          %acc_2 = loop.for reduce %r0_2 < 9 -> f32 {
            %in_5 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x4x7x1x9xf32>
            %a = arith.mulf %in_5, %1 : f32
            %2 = arith.subf %a, %acc_1 : f32
            %in_6 = math.exp %2 : f32
            loop.accumulate add %in_6 : f32
          }
          loop.for free %a3_1 < 9 {
            %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %a3_1] : memref<1x4x7x1x9xf32>
            %a_1 = arith.mulf %in_7, %1 : f32
            %3 = arith.subf %a_1, %acc_1 : f32
            %a_2 = math.exp %3 : f32
            %4 = arith.divf %a_2, %acc_2 : f32
            loop.store %4, %0[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x4x7x9xf32>
          }
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<1x4x7x4xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%0, %z : memref<1x4x7x9xf32>, memref<1x2x9x4xf32>) outs(%scaled_dot_product_attention : memref<1x4x7x4xf32>) {
    loop.for free %a0_2 < 1 {
      loop.for free %a1_2 < 4 {
        loop.for free %a2_2 < 7 {
          loop.for free %a3_2 < 4 {
            %acc_3 = loop.for reduce %r0_3 < 9 -> f32 {
              %in_8 = loop.load %0[%a0_2, %a1_2, %a2_2, %r0_3] : memref<1x4x7x9xf32>
              %in_9 = loop.load %z[%a0_2, %a1_2 floordiv 2, %r0_3, %a3_2] : memref<1x2x9x4xf32>
              %in_10 = arith.mulf %in_8, %in_9 : f32
              loop.accumulate add %in_10 : f32
            }
            loop.store %acc_3, %scaled_dot_product_attention[%a0_2, %a1_2, %a2_2, %a3_2] : memref<1x4x7x4xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x4x7x4xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<1x4x7x8xf32>
// CHECK:       loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z
// CHECK:         %acc = attn.softmax_reduce < 9 -> f32 score {
// CHECK:             loop.load %y[%a0, %a1 floordiv 2, %s, %r0]
// CHECK:         } value {
// CHECK-NEXT:    ^bb0(%s_1: index):
// CHECK-NEXT:      loop.load %z[%a0, %a1 floordiv 2, %s_1, %a3]
// CHECK-NOT:   loop.kernel

// -----

// A float attention mask: its load joins the score epilogue.
func.func @main(%x: memref<2x5x8xf32>, %y: memref<2x6x8xf32>, %z: memref<2x6x3xf32>, %u: memref<5x6xf32>) -> memref<2x5x3xf32> {
  %red = memref.alloc() : memref<2x5x1x6xf32>
  loop.kernel @k_red ins(%x, %y : memref<2x5x8xf32>, memref<2x6x8xf32>) outs(%red : memref<2x5x1x6xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 1 {
          loop.for free %a3 < 6 {
            %acc = loop.for reduce %r0 < 8 -> f32 {
              %in = loop.load %x[%a0, %a1, %r0] : memref<2x5x8xf32>
              %in_1 = loop.load %y[%a0, %a3, %r0] : memref<2x6x8xf32>
              %in_2 = arith.mulf %in, %in_1 : f32
              loop.accumulate add %in_2 : f32
            }
            loop.store %acc, %red[%a0, %a1, %a2, %a3] : memref<2x5x1x6xf32>
          }
        }
      }
    }
  }
  %0 = memref.alloc() : memref<2x5x6xf32>
  loop.kernel @k_op ins(%red, %u : memref<2x5x1x6xf32>, memref<5x6xf32>) outs(%0 : memref<2x5x6xf32>) {
    %1 = arith.constant 3.000000e-01 : f32
    loop.for free %a0_1 < 2 {
      loop.for free %a1_1 < 5 {
        %acc_1 = loop.for reduce %r0_1 < 6 -> f32 {
          %in_3 = loop.load %red[%a0_1, %a1_1, 0, %r0_1] : memref<2x5x1x6xf32>
          %in_4 = loop.load %u[%a1_1, %r0_1] : memref<5x6xf32>
          %2 = arith.mulf %in_3, %1 : f32
          %in_5 = arith.addf %2, %in_4 : f32
          loop.accumulate max %in_5 : f32
        }
        %acc_2 = loop.for reduce %r0_2 < 6 -> f32 {
          %in_6 = loop.load %red[%a0_1, %a1_1, 0, %r0_2] : memref<2x5x1x6xf32>
          %in_7 = loop.load %u[%a1_1, %r0_2] : memref<5x6xf32>
          %3 = arith.mulf %in_6, %1 : f32
          %a = arith.addf %3, %in_7 : f32
          %4 = arith.subf %a, %acc_1 : f32
          %in_8 = math.exp %4 : f32
          loop.accumulate add %in_8 : f32
        }
        loop.for free %a2_1 < 6 {
          %in_9 = loop.load %red[%a0_1, %a1_1, 0, %a2_1] : memref<2x5x1x6xf32>
          %in_10 = loop.load %u[%a1_1, %a2_1] : memref<5x6xf32>
          %5 = arith.mulf %in_9, %1 : f32
          %a_1 = arith.addf %5, %in_10 : f32
          %6 = arith.subf %a_1, %acc_1 : f32
          %a_2 = math.exp %6 : f32
          %7 = arith.divf %a_2, %acc_2 : f32
          loop.store %7, %0[%a0_1, %a1_1, %a2_1] : memref<2x5x6xf32>
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<2x5x3xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%0, %z : memref<2x5x6xf32>, memref<2x6x3xf32>) outs(%scaled_dot_product_attention : memref<2x5x3xf32>) {
    loop.for free %a0_2 < 2 {
      loop.for free %a1_2 < 5 {
        loop.for free %a2_2 < 3 {
          %acc_3 = loop.for reduce %r0_3 < 6 -> f32 {
            %in_11 = loop.load %0[%a0_2, %a1_2, %r0_3] : memref<2x5x6xf32>
            %in_12 = loop.load %z[%a0_2, %r0_3, %a2_2] : memref<2x6x3xf32>
            %in_13 = arith.mulf %in_11, %in_12 : f32
            loop.accumulate add %in_13 : f32
          }
          loop.store %acc_3, %scaled_dot_product_attention[%a0_2, %a1_2, %a2_2] : memref<2x5x3xf32>
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<2x5x3xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<2x5x8xf32>
// CHECK:       loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %u, %z
// CHECK:         attn.softmax_reduce < 6 -> f32 score {
// CHECK:           loop.load %u[%a1, %s] : memref<5x6xf32>
// CHECK:           arith.addf
// CHECK-NOT:   loop.kernel

// -----

// Declined: the softmax's store sees another score than its max and sum (not a softmax).
func.func @main(%x: memref<1x4x7x8xf32>, %y: memref<1x2x9x8xf32>, %z: memref<1x2x9x4xf32>) -> memref<1x4x7x4xf32> {
  %red = memref.alloc() : memref<1x4x7x1x9xf32>
  loop.kernel @k_red ins(%x, %y : memref<1x4x7x8xf32>, memref<1x2x9x8xf32>) outs(%red : memref<1x4x7x1x9xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 4 {
        loop.for free %a2 < 7 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 9 {
              %acc = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x4x7x8xf32>
                %in_1 = loop.load %y[%a0, %a1 floordiv 2, %a4, %r0] : memref<1x2x9x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x4x7x1x9xf32>
            }
          }
        }
      }
    }
  }
  %0 = memref.alloc() : memref<1x4x7x9xf32>
  loop.kernel @k_op ins(%red : memref<1x4x7x1x9xf32>) outs(%0 : memref<1x4x7x9xf32>) {
    %1 = arith.constant 0.353553385 : f32
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 4 {
        loop.for free %a2_1 < 7 {
          %acc_1 = loop.for reduce %r0_1 < 9 -> f32 {
            %in_3 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x4x7x1x9xf32>
            %in_4 = arith.mulf %in_3, %1 : f32
            loop.accumulate max %in_4 : f32
          }
          %acc_2 = loop.for reduce %r0_2 < 9 -> f32 {
            %in_5 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x4x7x1x9xf32>
            %a = arith.mulf %in_5, %1 : f32
            %2 = arith.subf %a, %acc_1 : f32
            %in_6 = math.exp %2 : f32
            loop.accumulate add %in_6 : f32
          }
          loop.for free %a3_1 < 9 {
            %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %a3_1] : memref<1x4x7x1x9xf32>
            %a_1 = arith.mulf %in_7, %in_7 : f32
            %3 = arith.subf %a_1, %acc_1 : f32
            %a_2 = math.exp %3 : f32
            %4 = arith.divf %a_2, %acc_2 : f32
            loop.store %4, %0[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x4x7x9xf32>
          }
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<1x4x7x4xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%0, %z : memref<1x4x7x9xf32>, memref<1x2x9x4xf32>) outs(%scaled_dot_product_attention : memref<1x4x7x4xf32>) {
    loop.for free %a0_2 < 1 {
      loop.for free %a1_2 < 4 {
        loop.for free %a2_2 < 7 {
          loop.for free %a3_2 < 4 {
            %acc_3 = loop.for reduce %r0_3 < 9 -> f32 {
              %in_8 = loop.load %0[%a0_2, %a1_2, %a2_2, %r0_3] : memref<1x4x7x9xf32>
              %in_9 = loop.load %z[%a0_2, %a1_2 floordiv 2, %r0_3, %a3_2] : memref<1x2x9x4xf32>
              %in_10 = arith.mulf %in_8, %in_9 : f32
              loop.accumulate add %in_10 : f32
            }
            loop.store %acc_3, %scaled_dot_product_attention[%a0_2, %a1_2, %a2_2, %a3_2] : memref<1x4x7x4xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x4x7x4xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<1x4x7x8xf32>
// CHECK:       loop.kernel @k_red
// CHECK:       loop.kernel @k_op
// CHECK:       loop.kernel @k_scaled_dot_product_attention
// CHECK-NOT:   attn.softmax_reduce

// -----

// Declined: f64 (the flash kernel computes in f32): the GQA case above in f64 keeps its three
// kernels.
func.func @main(%x: memref<1x4x7x8xf64>, %y: memref<1x2x9x8xf64>, %z: memref<1x2x9x4xf64>) -> memref<1x4x7x4xf64> {
  %red = memref.alloc() : memref<1x4x7x1x9xf64>
  loop.kernel @k_red ins(%x, %y : memref<1x4x7x8xf64>, memref<1x2x9x8xf64>) outs(%red : memref<1x4x7x1x9xf64>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 4 {
        loop.for free %a2 < 7 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 9 {
              %acc = loop.for reduce %r0 < 8 -> f64 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x4x7x8xf64>
                %in_1 = loop.load %y[%a0, %a1 floordiv 2, %a4, %r0] : memref<1x2x9x8xf64>
                %in_2 = arith.mulf %in, %in_1 : f64
                loop.accumulate add %in_2 : f64
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x4x7x1x9xf64>
            }
          }
        }
      }
    }
  }
  %0 = memref.alloc() : memref<1x4x7x9xf64>
  loop.kernel @k_op ins(%red : memref<1x4x7x1x9xf64>) outs(%0 : memref<1x4x7x9xf64>) {
    %1 = arith.constant 0.353553385 : f64
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 4 {
        loop.for free %a2_1 < 7 {
          %acc_1 = loop.for reduce %r0_1 < 9 -> f64 {
            %in_3 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x4x7x1x9xf64>
            %in_4 = arith.mulf %in_3, %1 : f64
            loop.accumulate max %in_4 : f64
          }
          %acc_2 = loop.for reduce %r0_2 < 9 -> f64 {
            %in_5 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x4x7x1x9xf64>
            %a = arith.mulf %in_5, %1 : f64
            %2 = arith.subf %a, %acc_1 : f64
            %in_6 = math.exp %2 : f64
            loop.accumulate add %in_6 : f64
          }
          loop.for free %a3_1 < 9 {
            %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %a3_1] : memref<1x4x7x1x9xf64>
            %a_1 = arith.mulf %in_7, %1 : f64
            %3 = arith.subf %a_1, %acc_1 : f64
            %a_2 = math.exp %3 : f64
            %4 = arith.divf %a_2, %acc_2 : f64
            loop.store %4, %0[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x4x7x9xf64>
          }
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<1x4x7x4xf64>
  loop.kernel @k_scaled_dot_product_attention ins(%0, %z : memref<1x4x7x9xf64>, memref<1x2x9x4xf64>) outs(%scaled_dot_product_attention : memref<1x4x7x4xf64>) {
    loop.for free %a0_2 < 1 {
      loop.for free %a1_2 < 4 {
        loop.for free %a2_2 < 7 {
          loop.for free %a3_2 < 4 {
            %acc_3 = loop.for reduce %r0_3 < 9 -> f64 {
              %in_8 = loop.load %0[%a0_2, %a1_2, %a2_2, %r0_3] : memref<1x4x7x9xf64>
              %in_9 = loop.load %z[%a0_2, %a1_2 floordiv 2, %r0_3, %a3_2] : memref<1x2x9x4xf64>
              %in_10 = arith.mulf %in_8, %in_9 : f64
              loop.accumulate add %in_10 : f64
            }
            loop.store %acc_3, %scaled_dot_product_attention[%a0_2, %a1_2, %a2_2, %a3_2] : memref<1x4x7x4xf64>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x4x7x4xf64>
}

// CHECK-LABEL: func.func @main(%x: memref<1x4x7x8xf64>
// CHECK:       loop.kernel @k_red
// CHECK:       loop.kernel @k_op
// CHECK:       loop.kernel @k_scaled_dot_product_attention
// CHECK-NOT:   attn.softmax_reduce

// -----

// Multi-query: the key and value have one head for the two query heads (no head index in
// their loads). The query varies along the heads and the rows, the key along neither: the
// innermost (%a2 after fusion) is the query row and the heads a batch loop. One kernel.
func.func @main(%q: memref<1x2x5x4xf32>, %k: memref<1x1x5x4xf32>, %v: memref<1x1x5x4xf32>) -> memref<1x2x5x4xf32> {
  %red = memref.alloc() : memref<1x2x5x1x5xf32>
  loop.kernel @k_red ins(%q, %k : memref<1x2x5x4xf32>, memref<1x1x5x4xf32>) outs(%red : memref<1x2x5x1x5xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 5 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 5 {
              %acc = loop.for reduce %r0 < 4 -> f32 {
                %in = loop.load %q[%a0, %a1, %a2, %r0] : memref<1x2x5x4xf32>
                %in_1 = loop.load %k[%a0, 0, %a4, %r0] : memref<1x1x5x4xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x2x5x1x5xf32>
            }
          }
        }
      }
    }
  }
  %0 = memref.alloc() : memref<1x2x5x5xf32>
  loop.kernel @k_op ins(%red : memref<1x2x5x1x5xf32>) outs(%0 : memref<1x2x5x5xf32>) {
    %1 = arith.constant 5.000000e-01 : f32
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 2 {
        loop.for free %a2_1 < 5 {
          %acc_1 = loop.for reduce %r0_1 < 5 -> f32 {
            %in_3 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x2x5x1x5xf32>
            %in_4 = arith.mulf %in_3, %1 : f32
            loop.accumulate max %in_4 : f32
          }
          %acc_2 = loop.for reduce %r0_2 < 5 -> f32 {
            %in_5 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x2x5x1x5xf32>
            %a = arith.mulf %in_5, %1 : f32
            %2 = arith.subf %a, %acc_1 : f32
            %in_6 = math.exp %2 : f32
            loop.accumulate add %in_6 : f32
          }
          loop.for free %a3_1 < 5 {
            %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %a3_1] : memref<1x2x5x1x5xf32>
            %a_1 = arith.mulf %in_7, %1 : f32
            %3 = arith.subf %a_1, %acc_1 : f32
            %a_2 = math.exp %3 : f32
            %4 = arith.divf %a_2, %acc_2 : f32
            loop.store %4, %0[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x2x5x5xf32>
          }
        }
      }
    }
  }
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x5x4xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%0, %v : memref<1x2x5x5xf32>, memref<1x1x5x4xf32>) outs(%scaled_dot_product_attention : memref<1x2x5x4xf32>) {
    loop.for free %a0_2 < 1 {
      loop.for free %a1_2 < 2 {
        loop.for free %a2_2 < 5 {
          loop.for free %a3_2 < 4 {
            %acc_3 = loop.for reduce %r0_3 < 5 -> f32 {
              %in_8 = loop.load %0[%a0_2, %a1_2, %a2_2, %r0_3] : memref<1x2x5x5xf32>
              %in_9 = loop.load %v[%a0_2, 0, %r0_3, %a3_2] : memref<1x1x5x4xf32>
              %in_10 = arith.mulf %in_8, %in_9 : f32
              loop.accumulate add %in_10 : f32
            }
            loop.store %acc_3, %scaled_dot_product_attention[%a0_2, %a1_2, %a2_2, %a3_2] : memref<1x2x5x4xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x5x4xf32>
}
// CHECK-LABEL: func.func @main(%q: memref<1x2x5x4xf32>, %k: memref<1x1x5x4xf32>, %v: memref<1x1x5x4xf32>)
// CHECK:         loop.kernel @k_scaled_dot_product_attention ins(%q, %k, %v : memref<1x2x5x4xf32>, memref<1x1x5x4xf32>, memref<1x1x5x4xf32>)
// CHECK:           %acc = attn.softmax_reduce < 5 -> f32 score {
// CHECK:             %in_1 = loop.load %k[%a0, 0, %s, %r0] : memref<1x1x5x4xf32>
// CHECK:             %in_3 = loop.load %v[%a0, 0, %s_1, %a3] : memref<1x1x5x4xf32>
// CHECK-NOT:     loop.kernel

// -----

// Gemma-2's soft-capped attention with a boolean mask tensor of its own (`s.masked_fill(~keep,
// -inf)`, `keep` an i1 input): the mask's loads stay in the score epilogue, which the flash kernel
// evaluates per score, so its i1 buffer is no reason to keep the three kernels (they were, and
// the scores' 4-D batched matmul crashed materialize-mma). One kernel, the tanh and the mask in
// the score epilogue.
func.func @main(%q: memref<1x2x5x4xf32>, %k: memref<1x2x5x4xf32>, %v: memref<1x2x5x4xf32>, %keep: memref<5x5xi1>) -> memref<1x2x5x4xf32> {
  %red = memref.alloc() : memref<1x2x5x1x5xf32>
  loop.kernel @k_red ins(%q, %k : memref<1x2x5x4xf32>, memref<1x2x5x4xf32>) outs(%red : memref<1x2x5x1x5xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 5 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 5 {
              %acc = loop.for reduce %r0 < 4 -> f32 {
                %in = loop.load %q[%a0, %a1, %a2, %r0] : memref<1x2x5x4xf32>
                %in_1 = loop.load %k[%a0, %a1, %a4, %r0] : memref<1x2x5x4xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %red[%a0, %a1, %a2, %a3, %a4] : memref<1x2x5x1x5xf32>
            }
          }
        }
      }
    }
  }
  %softmax = memref.alloc() : memref<1x2x5x5xf32>
  loop.kernel @k_softmax ins(%keep, %red : memref<5x5xi1>, memref<1x2x5x1x5xf32>) outs(%softmax : memref<1x2x5x5xf32>) {
    %in_3 = arith.constant 0xff800000 : f32
    %in_4 = arith.constant 5.000000e+01 : f32
    %in_5 = arith.constant 2.000000e+00 : f32
    loop.for free %a0_1 < 1 {
      loop.for free %a1_1 < 2 {
        loop.for free %a2_1 < 5 {
          %acc_1 = loop.for reduce %r0_1 < 5 -> f32 {
            %in_6 = loop.load %keep[%a2_1, %r0_1] : memref<5x5xi1>
            %in_7 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_1] : memref<1x2x5x1x5xf32>
            %a = arith.divf %in_7, %in_5 : f32
            %a_1 = arith.divf %a, %in_4 : f32
            %a_2 = math.tanh %a_1 : f32
            %c = arith.mulf %a_2, %in_4 : f32
            %in_8 = arith.select %in_6, %c, %in_3 : f32
            loop.accumulate max %in_8 : f32
          }
          %acc_2 = loop.for reduce %r0_2 < 5 -> f32 {
            %in_9 = loop.load %keep[%a2_1, %r0_2] : memref<5x5xi1>
            %in_10 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %r0_2] : memref<1x2x5x1x5xf32>
            %a_3 = arith.divf %in_10, %in_5 : f32
            %a_4 = arith.divf %a_3, %in_4 : f32
            %a_5 = math.tanh %a_4 : f32
            %c_1 = arith.mulf %a_5, %in_4 : f32
            %a_6 = arith.select %in_9, %c_1, %in_3 : f32
            %0 = arith.subf %a_6, %acc_1 : f32
            %in_11 = math.exp %0 : f32
            loop.accumulate add %in_11 : f32
          }
          loop.for free %a3_1 < 5 {
            %in_12 = loop.load %keep[%a2_1, %a3_1] : memref<5x5xi1>
            %in_13 = loop.load %red[%a0_1, %a1_1, %a2_1, 0, %a3_1] : memref<1x2x5x1x5xf32>
            %a_7 = arith.divf %in_13, %in_5 : f32
            %a_8 = arith.divf %a_7, %in_4 : f32
            %a_9 = math.tanh %a_8 : f32
            %c_2 = arith.mulf %a_9, %in_4 : f32
            %a_10 = arith.select %in_12, %c_2, %in_3 : f32
            %1 = arith.subf %a_10, %acc_1 : f32
            %a_11 = math.exp %1 : f32
            %2 = arith.divf %a_11, %acc_2 : f32
            loop.store %2, %softmax[%a0_1, %a1_1, %a2_1, %a3_1] : memref<1x2x5x5xf32>
          }
        }
      }
    }
  }
  %matmul = memref.alloc() : memref<1x2x5x4xf32>
  loop.kernel @k_matmul ins(%softmax, %v : memref<1x2x5x5xf32>, memref<1x2x5x4xf32>) outs(%matmul : memref<1x2x5x4xf32>) {
    loop.for free %a0_2 < 1 {
      loop.for free %a1_2 < 2 {
        loop.for free %a2_2 < 5 {
          loop.for free %a3_2 < 4 {
            %acc_3 = loop.for reduce %r0_3 < 5 -> f32 {
              %in_14 = loop.load %softmax[%a0_2, %a1_2, %a2_2, %r0_3] : memref<1x2x5x5xf32>
              %in_15 = loop.load %v[%a0_2, %a1_2, %r0_3, %a3_2] : memref<1x2x5x4xf32>
              %in_16 = arith.mulf %in_14, %in_15 : f32
              loop.accumulate add %in_16 : f32
            }
            loop.store %acc_3, %matmul[%a0_2, %a1_2, %a2_2, %a3_2] : memref<1x2x5x4xf32>
          }
        }
      }
    }
  }
  func.return %matmul : memref<1x2x5x4xf32>
}
// CHECK-LABEL: func.func @main(%q: memref<1x2x5x4xf32>, %k: memref<1x2x5x4xf32>, %v: memref<1x2x5x4xf32>, %keep: memref<5x5xi1>)
// CHECK-NOT:   loop.kernel @k_red
// CHECK-NOT:   loop.kernel @k_softmax
// CHECK:       loop.kernel @k_matmul ins(%keep, %q, %k, %v : memref<5x5xi1>, memref<1x2x5x4xf32>, memref<1x2x5x4xf32>, memref<1x2x5x4xf32>)
// CHECK:         %acc = attn.softmax_reduce < 5 -> f32 score {
// CHECK-NEXT:    ^bb0(%s: index):
// CHECK:           loop.load %keep[%a2, %s] : memref<5x5xi1>
// CHECK:           loop.for reduce %r0 < 4 -> f32 {
// CHECK:           math.tanh
// CHECK:           arith.select
// CHECK:           attn.yield
// CHECK:         } value {
// CHECK-NOT:   loop.kernel
// CHECK:       func.return

// -----

// Attention by einsum on the (b, s, h, d) layout (axial attention): the scores are a nest over a
// merged b*h axis, and P @ V reads the probabilities at [(b*3 + h) floordiv 3, (b*3 + h) mod 3
// (spelled with floordiv), l, s], not at plain loop indices. The score region's row indices are
// applies of those (reading only b and h, not the replaced reduce's index), folded and simplified
// with the loop bounds: q[b, l, h, e] and k[b, s, h, e], the ins every buffer the body reads.
func.func @main(%q: memref<2x5x3x4xf32>, %k: memref<2x5x3x4xf32>, %v: memref<2x5x3x4xf32>) -> memref<2x5x3x4xf32> {
  %red = memref.alloc() : memref<6x5x1x5xf32>
  loop.kernel @k_red ins(%q, %k : memref<2x5x3x4xf32>, memref<2x5x3x4xf32>) outs(%red : memref<6x5x1x5xf32>) {
    loop.for free %a0 < 6 {
      loop.for free %a1 < 5 {
        loop.for free %a2 < 1 {
          loop.for free %a3 < 5 {
            %acc = loop.for reduce %r0 < 4 -> f32 {
              %in = loop.load %q[%a0 floordiv 3, %a1, %a0 + %a0 floordiv 3 * -3, %r0] : memref<2x5x3x4xf32>
              %in_1 = loop.load %k[%a0 floordiv 3, %a3, %a0 + %a0 floordiv 3 * -3, %r0] : memref<2x5x3x4xf32>
              %in_2 = arith.mulf %in, %in_1 : f32
              loop.accumulate add %in_2 : f32
            }
            loop.store %acc, %red[%a0, %a1, %a2, %a3] : memref<6x5x1x5xf32>
          }
        }
      }
    }
  }
  %softmax = memref.alloc() : memref<2x3x5x5xf32>
  loop.kernel @k_softmax ins(%red : memref<6x5x1x5xf32>) outs(%softmax : memref<2x3x5x5xf32>) {
    loop.for free %a0_1 < 2 {
      loop.for free %a1_1 < 3 {
        loop.for free %a2_1 < 5 {
          %acc_1 = loop.for reduce %r0_1 < 5 -> f32 {
            %in_3 = loop.load %red[%a0_1 * 3 + %a1_1, %a2_1, 0, %r0_1] : memref<6x5x1x5xf32>
            loop.accumulate max %in_3 : f32
          }
          %acc_2 = loop.for reduce %r0_2 < 5 -> f32 {
            %in_4 = loop.load %red[%a0_1 * 3 + %a1_1, %a2_1, 0, %r0_2] : memref<6x5x1x5xf32>
            %0 = arith.subf %in_4, %acc_1 : f32
            %in_5 = math.exp %0 : f32
            loop.accumulate add %in_5 : f32
          }
          loop.for free %a3_1 < 5 {
            %in_6 = loop.load %red[%a0_1 * 3 + %a1_1, %a2_1, 0, %a3_1] : memref<6x5x1x5xf32>
            %1 = arith.subf %in_6, %acc_1 : f32
            %a = math.exp %1 : f32
            %2 = arith.divf %a, %acc_2 : f32
            loop.store %2, %softmax[%a0_1, %a1_1, %a2_1, %a3_1] : memref<2x3x5x5xf32>
          }
        }
      }
    }
  }
  %view = memref.alloc() : memref<2x5x3x4xf32>
  loop.kernel @k_view_1 ins(%softmax, %v : memref<2x3x5x5xf32>, memref<2x5x3x4xf32>) outs(%view : memref<2x5x3x4xf32>) {
    loop.for free %a0_2 < 2 {
      loop.for free %a1_2 < 5 {
        loop.for free %a2_2 < 3 {
          loop.for free %a3_2 < 4 {
            %acc_3 = loop.for reduce %r0_3 < 5 -> f32 {
              %in_7 = loop.load %softmax[(%a0_2 * 3 + %a2_2) floordiv 3, %a0_2 * 3 + %a2_2 + (%a0_2 * 3 + %a2_2) floordiv 3 * -3, %a1_2, %r0_3] : memref<2x3x5x5xf32>
              %in_8 = loop.load %v[(%a0_2 * 3 + %a2_2) floordiv 3, %r0_3, %a0_2 * 3 + %a2_2 + (%a0_2 * 3 + %a2_2) floordiv 3 * -3, %a3_2] : memref<2x5x3x4xf32>
              %in_9 = arith.mulf %in_7, %in_8 : f32
              loop.accumulate add %in_9 : f32
            }
            loop.store %acc_3, %view[%a0_2, %a1_2, %a2_2, %a3_2] : memref<2x5x3x4xf32>
          }
        }
      }
    }
  }
  func.return %view : memref<2x5x3x4xf32>
}
// CHECK-LABEL: func.func @main(%q: memref<2x5x3x4xf32>, %k: memref<2x5x3x4xf32>, %v: memref<2x5x3x4xf32>)
// CHECK-NOT:   loop.kernel @k_red
// CHECK-NOT:   loop.kernel @k_softmax
// CHECK:       loop.kernel @k_view_1 ins(%q, %k, %v : memref<2x5x3x4xf32>, memref<2x5x3x4xf32>, memref<2x5x3x4xf32>)
// CHECK:         %acc = attn.softmax_reduce < 5 -> f32 score {
// CHECK-NEXT:    ^bb0(%s: index):
// CHECK-NOT:       affine.apply
// CHECK:           loop.for reduce %r0 < 4 -> f32 {
// CHECK-NEXT:        loop.load %q[%a0, %a1, %a2, %r0] : memref<2x5x3x4xf32>
// CHECK-NEXT:        loop.load %k[%a0, %s, %a2, %r0] : memref<2x5x3x4xf32>
// CHECK:           attn.yield
// CHECK:         } value {
// CHECK-NEXT:    ^bb0(%s_1: index):
// CHECK-NEXT:      loop.load %v[%a0, %s_1, %a2, %a3] : memref<2x5x3x4xf32>
// CHECK:       loop.store %acc, %view[%a0, %a1, %a2, %a3]
// CHECK-NOT:   loop.kernel
// CHECK:       func.return
