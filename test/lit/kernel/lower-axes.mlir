// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(lower-axes)' | filecheck %s
// lower-axes: the bound tile.tile gives way to its body, each axis replaced by the index it is
// bound to; index arithmetic nothing uses is dropped. Cases: a block and a thread axis (the
// unused %unused goes); a tile of 1100 threads inside its in-tile guard (the body stays in the
// guard); a kernel.func without a tile, left alone.
kernel.func @k_copy(%x: memref<4x32xf32>, %y: memref<4x32xf32>) grid [4, 1, 1] block [32, 1, 1] smem 0 {
  %c1 = arith.constant 1 : index
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %unused = arith.muli %t, %c1 : index
  tile.tile (%ta : 32 = thread at %t, %ba : 4 = block at %b) thread_id %t {
    %v = kernel.load %x[%ba, %ta] : memref<4x32xf32>
    kernel.store %v, %y[%ba, %ta] : memref<4x32xf32>
  }
}

// CHECK-LABEL: kernel.func @k_copy
// CHECK-NEXT:    %b = kernel.block_id x
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    %v = kernel.load %x[%b, %t] : memref<4x32xf32>
// CHECK-NEXT:    kernel.store %v, %y[%b, %t] : memref<4x32xf32>
// CHECK-NEXT:  }

// -----

kernel.func @k_wide(%x: memref<1100xf32>, %y: memref<1100xf32>) grid [5, 1, 1] block [256, 1, 1] smem 0 {
  %c256 = arith.constant 256 : index
  %c1100 = arith.constant 1100 : index
  %tid_local = kernel.thread_id x
  %vblock = kernel.block_id x
  %off = arith.muli %vblock, %c256 : index
  %t = arith.addi %off, %tid_local : index
  %in_tile = arith.cmpi ult, %t, %c1100 : index
  kernel.if %in_tile {
    tile.tile (%ta : 1100 = thread at %t) thread_id %t {
      %v = kernel.load %x[%ta] : memref<1100xf32>
      kernel.store %v, %y[%ta] : memref<1100xf32>
    }
  }
}

// CHECK-LABEL: kernel.func @k_wide
// CHECK:         %in_tile = arith.cmpi ult, %t, %c1100 : index
// CHECK-NEXT:    kernel.if %in_tile {
// CHECK-NEXT:      %v = kernel.load %x[%t] : memref<1100xf32>
// CHECK-NEXT:      kernel.store %v, %y[%t] : memref<1100xf32>
// CHECK-NEXT:    }

// -----

kernel.func @k_plain(%x: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf32>
  %w = arith.negf %v : f32
  kernel.store %w, %x[%t] : memref<32xf32>
}

// CHECK-LABEL: kernel.func @k_plain
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    %v = kernel.load %x[%t] : memref<32xf32>
// CHECK-NEXT:    %w = arith.negf %v : f32
// CHECK-NEXT:    kernel.store %w, %x[%t] : memref<32xf32>

