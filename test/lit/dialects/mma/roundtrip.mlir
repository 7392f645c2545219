// RUN: dpl-opt %s | dpl-opt | filecheck %s
// The mma dialect's kernel-level ops print and parse back unchanged.

// CHECK-LABEL: kernel.func @tf32_split
// CHECK:         %hi = mma.tf32 %v : f32
// CHECK-NEXT:    %r = arith.subf %v, %hi : f32
// CHECK-NEXT:    %lo = mma.tf32 %r : f32
// CHECK:         %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%hi, %lo, %hi, %lo) b(%hi, %lo) c(%v, %v, %v, %v) : f32
kernel.func @tf32_split(%x: memref<32x8xf32>, %y: memref<32x4xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %lane = kernel.lane_id
  %v = kernel.load %x[%lane, 0] : memref<32x8xf32>
  %hi = mma.tf32 %v : f32
  %r = arith.subf %v, %hi : f32
  %lo = mma.tf32 %r : f32
  %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%hi, %lo, %hi, %lo) b(%hi, %lo) c(%v, %v, %v, %v) : f32
  kernel.store %d0, %y[%lane, 0] : memref<32x4xf32>
}

// CHECK-LABEL: kernel.func @warpgroup
// CHECK:         %a = kernel.smem dynamic offset 0 : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK:         mma.fence_proxy_async
// CHECK:         mma.wgmma_fence
// CHECK-NEXT:    mma.wgmma m64n128k8 overwrite %acc, %a[1, 0, 0], %b[1, 0, 0] : memref<64xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    mma.wgmma m64n128k8 %acc, %a[1, 0, 8], %b[1, 0, 8] : memref<64xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    mma.wgmma_commit
// CHECK-NEXT:    mma.wgmma_wait 0
kernel.func @warpgroup(%x: memref<64x128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 50176 {
  %a = kernel.smem dynamic offset 0 : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %b = kernel.smem dynamic offset 16384 : memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<64xf32>
  mma.fence_proxy_async
  kernel.barrier
  mma.wgmma_fence
  mma.wgmma m64n128k8 overwrite %acc, %a[1, 0, 0], %b[1, 0, 0] : memref<64xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>
  mma.wgmma m64n128k8 %acc, %a[1, 0, 8], %b[1, 0, 8] : memref<64xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<2x128x32xf32, #mma.swizzle<128>, #kernel.smem>
  mma.wgmma_commit
  mma.wgmma_wait 0
}

// CHECK-LABEL: kernel.func @registers_a
// CHECK:         mma.wgmma_fence
// CHECK-NEXT:    mma.wgmma_rs m64n64k8 overwrite %acc, a(%hi, %lo, %hi, %lo), %b[1, 0, 0] : memref<32xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    mma.wgmma_rs m64n64k8 %acc, a(%lo, %hi, %lo, %hi), %b[1, 0, 8] : memref<32xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    mma.wgmma_commit
kernel.func @registers_a(%x: memref<128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 33792 {
  %b = kernel.smem dynamic offset 0 : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<128xf32>
  %hi = mma.tf32 %v : f32
  %r = arith.subf %v, %hi : f32
  %lo = mma.tf32 %r : f32
  mma.wgmma_fence
  mma.wgmma_rs m64n64k8 overwrite %acc, a(%hi, %lo, %hi, %lo), %b[1, 0, 0] : memref<32xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
  mma.wgmma_rs m64n64k8 %acc, a(%lo, %hi, %lo, %hi), %b[1, 0, 8] : memref<32xf32>, memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
  mma.wgmma_commit
  mma.wgmma_wait 0
}
