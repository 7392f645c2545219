// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(vectorize-access{reductions=false strided-reductions=true})' | filecheck %s
// The default kernel pipeline leaves a thread's own sequential reduce loop scalar (a matmul's K
// loop stays one multiply-add per product) but reads a reduction spread over the block's
// threads (a row's lanes) as float4: lanes from the thread index, or from `%tid mod 32` where
// rows are packed a warp each.

kernel.func @k_row_sum(%x: memref<64x2048xf32>, %y: memref<64x256xf32>) grid [64, 1, 1] block [256, 1, 1] smem 0 {
  %row = kernel.block_id x
  %lane = kernel.thread_id x
  %acc = kernel.for %r = %lane to 2048 step 256 -> f32 {
    %v = kernel.load %x[%row, %r] : memref<64x2048xf32>
    kernel.accumulate add %v : f32
  }
  kernel.store %acc, %y[%row, %lane] : memref<64x256xf32>
}
// CHECK-LABEL: kernel.func @k_row_sum
// CHECK:         %acc = kernel.for %r = %lane to 512 step 256 -> f32 {
// CHECK-NEXT:      %v = kernel.load %x[%row, %r * 4] vector 4 : memref<64x2048xf32>
// CHECK-COUNT-4:   kernel.extract %v
// CHECK:           kernel.accumulate add %v_xyzw : f32

// -----

kernel.func @k_packed(%x: memref<64x384xf32>, %y: memref<64x32xf32>) grid [8, 1, 1] block [256, 1, 1] smem 0 {
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %b = kernel.block_id x
  %tid = kernel.thread_id x
  %rt = arith.divui %tid, %c32 : index
  %lane = arith.remui %tid, %c32 : index
  %rb = arith.muli %b, %c8 : index
  %row = arith.addi %rb, %rt : index
  %acc = kernel.for %r = %lane to 384 step 32 -> f32 {
    %v = kernel.load %x[%row, %r] : memref<64x384xf32>
    kernel.accumulate max %v : f32
  }
  kernel.store %acc, %y[%row, %lane] : memref<64x32xf32>
}
// CHECK-LABEL: kernel.func @k_packed
// CHECK:         %acc = kernel.for %r = %lane to 96 step 32 -> f32 {
// CHECK-NEXT:      %v = kernel.load %x[%row, %r * 4] vector 4 : memref<64x384xf32>

// -----

// Declined: a thread's own sequential reduce loop (from 0 by 1) stays scalar.
kernel.func @k_own(%x: memref<256x64xf32>, %y: memref<256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %acc = kernel.for %k = 0 to 64 step 1 -> f32 {
    %v = kernel.load %x[%t, %k] : memref<256x64xf32>
    kernel.accumulate add %v : f32
  }
  kernel.store %acc, %y[%t] : memref<256xf32>
}
// CHECK-LABEL: kernel.func @k_own
// CHECK:         %acc = kernel.for %k = 0 to 64 step 1 -> f32 {
// CHECK-NEXT:      %v = kernel.load %x[%t, %k] : memref<256x64xf32>
