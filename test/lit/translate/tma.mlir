// RUN: dpl-translate --to-cuda %s | filecheck %s
// RUN: dpl-translate --manifest %s | filecheck %s --check-prefix=MANIFEST
// sm_90: one thread brings a 4 KiB row into dynamic shared memory with a bulk (TMA) copy that
// completes on an mbarrier; every thread waits on the barrier's phase, then scales the row.

kernel.func @k_tma_scale(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) grid [64, 1, 1] block [128, 1, 1] smem 4096 {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %row = kernel.block_id x
  %tid = kernel.thread_id x
  %tile = kernel.smem dynamic offset 0 : memref<1024xf32, #kernel.smem>
  %bar = kernel.smem : memref<1xi64, #kernel.smem>
  %is_t0 = arith.cmpi eq, %tid, %c0 : index
  kernel.if %is_t0 {
    kernel.mbarrier_init %bar[0] count 1 : memref<1xi64, #kernel.smem>
  }
  kernel.barrier
  kernel.if %is_t0 {
    kernel.mbarrier_arrive_expect_tx %bar[0] bytes 4096 : memref<1xi64, #kernel.smem>
    kernel.tma_load %tile[0], %x[%row, 0] bytes 4096 barrier %bar[0] : memref<1024xf32, #kernel.smem>, memref<64x1024xf32>, memref<1xi64, #kernel.smem>
  }
  kernel.mbarrier_wait %bar[0] phase %c0 : memref<1xi64, #kernel.smem>
  kernel.for %i = %tid to 1024 step 128 unroll 4 {
    %v = kernel.load %tile[%i] : memref<1024xf32, #kernel.smem>
    %s = arith.mulf %v, %two : f32
    kernel.store %s, %out[%row, %i] : memref<64x1024xf32>
  }
}

// CHECK:      __launch_bounds__(128) void k_tma_scale(const float* __restrict__ x, float* __restrict__ out) {
// CHECK-NEXT:     extern __shared__ __align__(16) unsigned char dpl_dyn_smem[];
// CHECK:          float* tile = reinterpret_cast<float*>(dpl_dyn_smem + 0);
// CHECK-NEXT:     __shared__ __align__(16) long long bar[1];
// CHECK:              asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar_addr), "r"(1) : "memory");
// CHECK:          __syncthreads();
// CHECK:              asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar_addr), "r"(4096) : "memory");
// CHECK:              unsigned int dst_addr = static_cast<unsigned int>(__cvta_generic_to_shared(&tile[0]));
// CHECK:              asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" :: "r"(dst_addr), "l"(&x[row * 1024]), "r"(4096), "r"(bar_addr) : "memory");
// CHECK:          while (!done) {
// CHECK-NEXT:         asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(done) : "r"(bar_addr), "r"(0) : "memory");
// CHECK:          #pragma unroll 4
// CHECK-NEXT:     for (int i = tid; i < 1024; i += 128) {
// CHECK-NEXT:         float v = tile[i];
// CHECK-NEXT:         float s = v * 2.0f;
// CHECK-NEXT:         out[row * 1024 + i] = s;

// MANIFEST: "smem_bytes": 4096,
// MANIFEST: "static_smem_bytes": 8,
