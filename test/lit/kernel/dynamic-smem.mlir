// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(dynamic-smem)' | filecheck %s
// dynamic-smem: a kernel whose shared buffers pass 48 KiB gets them as dynamic shared memory.
// Cases: 32 KiB + 32760 bytes + 16 bytes: each buffer at a 16-byte-aligned offset (the third at
// 65536, not 65528), the func's smem the total; exactly 48 KiB, left static.
kernel.func @k_big(%x: memref<64x256xf32>, %y: memref<64x256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %a_smem = kernel.smem : memref<8192xf32, #kernel.smem>
  %b_smem = kernel.smem : memref<8190xf32, #kernel.smem>
  %c_smem = kernel.smem : memref<4xf32, #kernel.smem>
  %v = kernel.load %x[0, %t] : memref<64x256xf32>
  kernel.store %v, %a_smem[%t] : memref<8192xf32, #kernel.smem>
  kernel.store %v, %b_smem[%t] : memref<8190xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %a_smem[%t] : memref<8192xf32, #kernel.smem>
  kernel.store %w, %y[0, %t] : memref<64x256xf32>
}

// CHECK-LABEL: kernel.func @k_big(%x: memref<64x256xf32>, %y: memref<64x256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 65552 {
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    %a_smem = kernel.smem dynamic offset 0 : memref<8192xf32, #kernel.smem>
// CHECK-NEXT:    %b_smem = kernel.smem dynamic offset 32768 : memref<8190xf32, #kernel.smem>
// CHECK-NEXT:    %c_smem = kernel.smem dynamic offset 65536 : memref<4xf32, #kernel.smem>
// CHECK-NEXT:    %v = kernel.load %x[0, %t] : memref<64x256xf32>
// CHECK-NEXT:    kernel.store %v, %a_smem[%t] : memref<8192xf32, #kernel.smem>

// -----

kernel.func @k_small(%x: memref<256xf32>, %y: memref<256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %a_smem = kernel.smem : memref<12288xf32, #kernel.smem>
  %v = kernel.load %x[%t] : memref<256xf32>
  kernel.store %v, %a_smem[%t] : memref<12288xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %a_smem[%t] : memref<12288xf32, #kernel.smem>
  kernel.store %w, %y[%t] : memref<256xf32>
}

// CHECK-LABEL: kernel.func @k_small(%x: memref<256xf32>, %y: memref<256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    %a_smem = kernel.smem : memref<12288xf32, #kernel.smem>

