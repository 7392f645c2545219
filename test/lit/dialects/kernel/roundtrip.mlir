// RUN: dpl-opt %s | filecheck %s
// RUN: dpl-opt %s | dpl-opt | filecheck %s
// The seeds' two kernels written by hand in kernel IR survive parse -> print -> parse:
// RMSNorm (smem fill loop, barrier, strided reduce, warp shuffles, cross-warp smem tree, epilogue)
// and relu(matmul(x + bias, w)) (cp.async fills, padded smem, 2x2 register tile, unrolled loops).

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
  %acc0_w16 = arith.addf %acc0, %sh16 : f32
  %sh8 = kernel.shuffle_xor %acc0_w16, 8 : f32
  %acc0_w8 = arith.addf %acc0_w16, %sh8 : f32
  %sh4 = kernel.shuffle_xor %acc0_w8, 4 : f32
  %acc0_w4 = arith.addf %acc0_w8, %sh4 : f32
  %sh2 = kernel.shuffle_xor %acc0_w4, 2 : f32
  %acc0_w2 = arith.addf %acc0_w4, %sh2 : f32
  %sh1 = kernel.shuffle_xor %acc0_w2, 1 : f32
  %acc0_w = arith.addf %acc0_w2, %sh1 : f32
  %acc0_smem = kernel.smem : memref<8xf32, #kernel.smem>
  %is_lane0 = arith.cmpi eq, %lane, %c0 : index
  kernel.if %is_lane0 {
    kernel.store %acc0_w, %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
  }
  kernel.barrier
  %c4 = arith.constant 4 : index
  %lt4 = arith.cmpi ult, %warp, %c4 : index
  kernel.if %lt4 {
    %l4 = kernel.load %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
    %r4 = kernel.load %acc0_smem[%warp + 4] : memref<8xf32, #kernel.smem>
    %s4 = arith.addf %l4, %r4 : f32
    kernel.store %s4, %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
  }
  kernel.barrier
  %c2 = arith.constant 2 : index
  %lt2 = arith.cmpi ult, %warp, %c2 : index
  kernel.if %lt2 {
    %l2 = kernel.load %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
    %r2 = kernel.load %acc0_smem[%warp + 2] : memref<8xf32, #kernel.smem>
    %s2 = arith.addf %l2, %r2 : f32
    kernel.store %s2, %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
  }
  kernel.barrier
  %is_warp0 = arith.cmpi eq, %warp, %c0 : index
  kernel.if %is_warp0 {
    %l1 = kernel.load %acc0_smem[0] : memref<8xf32, #kernel.smem>
    %r1 = kernel.load %acc0_smem[1] : memref<8xf32, #kernel.smem>
    %s1 = arith.addf %l1, %r1 : f32
    kernel.store %s1, %acc0_smem[0] : memref<8xf32, #kernel.smem>
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

// CHECK-LABEL: kernel.func @k_rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>, %rms_norm: memref<1x32x2048xf32>) grid [32, 1, 1] block [256, 1, 1] smem 0 {
// CHECK:         %a1 = kernel.block_id x
// CHECK-NEXT:    %a0 = kernel.thread_id x
// CHECK-NEXT:    %lane = kernel.lane_id
// CHECK-NEXT:    %warp = kernel.warp_id
// CHECK-NEXT:    %x_smem = kernel.smem : memref<2048xf32, #kernel.smem>
// CHECK-NEXT:    kernel.for %x_smem_flat = %a0 to 2048 step 256 {
// CHECK-NEXT:      %x_smem_v = kernel.load %x[0, %a1, %x_smem_flat] : memref<1x32x2048xf32>
// CHECK-NEXT:      kernel.store %x_smem_v, %x_smem[%x_smem_flat] : memref<2048xf32, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %acc0 = kernel.for %a2 = %a0 to 2048 step 256 -> f32 {
// CHECK-NEXT:      %in2 = kernel.load %x_smem[%a2] : memref<2048xf32, #kernel.smem>
// CHECK-NEXT:      %v1 = arith.mulf %in2, %in2 : f32
// CHECK-NEXT:      kernel.accumulate add %v1 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %sh16 = kernel.shuffle_xor %acc0, 16 : f32
// CHECK:         %sh1 = kernel.shuffle_xor %acc0_w2, 1 : f32
// CHECK:         %acc0_smem = kernel.smem : memref<8xf32, #kernel.smem>
// CHECK:         kernel.if %is_lane0 {
// CHECK-NEXT:      kernel.store %acc0_w, %acc0_smem[%warp] : memref<8xf32, #kernel.smem>
// CHECK-NEXT:    }
// CHECK:           %r4 = kernel.load %acc0_smem[%warp + 4] : memref<8xf32, #kernel.smem>
// CHECK:         %v4 = math.rsqrt %v3 : f32
// CHECK-NEXT:    kernel.for %a3 = %a0 to 2048 step 256 {
// CHECK:           kernel.store %v6, %rms_norm[0, %a1, %a3] : memref<1x32x2048xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }

kernel.func @k_relu_reduce(%bias: memref<64xf32>, %x: memref<16x64xf32>, %w: memref<64x16xf32>, %relu: memref<16x16xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %zero = arith.constant 0.0 : f32
  %c8 = arith.constant 8 : index
  %tid = kernel.thread_id x
  %a0 = arith.divui %tid, %c8 : index
  %a1 = arith.remui %tid, %c8 : index
  %acc = kernel.alloca : memref<2x2xf32>
  kernel.store %zero, %acc[0, 0] : memref<2x2xf32>
  kernel.store %zero, %acc[0, 1] : memref<2x2xf32>
  kernel.store %zero, %acc[1, 0] : memref<2x2xf32>
  kernel.store %zero, %acc[1, 1] : memref<2x2xf32>
  %bias_smem = kernel.smem : memref<2x32xf32, #kernel.smem>
  %x_smem = kernel.smem : memref<2x8x33x2xf32, #kernel.smem>
  %w_smem = kernel.smem : memref<2x32x8x2xf32, #kernel.smem>
  kernel.for %a2 = 0 to 2 step 1 unroll {
    kernel.for %f = %tid to 32 step 64 {
      %b = kernel.load %bias[%a2 * 32 + %f] : memref<64xf32>
      kernel.store %b, %bias_smem[%a2, %f] : memref<2x32xf32, #kernel.smem>
    }
    kernel.barrier
    kernel.for %fx = %tid to 512 step 64 {
      kernel.cp_async %x_smem[%a2, %fx floordiv 64, (%fx floordiv 2) mod 32, %fx mod 2], %x[(%fx floordiv 64) * 2 + %fx mod 2, %a2 * 32 + (%fx floordiv 2) mod 32] bytes 4 : memref<2x8x33x2xf32, #kernel.smem>, memref<16x64xf32>
    }
    kernel.cp_async_commit
    kernel.cp_async_wait 0
    kernel.barrier
    kernel.for %fw = %tid to 512 step 64 {
      kernel.cp_async %w_smem[%a2, %fw floordiv 16, (%fw floordiv 2) mod 8, %fw mod 2], %w[%a2 * 32 + %fw floordiv 16, ((%fw floordiv 2) mod 8) * 2 + %fw mod 2] bytes 4 : memref<2x32x8x2xf32, #kernel.smem>, memref<64x16xf32>
    }
    kernel.cp_async_commit
    kernel.cp_async_wait 0
    kernel.barrier
    kernel.for %a3 = 0 to 32 step 1 unroll {
      %in0 = kernel.load %bias_smem[%a2, %a3] : memref<2x32xf32, #kernel.smem>
      %in1 = kernel.load %x_smem[%a2, %a0, %a3, 0] : memref<2x8x33x2xf32, #kernel.smem>
      %in2 = kernel.load %x_smem[%a2, %a0, %a3, 1] : memref<2x8x33x2xf32, #kernel.smem>
      %in3 = kernel.load %w_smem[%a2, %a3, %a1, 0] : memref<2x32x8x2xf32, #kernel.smem>
      %in4 = kernel.load %w_smem[%a2, %a3, %a1, 1] : memref<2x32x8x2xf32, #kernel.smem>
      %v0 = arith.addf %in1, %in0 : f32
      %v1 = arith.addf %in2, %in0 : f32
      %m00 = arith.mulf %v0, %in3 : f32
      %m01 = arith.mulf %v0, %in4 : f32
      %m10 = arith.mulf %v1, %in3 : f32
      %m11 = arith.mulf %v1, %in4 : f32
      %o00 = kernel.load %acc[0, 0] : memref<2x2xf32>
      %n00 = arith.addf %o00, %m00 : f32
      kernel.store %n00, %acc[0, 0] : memref<2x2xf32>
      %o01 = kernel.load %acc[0, 1] : memref<2x2xf32>
      %n01 = arith.addf %o01, %m01 : f32
      kernel.store %n01, %acc[0, 1] : memref<2x2xf32>
      %o10 = kernel.load %acc[1, 0] : memref<2x2xf32>
      %n10 = arith.addf %o10, %m10 : f32
      kernel.store %n10, %acc[1, 0] : memref<2x2xf32>
      %o11 = kernel.load %acc[1, 1] : memref<2x2xf32>
      %n11 = arith.addf %o11, %m11 : f32
      kernel.store %n11, %acc[1, 1] : memref<2x2xf32>
    }
  }
  %r00 = kernel.load %acc[0, 0] : memref<2x2xf32>
  %r01 = kernel.load %acc[0, 1] : memref<2x2xf32>
  %r10 = kernel.load %acc[1, 0] : memref<2x2xf32>
  %r11 = kernel.load %acc[1, 1] : memref<2x2xf32>
  %v2 = arith.maximumf %r00, %zero : f32
  %v3 = arith.maximumf %r01, %zero : f32
  %v4 = arith.maximumf %r10, %zero : f32
  %v5 = arith.maximumf %r11, %zero : f32
  kernel.store %v2, %relu[%a0 * 2, %a1 * 2] : memref<16x16xf32>
  kernel.store %v3, %relu[%a0 * 2, %a1 * 2 + 1] : memref<16x16xf32>
  kernel.store %v4, %relu[%a0 * 2 + 1, %a1 * 2] : memref<16x16xf32>
  kernel.store %v5, %relu[%a0 * 2 + 1, %a1 * 2 + 1] : memref<16x16xf32>
}

// CHECK-LABEL: kernel.func @k_relu_reduce(%bias: memref<64xf32>, %x: memref<16x64xf32>, %w: memref<64x16xf32>, %relu: memref<16x16xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
// CHECK:         %acc = kernel.alloca : memref<2x2xf32>
// CHECK:         %x_smem = kernel.smem : memref<2x8x33x2xf32, #kernel.smem>
// CHECK:         kernel.for %a2 = 0 to 2 step 1 unroll {
// CHECK:             kernel.cp_async %x_smem[%a2, %fx floordiv 64, %fx floordiv 2 mod 32, %fx mod 2], %x[%fx floordiv 64 * 2 + %fx mod 2, %a2 * 32 + %fx floordiv 2 mod 32] bytes 4 : memref<2x8x33x2xf32, #kernel.smem>, memref<16x64xf32>
// CHECK:           kernel.cp_async_commit
// CHECK-NEXT:      kernel.cp_async_wait 0
// CHECK-NEXT:      kernel.barrier
// CHECK:           kernel.for %a3 = 0 to 32 step 1 unroll {
// CHECK:             kernel.store %n11, %acc[1, 1] : memref<2x2xf32>
// CHECK:         kernel.store %v5, %relu[%a0 * 2 + 1, %a1 * 2 + 1] : memref<16x16xf32>
