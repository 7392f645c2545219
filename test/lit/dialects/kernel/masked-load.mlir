// RUN: dpl-opt %s | dpl-opt | filecheck %s
// RUN: dpl-translate --to-cuda %s | filecheck %s --check-prefix=CUDA
// Masked loads, `kernel.load ... if %in`: the element (or float4) where %in holds, 0 elsewhere.
// The CUDA is a predicated load: the value starts at 0 and the load runs under `if`, so nothing
// waits for it before its first use (a select after the load would).

kernel.func @k_masked(%x: memref<37x8xf32>, %y: memref<64x8xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %c37 = arith.constant 37 : index
  %c36 = arith.constant 36 : index
  %in = arith.cmpi ult, %t, %c37 : index
  %r = arith.minsi %t, %c36 : index
  %v = kernel.load %x[%r, 0] vector 4 if %in : memref<37x8xf32>
  %w = kernel.load %x[%r, 4] if %in : memref<37x8xf32>
  kernel.store %v, %y[%t, 0] vector 4 : memref<64x8xf32>
  kernel.store %w, %y[%t, 4] : memref<64x8xf32>
  kernel.store %w, %y[%t, 5] : memref<64x8xf32>
  kernel.store %w, %y[%t, 6] : memref<64x8xf32>
  kernel.store %w, %y[%t, 7] : memref<64x8xf32>
}

// CHECK-LABEL: kernel.func @k_masked
// CHECK:         %v = kernel.load %x[%r, 0] vector 4 if %in : memref<37x8xf32>
// CHECK-NEXT:    %w = kernel.load %x[%r, 4] if %in : memref<37x8xf32>

// CUDA:      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
// CUDA-NEXT: if (in) v = *reinterpret_cast<const float4*>(&x[r * 8]);
// CUDA-NEXT: float w = 0.0f;
// CUDA-NEXT: if (in) w = x[r * 8 + 4];
