// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per mma-dialect verifier rule (kernel-level ops).

kernel.func @k(%x: memref<32xf64>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf64>
  %h = mma.tf32 %v : f64
}
// CHECK: 'mma.tf32' rounds f32 values, got f64

// -----

func.func @f(%v: f32) {
  %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%v, %v, %v, %v) b(%v, %v) c(%v, %v, %v, %v) : f32
  func.return
}
// CHECK: 'mma.sync' must be inside a 'kernel.func'

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf32>
  %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%v, %v, %v) b(%v, %v) c(%v, %v, %v, %v) : f32
}
// CHECK: 'mma.sync' m16n8k8 takes 4 'a' fragment values, got 3

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf32>
  %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%v, %v, %v, %v) b(%v) c(%v, %v, %v, %v) : f32
}
// CHECK: 'mma.sync' m16n8k8 takes 2 'b' fragment values, got 1

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<6xf32>
  mma.wgmma m64n12k8 %acc, %a[0, 0], %a[0, 0] : memref<6xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' N must be a multiple of 8 in [8, 256], got 12

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<16xf32>
  mma.wgmma m64n64k8 %acc, %a[0, 0], %a[0, 0] : memref<16xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' accumulators must be a 'kernel.alloca' of 32 f32 (m64n64k8), got memref<16xf32>

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  mma.wgmma m64n64k8 %acc, %a[0, 0], %a[0, 0] : memref<32xf32>, memref<64x32xf32, #kernel.smem>, memref<64x32xf32, #kernel.smem>
}
// CHECK: 'mma.wgmma' operand a must be a #kernel.smem buffer with the #mma.swizzle<128> layout

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 32768 {
  %a = kernel.smem dynamic offset 16 : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  mma.wgmma m64n64k8 %acc, %a[0, 0], %a[0, 0] : memref<32xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' operand a must start 1024-byte aligned (the swizzle repeats every 8 rows), got dynamic offset 16

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x16xf64, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  mma.wgmma m64n64k8 %acc, %a[0, 0], %a[0, 0] : memref<32xf32>, memref<64x16xf64, #mma.swizzle<128>, #kernel.smem>, memref<64x16xf64, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' operand a must hold f32 (read as tf32), got f64

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x64xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  mma.wgmma m64n64k8 %acc, %a[0, 0], %a[0, 0] : memref<32xf32>, memref<64x64xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x64xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' operand a must be K-major with 128-byte rows: innermost extent 32, got shape [64, 64]

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<64xf32>
  mma.wgmma m64n128k8 %acc, %a[0, 0], %a[0, 0] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' operand b needs at least 128 rows, got 64

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  mma.wgmma m64n64k8 %acc, %a[0, 0], %a[0, 0] : memref<32xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' needs whole warpgroups: the block has 64 threads

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  mma.wgmma m64n64k8 %acc, %a[0], %a[0, 0] : memref<32xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma' indexes its rank-2 operand a with 1 indices

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  mma.wgmma_wait 9
}
// CHECK: 'mma.wgmma_wait' pending group count must be in [0, 7], got 9

// -----

func.func @f() {
  mma.wgmma_fence
  func.return
}
// CHECK: 'mma.wgmma_fence' must be inside a 'kernel.func'

// -----

func.func @f() {
  mma.wgmma_commit
  func.return
}
// CHECK: 'mma.wgmma_commit' must be inside a 'kernel.func'

// -----

func.func @f() {
  mma.fence_proxy_async
  func.return
}
// CHECK: 'mma.fence_proxy_async' must be inside a 'kernel.func'

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %a = kernel.smem : memref<64x32xf32, #mma.swizzle<64>, #kernel.smem>
}
// CHECK: '#mma.swizzle' supports 128-byte rows, got 64

// -----

func.func @f(%v: f32) {
  %h = mma.tf32 %v : f32
  func.return
}
// CHECK: 'mma.tf32' must be inside a 'kernel.func'

// -----

kernel.func @k(%x: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf32>
  %d0, %d1, %d2 = "mma.sync"(%v, %v, %v, %v, %v, %v, %v, %v, %v, %v) <{operandSegmentSizes = array<i32: 4, 2, 4>}> : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
}
// CHECK: 'mma.sync' m16n8k8 has 4 results, got 3

// -----

kernel.func @k(%x: memref<128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %b = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<128xf32>
  mma.wgmma_rs m64n64k8 %acc, a(%v, %v, %v), %b[0, 0] : memref<32xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma_rs' m64nNk8 takes 4 'a' fragment values, got 3

// -----

kernel.func @k(%x: memref<128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %b = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<64xf32>
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<128xf32>
  mma.wgmma_rs m64n128k8 %acc, a(%v, %v, %v, %v), %b[0, 0] : memref<64xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma_rs' operand b needs at least 128 rows, got 64

// -----

kernel.func @k(%x: memref<128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %b = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<16xf32>
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<128xf32>
  mma.wgmma_rs m64n64k8 %acc, a(%v, %v, %v, %v), %b[0, 0] : memref<16xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma_rs' accumulators must be a 'kernel.alloca' of 32 f32 (m64n64k8), got memref<16xf32>

// -----

kernel.func @k(%x: memref<128xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<32xf32>
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<128xf32>
  mma.wgmma_rs m64n64k8 %acc, a(%v, %v, %v, %v), %b[0, 0] : memref<32xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma_rs' needs whole warpgroups: the block has 64 threads

// -----

kernel.func @k(%x: memref<128xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %b = kernel.smem : memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<6xf32>
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<128xf32>
  mma.wgmma_rs m64n12k8 %acc, a(%v, %v, %v, %v), %b[0, 0] : memref<6xf32>, memref<64x32xf32, #mma.swizzle<128>, #kernel.smem>
}
// CHECK: 'mma.wgmma_rs' N must be a multiple of 8 in [8, 256], got 12
