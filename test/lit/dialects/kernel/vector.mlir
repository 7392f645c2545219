// RUN: dpl-opt %s | dpl-opt | filecheck %s
// RUN: dpl-translate --to-cuda %s | filecheck %s --check-prefix=CUDA
// float4 accesses: `vector 4` loads/stores of vector<4xf32>, lanes by kernel.extract/kernel.pack.

kernel.func @k_vec(%x: memref<4x64xf32>, %y: memref<4x64xf32>) grid [4, 1, 1] block [16, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  %v = kernel.load %x[%b, %t * 4] vector 4 : memref<4x64xf32>
  kernel.store %v, %s[%t * 4] vector 4 : memref<64xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %s[60 - %t * 4] vector 4 : memref<64xf32, #kernel.smem>
  %e0 = kernel.extract %w[0] : vector<4xf32>
  %e1 = kernel.extract %w[1] : vector<4xf32>
  %e2 = kernel.extract %w[2] : vector<4xf32>
  %e3 = kernel.extract %w[3] : vector<4xf32>
  %p = kernel.pack %e3, %e2, %e1, %e0 : vector<4xf32>
  kernel.store %p, %y[%b, %t * 4] vector 4 : memref<4x64xf32>
}

// CHECK-LABEL: kernel.func @k_vec
// CHECK:         %v = kernel.load %x[%b, %t * 4] vector 4 : memref<4x64xf32>
// CHECK-NEXT:    kernel.store %v, %s[%t * 4] vector 4 : memref<64xf32, #kernel.smem>
// CHECK:         %e3 = kernel.extract %w[3] : vector<4xf32>
// CHECK-NEXT:    %p = kernel.pack %e3, %e2, %e1, %e0 : vector<4xf32>
// CHECK-NEXT:    kernel.store %p, %y[%b, %t * 4] vector 4 : memref<4x64xf32>

// CUDA:      float4 v = *reinterpret_cast<const float4*>(&x[b * 64 + t * 4]);
// CUDA-NEXT: *reinterpret_cast<float4*>(&s[t * 4]) = v;
// CUDA:      float e3 = w.w;
// CUDA-NEXT: float4 p = make_float4(e3, e2, e1, e0);
// CUDA-NEXT: *reinterpret_cast<float4*>(&y[b * 64 + t * 4]) = p;
