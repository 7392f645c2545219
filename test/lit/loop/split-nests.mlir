// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-nests' | filecheck %s
// A concat kernel (one nest per operand) becomes one kernel per nest; a one-nest kernel stays.

func.func @main(%x: memref<4x3xf32>, %y: memref<4x5xf32>) -> memref<4x8xf32> {
  %cat = memref.alloc() : memref<4x8xf32>
  loop.kernel @k_cat ins(%x, %y : memref<4x3xf32>, memref<4x5xf32>) outs(%cat : memref<4x8xf32>) {
    loop.for free %a0 < 4 {
      loop.for free %a1 < 3 {
        %in = loop.load %x[%a0, %a1] : memref<4x3xf32>
        loop.store %in, %cat[%a0, %a1] : memref<4x8xf32>
      }
    }
    loop.for free %a0_1 < 4 {
      loop.for free %a1_1 < 5 {
        %a = loop.load %y[%a0_1, %a1_1] : memref<4x5xf32>
        %in_1 = arith.negf %a : f32
        loop.store %in_1, %cat[%a0_1, %a1_1 + 3] : memref<4x8xf32>
      }
    }
  }
  func.return %cat : memref<4x8xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<4x3xf32>, %y: memref<4x5xf32>)
// CHECK:         loop.kernel @k_cat ins(%x : memref<4x3xf32>) outs(%cat : memref<4x8xf32>) {
// CHECK-NEXT:      loop.for free %a0 < 4 {
// CHECK-NEXT:        loop.for free %a1 < 3 {
// CHECK-NEXT:          %in = loop.load %x[%a0, %a1] : memref<4x3xf32>
// CHECK-NEXT:          loop.store %in, %cat[%a0, %a1] : memref<4x8xf32>
// CHECK:         loop.kernel @k_cat_part1 ins(%y : memref<4x5xf32>) outs(%cat : memref<4x8xf32>) {
// CHECK-NEXT:      loop.for free %a0_1 < 4 {
// CHECK-NEXT:        loop.for free %a1_1 < 5 {
// CHECK-NEXT:          %a = loop.load %y[%a0_1, %a1_1] : memref<4x5xf32>
// CHECK-NEXT:          %in_1 = arith.negf %a : f32
// CHECK-NEXT:          loop.store %in_1, %cat[%a0_1, %a1_1 + 3] : memref<4x8xf32>
// CHECK:         func.return %cat

// -----

func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  loop.kernel @k_one ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    loop.for free %i < 4 {
      %v = loop.load %x[%i] : memref<4xf32>
      loop.store %v, %y[%i] : memref<4xf32>
    }
  }
  func.return %y : memref<4xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<4xf32>)
// CHECK:         loop.kernel @k_one ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
// CHECK-NOT:     loop.kernel

// -----

// The nests of a concat write disjoint boxes of %cat and read only %x and %y: each part is
// marked {kernel.apart = "k_cat"} (fuse-launches may run them at once).
func.func @main(%x: memref<4x3xf32>, %y: memref<2x8xf32>) -> memref<6x8xf32> {
  %cat = memref.alloc() : memref<6x8xf32>
  loop.kernel @k_cat ins(%x, %y : memref<4x3xf32>, memref<2x8xf32>) outs(%cat : memref<6x8xf32>) {
    loop.for free %a0 < 4 {
      loop.for free %a1 < 3 {
        %in = loop.load %x[%a0, %a1] : memref<4x3xf32>
        loop.store %in, %cat[%a0, %a1] : memref<6x8xf32>
      }
    }
    %zero = arith.constant 0.0 : f32
    loop.for free %a0_1 < 4 {
      loop.for free %a1_1 < 5 {
        loop.store %zero, %cat[%a0_1, %a1_1 + 3] : memref<6x8xf32>
      }
    }
    loop.for free %a0_2 < 2 {
      loop.for free %a1_2 < 8 {
        %in_2 = loop.load %y[%a0_2, %a1_2] : memref<2x8xf32>
        loop.store %in_2, %cat[%a0_2 + 4, %a1_2] : memref<6x8xf32>
      }
    }
  }
  func.return %cat : memref<6x8xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<4x3xf32>, %y: memref<2x8xf32>)
// CHECK:         loop.kernel @k_cat ins(%x : memref<4x3xf32>)
// CHECK:         } {kernel.apart = "k_cat"}
// CHECK:         loop.kernel @k_cat_part1 outs(%cat : memref<6x8xf32>)
// CHECK:         } {kernel.apart = "k_cat"}
// CHECK:         loop.kernel @k_cat_part2 ins(%y : memref<2x8xf32>)
// CHECK:         } {kernel.apart = "k_cat"}

// -----

// Declined: the second nest overwrites part of the first's box (they must run in order), and
// in the next case the second reads what the first wrote.
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %o = memref.alloc() : memref<4xf32>
  loop.kernel @k_o ins(%x : memref<4xf32>) outs(%o : memref<4xf32>) {
    loop.for free %i < 4 {
      %v = loop.load %x[%i] : memref<4xf32>
      loop.store %v, %o[%i] : memref<4xf32>
    }
    loop.for free %j < 2 {
      %w = loop.load %x[%j] : memref<4xf32>
      loop.store %w, %o[%j + 2] : memref<4xf32>
    }
  }
  func.return %o : memref<4xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<4xf32>) -> memref<4xf32>
// CHECK-NOT:     kernel.apart
// CHECK:         func.return

// -----

func.func @main(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  loop.kernel @k_r ins(%x : memref<4xf32>) outs(%a, %b : memref<4xf32>, memref<4xf32>) {
    loop.for free %i < 4 {
      %v = loop.load %x[%i] : memref<4xf32>
      loop.store %v, %a[%i] : memref<4xf32>
    }
    loop.for free %j < 4 {
      %w = loop.load %a[%j] : memref<4xf32>
      loop.store %w, %b[%j] : memref<4xf32>
    }
  }
  func.return %a, %b : memref<4xf32>, memref<4xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// CHECK-NOT:     kernel.apart
// CHECK:         func.return

// -----

// A scalar computed outside the nests (fuse-loops hoists a splat times 2) is copied into each
// part that uses it, with what it uses: the kernel still splits (it once ran on one thread).
func.func @main(%x: memref<4xf32>) -> memref<8xf32> {
  %o = memref.alloc() : memref<8xf32>
  loop.kernel @k_s ins(%x : memref<4xf32>) outs(%o : memref<8xf32>) {
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %z2 = arith.mulf %zero, %two : f32
    loop.for free %i < 4 {
      %v = loop.load %x[%i] : memref<4xf32>
      loop.store %v, %o[%i] : memref<8xf32>
    }
    loop.for free %j < 4 {
      loop.store %z2, %o[%j + 4] : memref<8xf32>
    }
  }
  func.return %o : memref<8xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<4xf32>) -> memref<8xf32>
// CHECK:         loop.kernel @k_s ins(%x : memref<4xf32>) outs(%o : memref<8xf32>) {
// CHECK-NEXT:      loop.for free %i < 4 {
// CHECK:         loop.kernel @k_s_part1 outs(%o : memref<8xf32>) {
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %z2 = arith.mulf %zero, %two : f32
// CHECK-NEXT:      loop.for free %j < 4 {

// -----

// A nest that folds with loop.atomic writes its buffer (its part takes it as an out); where an
// atomic lands is data, so the parts are not marked apart.
func.func @main(%s: memref<6xf32>, %i: memref<6xi64>) -> (memref<4xf32>, memref<6xf32>) {
  %o = memref.alloc() : memref<4xf32>
  %c = memref.alloc() : memref<6xf32>
  loop.kernel @k_two ins(%s, %i : memref<6xf32>, memref<6xi64>) outs(%o, %c : memref<4xf32>, memref<6xf32>) {
    loop.for free %a0 < 6 {
      %id = loop.load %i[%a0] : memref<6xi64>
      %at = arith.index_cast %id : i64 to index
      %v = loop.load %s[%a0] : memref<6xf32>
      loop.atomic add %v, %o[%at] : memref<4xf32>
    }
    loop.for free %a1 < 6 {
      %w = loop.load %s[%a1] : memref<6xf32>
      loop.store %w, %c[%a1] : memref<6xf32>
    }
  }
  func.return %o, %c : memref<4xf32>, memref<6xf32>
}
// CHECK-LABEL: func.func @main(%s: memref<6xf32>, %i: memref<6xi64>)
// CHECK:         loop.kernel @k_two ins(%s, %i : memref<6xf32>, memref<6xi64>) outs(%o : memref<4xf32>) {
// CHECK:           loop.atomic add %v, %o[%at] : memref<4xf32>
// CHECK:         loop.kernel @k_two_part1 ins(%s : memref<6xf32>) outs(%c : memref<6xf32>) {
// CHECK-NOT:     kernel.apart

// -----

// A stack of a mean and a sum: fuse-loops hoisted each reduction out of the nest that stores
// it. A top-level reduction is no nest: each part takes the reduction (and the scale) it uses
// and the buffer that reads.
func.func @main(%x: memref<8x10xf32>, %y: memref<8x10xf32>) -> memref<2xf32> {
  %stack = memref.alloc() : memref<2xf32>
  loop.kernel @k_stack ins(%y, %x : memref<8x10xf32>, memref<8x10xf32>) outs(%stack : memref<2xf32>) {
    %acc = loop.for reduce %r0 < 8 -> f32 {
      %s = loop.for reduce %r1 < 10 -> f32 {
        %in = loop.load %x[%r0, %r1] : memref<8x10xf32>
        loop.accumulate add %in : f32
      }
      loop.accumulate add %s : f32
    }
    %1 = arith.constant 1.250000e-02 : f32
    %in_1 = arith.mulf %acc, %1 : f32
    loop.for free %a0 < 1 {
      loop.store %in_1, %stack[%a0] : memref<2xf32>
    }
    %acc_1 = loop.for reduce %r0_1 < 8 -> f32 {
      %s_1 = loop.for reduce %r1_1 < 10 -> f32 {
        %in_2 = loop.load %y[%r0_1, %r1_1] : memref<8x10xf32>
        loop.accumulate add %in_2 : f32
      }
      loop.accumulate add %s_1 : f32
    }
    loop.for free %a0_1 < 1 {
      loop.store %acc_1, %stack[%a0_1 + 1] : memref<2xf32>
    }
  }
  func.return %stack : memref<2xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<8x10xf32>, %y: memref<8x10xf32>)
// CHECK:         loop.kernel @k_stack ins(%x : memref<8x10xf32>) outs(%stack : memref<2xf32>) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 8 -> f32 {
// CHECK:             loop.load %x[%r0, %r1]
// CHECK:           %{{.*}} = arith.constant 1.250000e-02 : f32
// CHECK-NEXT:      %in_1 = arith.mulf %acc, %{{.*}} : f32
// CHECK-NEXT:      loop.for free %a0 < 1 {
// CHECK-NEXT:        loop.store %in_1, %stack[%a0]
// CHECK:         loop.kernel @k_stack_part1 ins(%y : memref<8x10xf32>) outs(%stack : memref<2xf32>) {
// CHECK-NEXT:      %acc_1 = loop.for reduce %r0_1 < 8 -> f32 {
// CHECK:             loop.load %y[%r0_1, %r1_1]
// CHECK:           loop.for free %a0_1 < 1 {
// CHECK-NEXT:        loop.store %acc_1, %stack[%a0_1 + 1]
// CHECK-NOT:     loop.kernel

// -----

// One nest after a top-level reduction is one nest: the kernel stays whole (the reduction
// was once taken for a second nest and split off with no outs).
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  loop.kernel @k_keep ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    %acc = loop.for reduce %r < 4 -> f32 {
      %v = loop.load %x[%r] : memref<4xf32>
      loop.accumulate add %v : f32
    }
    loop.for free %i < 4 {
      loop.store %acc, %y[%i] : memref<4xf32>
    }
  }
  func.return %y : memref<4xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<4xf32>)
// CHECK:         loop.kernel @k_keep
// CHECK-NOT:     loop.kernel
