// RUN: dpl-opt %s | dpl-opt | filecheck %s --check-prefix=IR
// RUN: dpl-translate --to-cuda %s | filecheck %s
// kernel.atomic: split-K partials folded into a global element; add is atomicAdd, float max/min a
// helper of one native integer atomic (atomicMax on the signed bits of a value with the sign bit
// clear, atomicMin on the unsigned bits of one with it set; a NaN skipped).

kernel.func @k_atomic(%x: memref<64xf32>, %y: memref<4x4xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<64xf32>
  kernel.atomic add %v, %y[%t floordiv 16, %t mod 4] : memref<4x4xf32>
  kernel.atomic max %v, %y[%t floordiv 16, %t mod 4] : memref<4x4xf32>
}

// IR:      kernel.atomic add %v, %y[%t floordiv 16, %t mod 4] : memref<4x4xf32>
// IR-NEXT: kernel.atomic max %v, %y[%t floordiv 16, %t mod 4] : memref<4x4xf32>

// CHECK:      __device__ __forceinline__ void dpl_atomic_max(float* addr, float v) {
// CHECK-NEXT:     if (isnan(v)) return;
// CHECK-NEXT:     int bits = __float_as_int(v);
// CHECK-NEXT:     if (bits >= 0) atomicMax(reinterpret_cast<int*>(addr), bits);
// CHECK-NEXT:     else atomicMin(reinterpret_cast<unsigned int*>(addr), static_cast<unsigned int>(bits));
// CHECK-NOT:      atomicCAS
// CHECK:      void k_atomic(const float* __restrict__ x, float* __restrict__ y) {
// CHECK:          atomicAdd(&y[t / 16 * 4 + t % 4], v);
// CHECK-NEXT:     dpl_atomic_max(&y[t / 16 * 4 + t % 4], v);

// A 64-bit integer sum (a count split over blocks): CUDA's atomicAdd takes unsigned long long
// only, so the signed value is added as its two's-complement bits (the same sum, wrapped).
kernel.func @k_atomic_i64(%x: memref<64xi64>, %y: memref<4xi64>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<64xi64>
  kernel.atomic add %v, %y[%t mod 4] : memref<4xi64>
  kernel.atomic max %v, %y[%t mod 4] : memref<4xi64>
}

// CHECK:      void k_atomic_i64(const long long* __restrict__ x, long long* __restrict__ y) {
// CHECK:          atomicAdd(reinterpret_cast<unsigned long long*>(&y[t % 4]), static_cast<unsigned long long>(v));
// CHECK-NEXT:     atomicMax(&y[t % 4], v);
