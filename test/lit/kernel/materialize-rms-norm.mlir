// RUN: dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir tile | dpl-opt --pass-pipeline=materialize | filecheck %s
// RUN: dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir cuda | filecheck %s --check-prefix=CUDA
// The seeds' RMSNorm from PyTorch, materialized: the structure of test/lit/translate/rms_norm.mlir
// (x row staged by a float4 copy loop + barrier, the strided sum of squares (8 exact trips,
// unrolled), a warp butterfly, lane 0 of each warp to the first 8 slots of a buffer, warp 0
// folding with shuffle_down into slot 8 (not slot 0, which other lanes of warp 0 may still be
// reading: no barrier orders them), the broadcast load, the normalising loop) launched once
// from @main.

// CHECK:       kernel.func @k_rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>, %rms_norm: memref<1x32x2048xf32>) grid [32, 1, 1] block [256, 1, 1] smem 0 {
// CHECK:         %a1 = kernel.block_id x
// CHECK-NEXT:    %lane = kernel.thread_id x
// CHECK-NEXT:    %lane_id = kernel.lane_id
// CHECK-NEXT:    %warp = kernel.warp_id
// CHECK-NEXT:    %is_lane0 = arith.cmpi eq, %lane_id, %{{.*}} : index
// CHECK-NEXT:    %is_warp0 = arith.cmpi eq, %warp, %{{.*}} : index
// CHECK-NEXT:    %x_smem = kernel.smem : memref<2048xf32, #kernel.smem>
// CHECK-NEXT:    kernel.for %x_smem_j = 0 to 2 step 1 unroll {
// CHECK:           %x_smem_v = kernel.load %x[0, %a1, %x_smem_flat * 4] vector 4 : memref<1x32x2048xf32>
// CHECK-NEXT:      kernel.store %x_smem_v, %x_smem[%x_smem_flat * 4] vector 4 : memref<2048xf32, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %acc_part = kernel.for %r0_j = 0 to 8 step 1 unroll -> f32 {
// CHECK:           %a = kernel.load %x_smem[%r0] : memref<2048xf32, #kernel.smem>
// CHECK:           kernel.accumulate add %{{.*}} : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %acc_sh16 = kernel.shuffle_xor %acc_part, 16 : f32
// CHECK-NEXT:    %acc_w16 = arith.addf %acc_part, %acc_sh16 : f32
// CHECK:         %acc_sh1 = kernel.shuffle_xor %acc_w2, 1 : f32
// CHECK-NEXT:    %acc_w = arith.addf %acc_w2, %acc_sh1 : f32
// CHECK-NEXT:    %acc_smem = kernel.smem : memref<9xf32, #kernel.smem>
// CHECK-NEXT:    kernel.if %is_lane0 {
// CHECK-NEXT:      kernel.store %acc_w, %acc_smem[%warp] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    kernel.if %is_warp0 {
// CHECK-NEXT:      %in_range = arith.cmpi ult, %lane_id, %{{.*}} : index
// CHECK-NEXT:      %part = kernel.load %acc_smem[%lane_id mod 8] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:      %p = arith.select %in_range, %part, %{{.*}} : f32
// CHECK-NEXT:      %d4 = kernel.shuffle_down %p, 4 width 8 : f32
// CHECK:           %d1 = kernel.shuffle_down %p2, 1 width 8 : f32
// CHECK-NEXT:      %p1 = arith.addf %p2, %d1 : f32
// CHECK-NEXT:      kernel.if %is_lane0 {
// CHECK-NEXT:        kernel.store %p1, %acc_smem[8] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %acc = kernel.load %acc_smem[8] : memref<9xf32, #kernel.smem>
// CHECK:         math.rsqrt
// CHECK-NEXT:    kernel.for %a2_j = 0 to 8 step 1 unroll {
// CHECK:           kernel.load %x_smem[%a2] : memref<2048xf32, #kernel.smem>
// CHECK:           kernel.load %p_weight[%a2] : memref<2048xf32>
// CHECK:           kernel.store %{{.*}}, %rms_norm[0, %a1, %a2] : memref<1x32x2048xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK:       func.func @main(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>) -> memref<1x32x2048xf32> {
// CHECK-NEXT:    %rms_norm = memref.alloc() : memref<1x32x2048xf32>
// CHECK-NEXT:    kernel.launch @k_rms_norm(%x, %p_weight, %rms_norm) : memref<1x32x2048xf32>, memref<2048xf32>, memref<1x32x2048xf32>
// CHECK-NEXT:    func.return %rms_norm : memref<1x32x2048xf32>

// CUDA:      __launch_bounds__(256) void k_rms_norm(const float* __restrict__ x, const float* __restrict__ p_weight, float* __restrict__ rms_norm) {
// CUDA:          __shared__ __align__(16) float x_smem[2048];
// CUDA:          float acc_sh16 = __shfl_xor_sync(0xffffffff, acc_part, 16);
// CUDA:              float d4 = __shfl_down_sync(0xffffffff, p, 4, 8);
// CUDA:          float acc = acc_smem[8];
