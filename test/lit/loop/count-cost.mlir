// RUN: dpl-opt %s --split-input-file --pass-pipeline='count-cost' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='count-cost,split-nests' | filecheck %s --check-prefix=NESTS
// RUN: dpl-opt %s --split-input-file --pass-pipeline='count-cost,split-epilogue' | filecheck %s --check-prefix=EPI
// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-launches' | filecheck %s --check-prefix=FUSE
// count-cost records each loop kernel's flops (float ops times the trips around them, each
// accumulated operand one, constants none) and bytes (its distinct ins and outs, each once) as
// kernel.flops / kernel.bytes; split-nests and split-epilogue give each part the count of its own
// nests, fuse-launches sums the counts of what it fuses.

// One nest: 8 x 4 multiplies and 8 x 4 accumulated operands; x (128 bytes) and s (32).
func.func @main(%x: memref<8x4xf32>) -> memref<8xf32> {
  %s = memref.alloc() : memref<8xf32>
  loop.kernel @k_sum ins(%x : memref<8x4xf32>) outs(%s : memref<8xf32>) {
    loop.for free %i < 8 {
      %acc = loop.for reduce %j < 4 -> f32 {
        %v = loop.load %x[%i, %j] : memref<8x4xf32>
        %sq = arith.mulf %v, %v : f32
        loop.accumulate add %sq : f32
      }
      loop.store %acc, %s[%i] : memref<8xf32>
    }
  }
  func.return %s : memref<8xf32>
}

// CHECK-LABEL: loop.kernel @k_sum
// CHECK:         } {kernel.flops = 64 : i64, kernel.bytes = 160 : i64}
// NESTS-LABEL:   loop.kernel @k_sum
// NESTS:         } {kernel.flops = 64 : i64, kernel.bytes = 160 : i64}

// -----

// Two nests (a concat): 4 x 5 negations; split-nests gives each part its own count.
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

// CHECK-LABEL: loop.kernel @k_cat
// CHECK:         } {kernel.flops = 20 : i64, kernel.bytes = 256 : i64}
// NESTS-LABEL:   loop.kernel @k_cat ins(%x : memref<4x3xf32>)
// NESTS:         } {kernel.apart = "k_cat", kernel.flops = 0 : i64, kernel.bytes = 176 : i64}
// NESTS-NEXT:    loop.kernel @k_cat_part1 ins(%y : memref<4x5xf32>)
// NESTS:         } {kernel.apart = "k_cat", kernel.flops = 20 : i64, kernel.bytes = 208 : i64}

// -----

// silu(g) * (x @ w^T): split-epilogue moves the 2 x 4 x 8 x 16 flops of the contraction to
// @k_mul_acc and leaves the 5 x 4 x 8 of the epilogue (negf, exp, addf, divf, mulf) in @k_mul.
func.func @main(%g: memref<4x8xf64>, %x: memref<4x16xf64>, %w: memref<8x16xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_mul ins(%g, %x, %w : memref<4x8xf64>, memref<4x16xf64>, memref<8x16xf64>) outs(%out : memref<4x8xf64>) {
    %one = arith.constant 1.000000e+00 : f64
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %gv = loop.load %g[%i, %j] : memref<4x8xf64>
        %n = arith.negf %gv : f64
        %e = math.exp %n : f64
        %d = arith.addf %one, %e : f64
        %s = arith.divf %gv, %d : f64
        %acc = loop.for reduce %r < 16 -> f64 {
          %a = loop.load %x[%i, %r] : memref<4x16xf64>
          %b = loop.load %w[%j, %r] : memref<8x16xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        %v = arith.mulf %s, %acc : f64
        loop.store %v, %out[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %out : memref<4x8xf64>
}

// CHECK-LABEL: loop.kernel @k_mul
// CHECK:         } {kernel.flops = 1184 : i64, kernel.bytes = 2048 : i64}
// EPI-LABEL:     loop.kernel @k_mul_acc
// EPI:           } {kernel.flops = 1024 : i64, kernel.bytes = 1792 : i64}
// EPI-NEXT:      loop.kernel @k_mul ins(%g, %mul_acc
// EPI:           } {kernel.flops = 160 : i64, kernel.bytes = 768 : i64}

// -----

// Kernel IR: count-cost leaves a kernel.func alone (declined: no loop nest to count);
// fuse-launches sums the counts of the kernels it fuses.
kernel.func @k_a(%x: memref<32xf32>, %a: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf32>
  %w = arith.mulf %v, %v : f32
  kernel.store %w, %a[%t] : memref<32xf32>
} {kernel.flops = 32 : i64, kernel.bytes = 256 : i64}
kernel.func @k_b(%x: memref<32xf32>, %b: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf32>
  %w = arith.addf %v, %v : f32
  kernel.store %w, %b[%t] : memref<32xf32>
} {kernel.flops = 32 : i64, kernel.bytes = 256 : i64}
func.func @main(%x: memref<32xf32>) -> (memref<32xf32>, memref<32xf32>) {
  %a = memref.alloc() : memref<32xf32>
  kernel.launch @k_a(%x, %a) : memref<32xf32>, memref<32xf32>
  %b = memref.alloc() : memref<32xf32>
  kernel.launch @k_b(%x, %b) : memref<32xf32>, memref<32xf32>
  func.return %a, %b : memref<32xf32>, memref<32xf32>
}

// CHECK-LABEL: kernel.func @k_a(
// CHECK:         } {kernel.flops = 32 : i64, kernel.bytes = 256 : i64}
// FUSE-LABEL:    kernel.func @k_a__k_b(
// FUSE:          } {kernel.fused = ["k_a", "k_b"], kernel.flops = 64 : i64, kernel.bytes = 512 : i64}
