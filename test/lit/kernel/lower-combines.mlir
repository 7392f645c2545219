// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(lower-combines)' | filecheck %s
// lower-combines: each tile.combine of a bound tile as shuffles or a shared-memory tree.
// Cases: 16 lanes of a warp (xor butterfly); 256 threads (a butterfly per warp, lane 0 of each
// of the 8 warps writes slots 0-7, warp 0 folds them with shuffle_down and writes slot 8, which
// every thread reads back: lane 0 may not write slot 0 while other lanes of warp 0 still read
// the slots); 5 threads per row, `tree` (halving steps through shared memory, a barrier
// each), and a tree across the slower axis (lane-major slots); a combine across an axis of one
// thread, which is just its partial.
kernel.func @k_xor(%x: memref<8x16xf32>, %y: memref<8x16xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %c16 = arith.constant 16 : index
  %tid = kernel.thread_id x
  %r = arith.divui %tid, %c16 : index
  %l = arith.remui %tid, %c16 : index
  tile.tile (%ra : 8 = thread at %r, %la : 16 = thread at %l) thread_id %tid {
    %v = kernel.load %x[%r, %l] : memref<8x16xf32>
    %m = tile.combine max %v across [%la] warp_shuffle : f32
    kernel.store %m, %y[%r, %l] : memref<8x16xf32>
  }
}

// CHECK-LABEL: kernel.func @k_xor
// CHECK:         %v = kernel.load %x[%r, %l] : memref<8x16xf32>
// CHECK-NEXT:    %m_sh8 = kernel.shuffle_xor %v, 8 : f32
// CHECK-NEXT:    %m_w8 = arith.maximumf %v, %m_sh8 : f32
// CHECK-NEXT:    %m_sh4 = kernel.shuffle_xor %m_w8, 4 : f32
// CHECK:         %m_sh1 = kernel.shuffle_xor %m_w2, 1 : f32
// CHECK-NEXT:    %m = arith.maximumf %m_w2, %m_sh1 : f32
// CHECK-NEXT:    kernel.store %m, %y[%r, %l] : memref<8x16xf32>

// -----

kernel.func @k_warps(%x: memref<4x256xf32>, %y: memref<4x256xf32>) grid [4, 1, 1] block [256, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 256 = thread at %t, %ba : 4 = block at %b) thread_id %t {
    %v = kernel.load %x[%b, %t] : memref<4x256xf32>
    %s = tile.combine add %v across [%ta] warp_shuffle : f32
    kernel.store %s, %y[%b, %t] : memref<4x256xf32>
  }
}

// CHECK-LABEL: kernel.func @k_warps
// CHECK:         %t = kernel.thread_id x
// CHECK-NEXT:    %lane = kernel.lane_id
// CHECK-NEXT:    %warp = kernel.warp_id
// CHECK-NEXT:    %is_lane0 = arith.cmpi eq, %lane, %{{.*}} : index
// CHECK-NEXT:    %is_warp0 = arith.cmpi eq, %warp, %{{.*}} : index
// CHECK-NEXT:    tile.tile
// CHECK-NEXT:      %v = kernel.load %x[%b, %t] : memref<4x256xf32>
// CHECK-NEXT:      %s_sh16 = kernel.shuffle_xor %v, 16 : f32
// CHECK:           %s_w = arith.addf %s_w2, %s_sh1 : f32
// CHECK-NEXT:      %s_smem = kernel.smem : memref<9xf32, #kernel.smem>
// CHECK-NEXT:      kernel.if %is_lane0 {
// CHECK-NEXT:        kernel.store %s_w, %s_smem[%warp] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      kernel.if %is_warp0 {
// CHECK-NEXT:        %in_range = arith.cmpi ult, %lane, %{{.*}} : index
// CHECK-NEXT:        %part = kernel.load %s_smem[%lane mod 8] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:        %p = arith.select %in_range, %part, %{{.*}} : f32
// CHECK-NEXT:        %d4 = kernel.shuffle_down %p, 4 width 8 : f32
// CHECK:             %p1 = arith.addf %p2, %d1 : f32
// CHECK-NEXT:        kernel.if %is_lane0 {
// CHECK-NEXT:          kernel.store %p1, %s_smem[8] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      %s = kernel.load %s_smem[8] : memref<9xf32, #kernel.smem>
// CHECK-NEXT:      kernel.store %s, %y[%b, %t] : memref<4x256xf32>

// -----

kernel.func @k_tree(%x: memref<3x5xf64>, %y: memref<3x5xf64>) grid [1, 1, 1] block [15, 1, 1] smem 0 {
  %c5 = arith.constant 5 : index
  %tid = kernel.thread_id x
  %r = arith.divui %tid, %c5 : index
  %l = arith.remui %tid, %c5 : index
  tile.tile (%ra : 3 = thread at %r, %la : 5 = thread at %l) thread_id %tid {
    %v = kernel.load %x[%r, %l] : memref<3x5xf64>
    %s = tile.combine add %v across [%la] tree : f64
    kernel.store %s, %y[%r, %l] : memref<3x5xf64>
  }
}

// CHECK-LABEL: kernel.func @k_tree
// CHECK:         %v = kernel.load %x[%r, %l] : memref<3x5xf64>
// CHECK-NEXT:    %s_smem = kernel.smem : memref<15xf64, #kernel.smem>
// CHECK-NEXT:    kernel.store %v, %s_smem[%r * 5 + %l] : memref<15xf64, #kernel.smem>
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %[[C4:.*]] = arith.cmpi ult, %l, %{{.*}} : index
// CHECK-NEXT:    kernel.if %[[C4]] {
// CHECK-NEXT:      %[[A:.*]] = kernel.load %s_smem[%r * 5 + %l] : memref<15xf64, #kernel.smem>
// CHECK-NEXT:      %[[B:.*]] = kernel.load %s_smem[%r * 5 + %l + 4] : memref<15xf64, #kernel.smem>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[B]] : f64
// CHECK-NEXT:      kernel.store %[[S]], %s_smem[%r * 5 + %l] : memref<15xf64, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK:         kernel.load %s_smem[%r * 5 + %l + 2]
// CHECK:         kernel.load %s_smem[%r * 5 + %l + 1]
// CHECK:         kernel.barrier
// CHECK-NEXT:    %s = kernel.load %s_smem[%r * 5] : memref<15xf64, #kernel.smem>
// CHECK-NEXT:    kernel.store %s, %y[%r, %l] : memref<3x5xf64>

// -----

// The combined axis is the slower one (4 lanes, each a warp; a column reduction's warp of 32
// columns the fastest): lane-major slots (lane * 32 + column), so that a warp's 32 writes and
// reads are consecutive words, not 4 apart.

kernel.func @k_tree_lane_major(%x: memref<4x32xf32>, %y: memref<32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %c32 = arith.constant 32 : index
  %tid = kernel.thread_id x
  %l = arith.divui %tid, %c32 : index
  %c = arith.remui %tid, %c32 : index
  tile.tile (%la : 4 = thread at %l, %ca : 32 = thread at %c) thread_id %tid {
    %v = kernel.load %x[%l, %c] : memref<4x32xf32>
    %s = tile.combine add %v across [%la] tree : f32
    kernel.store %s, %y[%c] : memref<32xf32>
  }
}

// CHECK-LABEL: kernel.func @k_tree_lane_major
// CHECK:         %s_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    kernel.store %v, %s_smem[%c + %l * 32] : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %[[C2:.*]] = arith.cmpi ult, %l, %{{.*}} : index
// CHECK-NEXT:    kernel.if %[[C2]] {
// CHECK-NEXT:      %[[A:.*]] = kernel.load %s_smem[%c + %l * 32] : memref<128xf32, #kernel.smem>
// CHECK-NEXT:      %[[B:.*]] = kernel.load %s_smem[%c + %l * 32 + 64] : memref<128xf32, #kernel.smem>
// CHECK:         kernel.load %s_smem[%c + %l * 32 + 32]
// CHECK:         kernel.barrier
// CHECK-NEXT:    %s = kernel.load %s_smem[%c] : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    kernel.store %s, %y[%c] : memref<32xf32>

// -----

kernel.func @k_one(%x: memref<32xf32>, %y: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %zero = arith.constant 0 : index
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t, %ua : 1 = thread at %zero) thread_id %t {
    %v = kernel.load %x[%t] : memref<32xf32>
    %s = tile.combine add %v across [%ua] warp_shuffle : f32
    kernel.store %s, %y[%t] : memref<32xf32>
  }
}

// CHECK-LABEL: kernel.func @k_one
// CHECK:         tile.tile
// CHECK-NEXT:      %v = kernel.load %x[%t] : memref<32xf32>
// CHECK-NEXT:      kernel.store %v, %y[%t] : memref<32xf32>
// CHECK-NEXT:    }

