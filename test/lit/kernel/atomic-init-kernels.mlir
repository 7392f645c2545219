// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(atomic-init-kernels)' | filecheck %s
// atomic-init-kernels: a kernel.func whose tile folds into outputs with tile.atomic gets an
// @<name>_init kernel, launched just before it on the same buffers, that fills each with its
// combiner's identity (0 for add, -inf for max; one element per thread, the threads past a
// smaller buffer's end guarded off). Cases: two outputs of different sizes and combiners; a
// kernel without atomics, left alone.

kernel.func @k_split(%x: memref<4x64xf32>, %y: memref<4xf32>, %m: memref<2x5xf32>) grid [2, 1, 1] block [4, 1, 1] smem 0 {
  %s = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 4 = thread at %t, %sa : 2 = block at %s) thread_id %t {
    %p = loop.for reduce %k < 32 -> f32 {
      %v = loop.load %x[%ta, %sa * 32 + %k] : memref<4x64xf32>
      loop.accumulate add %v : f32
    }
    tile.atomic add %p, %y[%ta] : memref<4xf32>
    tile.atomic max %p, %m[%sa, %ta] : memref<2x5xf32>
  }
}
func.func @main(%x: memref<4x64xf32>) -> (memref<4xf32>, memref<2x5xf32>) {
  %y = memref.alloc() : memref<4xf32>
  %m = memref.alloc() : memref<2x5xf32>
  kernel.launch @k_split(%x, %y, %m) : memref<4x64xf32>, memref<4xf32>, memref<2x5xf32>
  func.return %y, %m : memref<4xf32>, memref<2x5xf32>
}

// CHECK-LABEL: kernel.func @k_split_init(%y: memref<4xf32>, %m: memref<2x5xf32>) grid [1, 1, 1] block [10, 1, 1] smem 0 {
// CHECK-NEXT:    %[[T:.*]] = kernel.thread_id x
// CHECK-NEXT:    %[[B:.*]] = kernel.block_id x
// CHECK-NEXT:    %[[N:.*]] = arith.constant 10 : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.muli %[[B]], %[[N]] : index
// CHECK-NEXT:    %flat = arith.addi %[[OFF]], %[[T]] : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %flat, %[[FOUR]] : index
// CHECK-NEXT:    kernel.if %[[IN]] {
// CHECK-NEXT:      kernel.store %[[ZERO]], %y[%flat] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    kernel.store %[[NEGINF]], %m[%flat floordiv 5, %flat mod 5] : memref<2x5xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  kernel.func @k_split(
// CHECK:         tile.atomic add %p, %y[%ta] : memref<4xf32>
// CHECK:       func.func @main
// CHECK:         kernel.launch @k_split_init(%y, %m) : memref<4xf32>, memref<2x5xf32>
// CHECK-NEXT:    kernel.launch @k_split(%x, %y, %m) : memref<4x64xf32>, memref<4xf32>, memref<2x5xf32>

// -----

kernel.func @k_copy(%x: memref<32xf32>, %y: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t) thread_id %t {
    %v = loop.load %x[%ta] : memref<32xf32>
    loop.store %v, %y[%ta] : memref<32xf32>
  }
}
func.func @main(%x: memref<32xf32>) -> memref<32xf32> {
  %y = memref.alloc() : memref<32xf32>
  kernel.launch @k_copy(%x, %y) : memref<32xf32>, memref<32xf32>
  func.return %y : memref<32xf32>
}

// CHECK-LABEL: kernel.func @k_copy
// CHECK-NOT:   _init
// CHECK:         kernel.launch @k_copy(%x, %y)
