// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(contract-accumulations)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(contract-accumulations)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// contract-accumulations: a product added into a reduction's accumulator (a register array
// loaded and stored at one place, or a kernel.accumulate add of a sum) becomes math.fma; any
// other multiply and add stays as written (NVRTC runs with --fmad=false).

// A register tile's accumulator: one product, then a chain of two (flash attention's P @ V).
kernel.func @k_tile(%x: memref<4x16xf32>, %w: memref<2x16xf32>, %y: memref<4x2xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %zero = arith.constant 0.000000e+00 : f32
  %acc = kernel.alloca : memref<2xf32>
  kernel.store %zero, %acc[0] : memref<2xf32>
  kernel.store %zero, %acc[1] : memref<2xf32>
  kernel.for %k = 0 to 8 step 1 {
    %a = kernel.load %x[%t, %k * 2] : memref<4x16xf32>
    %b = kernel.load %x[%t, %k * 2 + 1] : memref<4x16xf32>
    %w0 = kernel.load %w[0, %k * 2] : memref<2x16xf32>
    %w1 = kernel.load %w[1, %k * 2 + 1] : memref<2x16xf32>
    %p = arith.mulf %a, %w0 : f32
    %s0 = kernel.load %acc[0] : memref<2xf32>
    %s1 = arith.addf %s0, %p : f32
    kernel.store %s1, %acc[0] : memref<2xf32>
    %q0 = arith.mulf %a, %w1 : f32
    %q1 = arith.mulf %b, %w1 : f32
    %r0 = kernel.load %acc[1] : memref<2xf32>
    %r1 = arith.addf %r0, %q0 : f32
    %r2 = arith.addf %r1, %q1 : f32
    kernel.store %r2, %acc[1] : memref<2xf32>
  }
  %o0 = kernel.load %acc[0] : memref<2xf32>
  %o1 = kernel.load %acc[1] : memref<2xf32>
  kernel.store %o0, %y[%t, 0] : memref<4x2xf32>
  kernel.store %o1, %y[%t, 1] : memref<4x2xf32>
}
// CHECK-LABEL: kernel.func @k_tile
// CHECK:         %s0 = kernel.load %acc[0] : memref<2xf32>
// CHECK-NEXT:    %s1 = math.fma %a, %w0, %s0 : f32
// CHECK-NEXT:    kernel.store %s1, %acc[0] : memref<2xf32>
// CHECK-NEXT:    %r0 = kernel.load %acc[1] : memref<2xf32>
// CHECK-NEXT:    %r1 = math.fma %a, %w1, %r0 : f32
// CHECK-NEXT:    %r2 = math.fma %b, %w1, %r1 : f32
// CHECK-NEXT:    kernel.store %r2, %acc[1] : memref<2xf32>
// CHECK-NOT:     arith.mulf

// CUDA-LABEL: void k_tile(
// CUDA:         float s1 = fmaf(a, w0, s0);
// CUDA:         float r1 = fmaf(a, w1, r0);
// CUDA-NEXT:    float r2 = fmaf(b, w1, r1);

// -----

// A kernel.accumulate add of a sum of products (vectorize-access's float4 of squares): each
// addf with a product operand takes it in, the right-hand one first.
kernel.func @k_squares(%x: memref<4x64xf32>, %y: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.for %i = 0 to 32 step 1 -> f32 {
    %a = kernel.load %x[%t, %i * 2] : memref<4x64xf32>
    %b = kernel.load %x[%t, %i * 2 + 1] : memref<4x64xf32>
    %aa = arith.mulf %a, %a : f32
    %bb = arith.mulf %b, %b : f32
    %sum = arith.addf %aa, %bb : f32
    kernel.accumulate add %sum : f32
  }
  kernel.store %s, %y[%t] : memref<4xf32>
}
// CHECK-LABEL: kernel.func @k_squares
// CHECK:         %aa = arith.mulf %a, %a : f32
// CHECK-NEXT:    %sum = math.fma %b, %b, %aa : f32
// CHECK-NEXT:    kernel.accumulate add %sum : f32

// CUDA-LABEL: void k_squares(
// CUDA:         float sum = fmaf(b, b, aa);

// -----

// A kernel.accumulate of a bare product (RMSNorm's sum of squares): the loop's accumulators move
// into a register array first, the max beside the sum keeping its slot and combiner.
kernel.func @k_bare(%x: memref<4x8xf32>, %z: memref<4xf32>, %u: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %p, %q = kernel.for %j = 0 to 8 step 1 -> f32, f32 {
    %b = kernel.load %x[%t, %j] : memref<4x8xf32>
    %bb = arith.mulf %b, %b : f32
    kernel.accumulate add %bb, max %b : f32, f32
  }
  kernel.store %p, %z[%t] : memref<4xf32>
  kernel.store %q, %u[%t] : memref<4xf32>
}
// CHECK-LABEL: kernel.func @k_bare
// CHECK:         %p_regs = kernel.alloca : memref<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    kernel.store %[[ZERO]], %p_regs[0] : memref<2xf32>
// CHECK-NEXT:    %[[NINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    kernel.store %[[NINF]], %p_regs[1] : memref<2xf32>
// CHECK-NEXT:    kernel.for %j = 0 to 8 step 1 {
// CHECK-NEXT:      %b = kernel.load %x[%t, %j] : memref<4x8xf32>
// CHECK-NEXT:      %[[S0:.*]] = kernel.load %p_regs[0] : memref<2xf32>
// CHECK-NEXT:      %[[S1:.*]] = math.fma %b, %b, %[[S0]] : f32
// CHECK-NEXT:      kernel.store %[[S1]], %p_regs[0] : memref<2xf32>
// CHECK-NEXT:      %[[M0:.*]] = kernel.load %p_regs[1] : memref<2xf32>
// CHECK-NEXT:      %[[M1:.*]] = arith.maximumf %[[M0]], %b : f32
// CHECK-NEXT:      kernel.store %[[M1]], %p_regs[1] : memref<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %p = kernel.load %p_regs[0] : memref<2xf32>
// CHECK-NEXT:    %q = kernel.load %p_regs[1] : memref<2xf32>

// CUDA-LABEL: void k_bare(
// CUDA:         float p_regs[2];
// CUDA:         = fmaf(b, b,

// -----

// Declined: an elementwise a + b * c stored to global memory (another kernel may compute it
// again, or read the product rounded); a sum stored into another slot than it was loaded from; a
// product with a second use; a bare product accumulated beside an integer (results of two
// types); a product into a max.
kernel.func @k_declined(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4xf32>, %u: memref<4xf32>, %w: memref<4xi32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1 : i32
  %acc = kernel.alloca : memref<2xf32>
  kernel.store %zero, %acc[0] : memref<2xf32>
  kernel.store %zero, %acc[1] : memref<2xf32>
  kernel.for %i = 0 to 8 step 1 {
    %a = kernel.load %x[%t, %i] : memref<4x8xf32>
    %ab = arith.mulf %a, %a : f32
    %e = arith.addf %a, %ab : f32
    kernel.store %e, %y[%t, %i] : memref<4x8xf32>
    %m = arith.mulf %a, %a : f32
    %s0 = kernel.load %acc[0] : memref<2xf32>
    %s1 = arith.addf %s0, %m : f32
    kernel.store %s1, %acc[1] : memref<2xf32>
    %n = arith.mulf %a, %a : f32
    %r0 = kernel.load %acc[0] : memref<2xf32>
    %r1 = arith.addf %r0, %n : f32
    %r2 = arith.addf %r1, %n : f32
    kernel.store %r2, %acc[0] : memref<2xf32>
  }
  %p, %c = kernel.for %j = 0 to 8 step 1 -> f32, i32 {
    %b = kernel.load %x[%t, %j] : memref<4x8xf32>
    %bb = arith.mulf %b, %b : f32
    kernel.accumulate add %bb, add %one : f32, i32
  }
  %q = kernel.for %k = 0 to 8 step 1 -> f32 {
    %d = kernel.load %x[%t, %k] : memref<4x8xf32>
    %dd = arith.mulf %d, %d : f32
    %ee = arith.addf %dd, %d : f32
    kernel.accumulate max %ee : f32
  }
  kernel.store %p, %z[%t] : memref<4xf32>
  kernel.store %q, %u[%t] : memref<4xf32>
  kernel.store %c, %w[%t] : memref<4xi32>
}
// CHECK-LABEL: kernel.func @k_declined
// CHECK-NOT:     math.fma
// CHECK:         %e = arith.addf %a, %ab : f32
// CHECK:         %s1 = arith.addf %s0, %m : f32
// CHECK:         %r1 = arith.addf %r0, %n : f32
// CHECK-NEXT:    %r2 = arith.addf %r1, %n : f32
// CHECK:         kernel.accumulate add %bb, add %one : f32, i32
// CHECK:         kernel.accumulate max %ee : f32
// CHECK-NOT:     math.fma

// CUDA-LABEL: void k_declined(
// CUDA-NOT:     fmaf
// CUDA:         }
