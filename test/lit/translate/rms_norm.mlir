// RUN: dpl-translate --to-cuda %s | filecheck %s
// RUN: dpl-translate --manifest %s | filecheck %s --check-prefix=MANIFEST
// The seeds' RMSNorm kernel: smem fill, strided reduce, warp shuffles, cross-warp smem merge.

kernel.func @k_rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>, %rms_norm: memref<1x32x2048xf32>) grid [32, 1, 1] block [256, 1, 1] smem 0 {
  %v0 = arith.constant 4.8828125e-04 : f32
  %eps = arith.constant 1.0e-06 : f32
  %c0 = arith.constant 0 : index
  %a1 = kernel.block_id x
  %a0 = kernel.thread_id x
  %lane = kernel.lane_id
  %warp = kernel.warp_id
  %x_smem = kernel.smem : memref<2048xf32, #kernel.smem>
  kernel.for %x_smem_flat = %a0 to 2048 step 256 {
    %x_smem_v = kernel.load %x[0, %a1, %x_smem_flat] : memref<1x32x2048xf32>
    kernel.store %x_smem_v, %x_smem[%x_smem_flat] : memref<2048xf32, #kernel.smem>
  }
  kernel.barrier
  %acc0 = kernel.for %a2 = %a0 to 2048 step 256 -> f32 {
    %in2 = kernel.load %x_smem[%a2] : memref<2048xf32, #kernel.smem>
    %v1 = arith.mulf %in2, %in2 : f32
    kernel.accumulate add %v1 : f32
  }
  %sh16 = kernel.shuffle_xor %acc0, 16 : f32
  %w16 = arith.addf %acc0, %sh16 : f32
  %sh8 = kernel.shuffle_xor %w16, 8 : f32
  %w8 = arith.addf %w16, %sh8 : f32
  %sh4 = kernel.shuffle_xor %w8, 4 : f32
  %w4 = arith.addf %w8, %sh4 : f32
  %sh2 = kernel.shuffle_xor %w4, 2 : f32
  %w2 = arith.addf %w4, %sh2 : f32
  %sh1 = kernel.shuffle_xor %w2, 1 : f32
  %acc0_w = arith.addf %w2, %sh1 : f32
  %acc0_smem = kernel.smem : memref<8xf32, #kernel.smem>
  %is_lane0 = arith.cmpi eq, %lane, %c0 : index
  kernel.if %is_lane0 {
    kernel.store %acc0_w, %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
  }
  kernel.barrier
  %is_warp0 = arith.cmpi eq, %warp, %c0 : index
  kernel.if %is_warp0 {
    %c8 = arith.constant 8 : index
    %in_range = arith.cmpi ult, %lane, %c8 : index
    %zero = arith.constant 0.0 : f32
    %part = kernel.load %acc0_smem[%lane mod 8] : memref<8xf32, #kernel.smem>
    %p = arith.select %in_range, %part, %zero : f32
    %d4 = kernel.shuffle_down %p, 4 width 8 : f32
    %p4 = arith.addf %p, %d4 : f32
    %d2 = kernel.shuffle_down %p4, 2 width 8 : f32
    %p2 = arith.addf %p4, %d2 : f32
    %d1 = kernel.shuffle_down %p2, 1 width 8 : f32
    %p1 = arith.addf %p2, %d1 : f32
    kernel.if %is_lane0 {
      kernel.store %p1, %acc0_smem[0] : memref<8xf32, #kernel.smem>
    }
  }
  kernel.barrier
  %acc0_b = kernel.load %acc0_smem[0] : memref<8xf32, #kernel.smem>
  %v2 = arith.mulf %acc0_b, %v0 : f32
  %v3 = arith.addf %v2, %eps : f32
  %v4 = math.rsqrt %v3 : f32
  kernel.for %a3 = %a0 to 2048 step 256 {
    %in3 = kernel.load %x_smem[%a3] : memref<2048xf32, #kernel.smem>
    %in4 = kernel.load %p_weight[%a3] : memref<2048xf32>
    %v5 = arith.mulf %in3, %v4 : f32
    %v6 = arith.mulf %v5, %in4 : f32
    kernel.store %v6, %rms_norm[0, %a1, %a3] : memref<1x32x2048xf32>
  }
}

// CHECK:      extern "C" __global__
// CHECK-NEXT: __launch_bounds__(256) void k_rms_norm(const float* __restrict__ x, const float* __restrict__ p_weight, float* __restrict__ rms_norm) {
// CHECK-NEXT:     int a1 = blockIdx.x;
// CHECK-NEXT:     int a0 = threadIdx.x;
// CHECK-NEXT:     int lane = threadIdx.x & 31;
// CHECK-NEXT:     int warp = threadIdx.x >> 5;
// CHECK-NEXT:     __shared__ __align__(16) float x_smem[2048];
// CHECK-NEXT:     for (int x_smem_flat = a0; x_smem_flat < 2048; x_smem_flat += 256) {
// CHECK-NEXT:         float x_smem_v = x[a1 * 2048 + x_smem_flat];
// CHECK-NEXT:         x_smem[x_smem_flat] = x_smem_v;
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     float acc0 = 0.0f;
// CHECK-NEXT:     for (int a2 = a0; a2 < 2048; a2 += 256) {
// CHECK-NEXT:         float in2 = x_smem[a2];
// CHECK-NEXT:         float v1 = in2 * in2;
// CHECK-NEXT:         acc0 += v1;
// CHECK-NEXT:     }
// CHECK-NEXT:     float sh16 = __shfl_xor_sync(0xffffffff, acc0, 16);
// CHECK-NEXT:     float w16 = acc0 + sh16;
// CHECK:          float acc0_w = w2 + sh1;
// CHECK-NEXT:     __shared__ __align__(16) float acc0_smem[8];
// CHECK-NEXT:     bool is_lane0 = lane == 0;
// CHECK-NEXT:     if (is_lane0) {
// CHECK-NEXT:         acc0_smem[warp] = acc0_w;
// CHECK-NEXT:     }
// CHECK:              float part = acc0_smem[lane % 8];
// CHECK-NEXT:         float p = in_range ? part : 0.0f;
// CHECK-NEXT:         float d4 = __shfl_down_sync(0xffffffff, p, 4, 8);
// CHECK:          float v2 = acc0_b * 0.00048828125f;
// CHECK-NEXT:     float v3 = v2 + 1e-06f;
// CHECK-NEXT:     float v4 = rsqrtf(v3);
// CHECK:              rms_norm[a1 * 2048 + a3] = v6;

// MANIFEST:      "name": "k_rms_norm",
// MANIFEST:      "smem_bytes": 0,
// MANIFEST-NEXT: "static_smem_bytes": 8224,
// MANIFEST:      "name": "x",
// MANIFEST:      "role": "in"
// MANIFEST:      "name": "rms_norm",
// MANIFEST:      "role": "out"
