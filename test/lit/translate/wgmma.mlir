// RUN: dpl-translate --to-cuda %s | filecheck %s
// RUN: dpl-translate --manifest %s | filecheck %s --check-prefix=MANIFEST
// sm_90a: one warpgroup computes C (64x128) = A (64x32) * B (128x32)^T in 3xTF32 on wgmma: each
// thread loads float4s of A and B, splits them into tf32 hi and lo halves stored K-major into
// 128-byte-swizzled shared memory, fences them to the async proxy, then the warpgroup runs one
// accumulation chain (the first MMA overwriting: scale-d = 0): lo*hi and hi*lo of each of the 4
// K-steps of 8, then their hi*hi, and stores its accumulator fragment.

kernel.func @k_wgmma_gemm(%a: memref<64x32xf32>, %b: memref<128x32xf32>, %c: memref<64x128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 50176 {
  %zero = arith.constant 0.0 : f32
  %t = kernel.thread_id x
  %a_hi = kernel.smem dynamic offset 0 : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %a_lo = kernel.smem dynamic offset 8192 : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %b_hi = kernel.smem dynamic offset 16384 : memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  %b_lo = kernel.smem dynamic offset 32768 : memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  kernel.for %i = 0 to 4 step 1 unroll {
    %v = kernel.load %a[(%t + %i * 128) floordiv 8, (%t + %i * 128) mod 8 * 4] vector 4 : memref<64x32xf32>
    %v0 = kernel.extract %v[0] : vector<4xf32>
    %v1 = kernel.extract %v[1] : vector<4xf32>
    %v2 = kernel.extract %v[2] : vector<4xf32>
    %v3 = kernel.extract %v[3] : vector<4xf32>
    %h0 = mma.tf32 %v0 : f32
    %h1 = mma.tf32 %v1 : f32
    %h2 = mma.tf32 %v2 : f32
    %h3 = mma.tf32 %v3 : f32
    %r0 = arith.subf %v0, %h0 : f32
    %r1 = arith.subf %v1, %h1 : f32
    %r2 = arith.subf %v2, %h2 : f32
    %r3 = arith.subf %v3, %h3 : f32
    %l0 = mma.tf32 %r0 : f32
    %l1 = mma.tf32 %r1 : f32
    %l2 = mma.tf32 %r2 : f32
    %l3 = mma.tf32 %r3 : f32
    %hi = kernel.pack %h0, %h1, %h2, %h3 : vector<4xf32>
    %lo = kernel.pack %l0, %l1, %l2, %l3 : vector<4xf32>
    kernel.store %hi, %a_hi[(%t + %i * 128) floordiv 8, (%t + %i * 128) mod 8 * 4] vector 4 : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
    kernel.store %lo, %a_lo[(%t + %i * 128) floordiv 8, (%t + %i * 128) mod 8 * 4] vector 4 : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  }
  kernel.for %i = 0 to 8 step 1 unroll {
    %v = kernel.load %b[(%t + %i * 128) floordiv 8, (%t + %i * 128) mod 8 * 4] vector 4 : memref<128x32xf32>
    %v0 = kernel.extract %v[0] : vector<4xf32>
    %v1 = kernel.extract %v[1] : vector<4xf32>
    %v2 = kernel.extract %v[2] : vector<4xf32>
    %v3 = kernel.extract %v[3] : vector<4xf32>
    %h0 = mma.tf32 %v0 : f32
    %h1 = mma.tf32 %v1 : f32
    %h2 = mma.tf32 %v2 : f32
    %h3 = mma.tf32 %v3 : f32
    %r0 = arith.subf %v0, %h0 : f32
    %r1 = arith.subf %v1, %h1 : f32
    %r2 = arith.subf %v2, %h2 : f32
    %r3 = arith.subf %v3, %h3 : f32
    %l0 = mma.tf32 %r0 : f32
    %l1 = mma.tf32 %r1 : f32
    %l2 = mma.tf32 %r2 : f32
    %l3 = mma.tf32 %r3 : f32
    %hi = kernel.pack %h0, %h1, %h2, %h3 : vector<4xf32>
    %lo = kernel.pack %l0, %l1, %l2, %l3 : vector<4xf32>
    kernel.store %hi, %b_hi[(%t + %i * 128) floordiv 8, (%t + %i * 128) mod 8 * 4] vector 4 : memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
    kernel.store %lo, %b_lo[(%t + %i * 128) floordiv 8, (%t + %i * 128) mod 8 * 4] vector 4 : memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  }
  mma.fence_proxy_async
  kernel.barrier
  %acc = kernel.alloca : memref<64xf32>
  mma.wgmma_fence
  mma.wgmma m64n128k8 overwrite %acc, %a_lo[0, 0], %b_hi[0, 0] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  mma.wgmma m64n128k8 %acc, %a_hi[0, 0], %b_lo[0, 0] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  kernel.for %kk = 1 to 4 step 1 unroll {
    mma.wgmma m64n128k8 %acc, %a_lo[0, %kk * 8], %b_hi[0, %kk * 8] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
    mma.wgmma m64n128k8 %acc, %a_hi[0, %kk * 8], %b_lo[0, %kk * 8] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  }
  kernel.for %kk = 0 to 4 step 1 unroll {
    mma.wgmma m64n128k8 %acc, %a_hi[0, %kk * 8], %b_hi[0, %kk * 8] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>
  }
  mma.wgmma_commit
  mma.wgmma_wait 0
  kernel.for %j = 0 to 16 step 1 unroll {
    kernel.for %h = 0 to 2 step 1 unroll {
      kernel.for %e = 0 to 2 step 1 unroll {
        %d = kernel.load %acc[%j * 4 + %h * 2 + %e] : memref<64xf32>
        kernel.store %d, %c[%t floordiv 32 * 16 + %h * 8 + %t mod 32 floordiv 4, %j * 8 + %t mod 4 * 2 + %e] : memref<64x128xf32>
      }
    }
  }
}

// CHECK:      __device__ __forceinline__ unsigned long long dpl_sw128_desc(const void* p) {
// CHECK:      __device__ __forceinline__ int dpl_swz128(int i) {
// CHECK:      __device__ __forceinline__ float dpl_tf32(float x) {
// CHECK:      asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
// CHECK:      __device__ __forceinline__ void dpl_wgmma_m64n128k8(float (&d)[64], unsigned long long da, unsigned long long db) {
// CHECK-NEXT:     asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
// CHECK:      __device__ __forceinline__ void dpl_wgmma_m64n128k8_zero(float (&d)[64], unsigned long long da, unsigned long long db) {
// CHECK-NEXT:     asm volatile("{\n.reg .pred p;\n"
// CHECK-NEXT:                  "setp.ne.b32 p, %66, 0;\n"
// CHECK-NEXT:                  "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
// CHECK-NEXT:                  "{%0, {{.*}}, %63}, %64, %65, p, 1, 1;\n}\n"
// CHECK:      __launch_bounds__(128) void k_wgmma_gemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
// CHECK-NEXT:     extern __shared__ __align__(1024) unsigned char dpl_dyn_smem_raw[];
// CHECK:          float h0 = dpl_tf32(v0);
// CHECK:          float r0 = v0 - h0;
// CHECK:          float l0 = dpl_tf32(r0);
// CHECK:          *reinterpret_cast<float4*>(&a_hi[dpl_swz128((t + i * 128) / 8 * 32 + (t + i * 128) % 8 * 4)]) = hi;
// CHECK:      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
// CHECK-NEXT: __syncthreads();
// CHECK:      dpl_fence_regs(acc);
// CHECK-NEXT: asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// CHECK:      dpl_wgmma_m64n128k8_zero(acc, dpl_sw128_desc(a_lo + 0), dpl_sw128_desc(b_hi + 0));
// CHECK-NEXT: dpl_wgmma_m64n128k8(acc, dpl_sw128_desc(a_hi + 0), dpl_sw128_desc(b_lo + 0));
// CHECK:      dpl_wgmma_m64n128k8(acc, dpl_sw128_desc(a_lo + kk * 8), dpl_sw128_desc(b_hi + kk * 8));
// CHECK-NEXT: dpl_wgmma_m64n128k8(acc, dpl_sw128_desc(a_hi + kk * 8), dpl_sw128_desc(b_lo + kk * 8));
// CHECK:      dpl_wgmma_m64n128k8(acc, dpl_sw128_desc(a_hi + kk_1 * 8), dpl_sw128_desc(b_hi + kk_1 * 8));
// CHECK:      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
// CHECK-NEXT: asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
// CHECK-NEXT: dpl_fence_regs(acc);

// MANIFEST: "arch": "sm_90a"
