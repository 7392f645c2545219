// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(accumulate-in-place)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(accumulate-in-place)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// accumulate-in-place: a reduction loop whose results are exactly what its enclosing reduction
// loop accumulates (same combiners) folds straight into one register array of the outer's
// accumulators.

// A chunked dot product with two accumulators (sum and max), the inner results accumulated in
// the other order: each slot keeps its combiner and the outer result's position.
kernel.func @k_chunked(%x: memref<4x64xf32>, %y: memref<4xf32>, %z: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s, %m = kernel.for %ko = 0 to 8 step 1 -> f32, f32 {
    %pm, %ps = kernel.for %ki = 0 to 8 step 1 unroll -> f32, f32 {
      %v = kernel.load %x[%t, %ko * 8 + %ki] : memref<4x64xf32>
      kernel.accumulate max %v, add %v : f32, f32
    }
    kernel.accumulate add %ps, max %pm : f32, f32
  }
  kernel.store %s, %y[%t] : memref<4xf32>
  kernel.store %m, %z[%t] : memref<4xf32>
}
// CHECK-LABEL: kernel.func @k_chunked
// CHECK:         %acc = kernel.alloca : memref<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    kernel.store %[[ZERO]], %acc[0] : memref<2xf32>
// CHECK-NEXT:    %[[NINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    kernel.store %[[NINF]], %acc[1] : memref<2xf32>
// CHECK-NEXT:    kernel.for %ko = 0 to 8 step 1 {
// CHECK-NEXT:      kernel.for %ki = 0 to 8 step 1 unroll {
// CHECK-NEXT:        %v = kernel.load %x[%t, %ko * 8 + %ki] : memref<4x64xf32>
// CHECK-NEXT:        %[[M0:.*]] = kernel.load %acc[1] : memref<2xf32>
// CHECK-NEXT:        %[[M1:.*]] = arith.maximumf %[[M0]], %v : f32
// CHECK-NEXT:        kernel.store %[[M1]], %acc[1] : memref<2xf32>
// CHECK-NEXT:        %[[S0:.*]] = kernel.load %acc[0] : memref<2xf32>
// CHECK-NEXT:        %[[S1:.*]] = arith.addf %[[S0]], %v : f32
// CHECK-NEXT:        kernel.store %[[S1]], %acc[0] : memref<2xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = kernel.load %acc[0] : memref<2xf32>
// CHECK-NEXT:    %m = kernel.load %acc[1] : memref<2xf32>
// CHECK-NEXT:    kernel.store %s, %y[%t] : memref<4xf32>
// CHECK-NEXT:    kernel.store %m, %z[%t] : memref<4xf32>

// CUDA-LABEL: void k_chunked(
// CUDA:         float acc[2];
// CUDA-NOT:     float pm
// CUDA:         for (int ko = 0; ko < 8; ko++) {
// CUDA:           for (int ki = 0; ki < 8; ki++) {
// CUDA:         float s = acc[0];

// -----

// Left alone: the outer loop also folds something that is not the inner loop's result (the
// rescaled partial), and a combiner differs (the inner max feeds an outer add).
kernel.func @k_kept(%x: memref<4x64xf32>, %y: memref<4xf32>, %z: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.for %ko = 0 to 8 step 1 -> f32 {
    %p = kernel.for %ki = 0 to 8 step 1 -> f32 {
      %v = kernel.load %x[%t, %ko * 8 + %ki] : memref<4x64xf32>
      kernel.accumulate add %v : f32
    }
    %q = arith.mulf %p, %p : f32
    kernel.accumulate add %q : f32
  }
  %m = kernel.for %ko = 0 to 8 step 1 -> f32 {
    %p = kernel.for %ki = 0 to 8 step 1 -> f32 {
      %v = kernel.load %x[%t, %ko * 8 + %ki] : memref<4x64xf32>
      kernel.accumulate max %v : f32
    }
    kernel.accumulate add %p : f32
  }
  kernel.store %s, %y[%t] : memref<4xf32>
  kernel.store %m, %z[%t] : memref<4xf32>
}
// CHECK-LABEL: kernel.func @k_kept
// CHECK-NOT:     kernel.alloca
// CHECK:         %s = kernel.for %ko = 0 to 8 step 1 -> f32 {
// CHECK:         %m = kernel.for %{{.*}} = 0 to 8 step 1 -> f32 {
