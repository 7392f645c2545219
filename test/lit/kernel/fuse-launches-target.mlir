// RUN: dpl-opt %s --pass-pipeline='builtin.module(fuse-launches)' | filecheck %s
// RUN: dpl-opt %s --pass-pipeline='builtin.module(set-target{arch=sm_120},fuse-launches)' | filecheck %s --check-prefix=SM120
// fuse-launches' blocks-per-SM rule on the module's #kernel.target: @k_small (32 KiB) and @k_big
// (50 KiB) of 256 threads. On sm_90 (the default: 228 KiB per SM) @k_small runs 6 blocks per SM
// alone and 4 fused with @k_big's pool: they fuse. On sm_120 (100 KiB per SM) it runs 3 alone
// and 1 fused: they stay two launches.

kernel.func @k_small(%x: memref<256xf32>, %a: memref<256xf32>) grid [4, 1, 1] block [256, 1, 1] smem 32768 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<256xf32>
  kernel.store %v, %a[%t] : memref<256xf32>
}
kernel.func @k_big(%x: memref<256xf32>, %b: memref<256xf32>) grid [4, 1, 1] block [256, 1, 1] smem 51200 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<256xf32>
  %w = arith.addf %v, %v : f32
  kernel.store %w, %b[%t] : memref<256xf32>
}
func.func @main(%x: memref<256xf32>) -> (memref<256xf32>, memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  kernel.launch @k_small(%x, %a) : memref<256xf32>, memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  kernel.launch @k_big(%x, %b) : memref<256xf32>, memref<256xf32>
  func.return %a, %b : memref<256xf32>, memref<256xf32>
}
// CHECK-LABEL: kernel.func @k_small__k_big({{.*}}) grid [8, 1, 1] block [256, 1, 1] smem 51200 {
// CHECK:       } {kernel.fused = ["k_small", "k_big"]}
// CHECK-LABEL: func.func @main
// CHECK:         kernel.launch @k_small__k_big(%x, %a, %b)
// CHECK-NOT:     kernel.launch

// SM120-NOT:   kernel.fused
// SM120-LABEL: func.func @main
// SM120:         kernel.launch @k_small(%x, %a)
// SM120:         kernel.launch @k_big(%x, %b)
