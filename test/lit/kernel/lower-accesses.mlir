// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(lower-accesses)' | filecheck %s
// lower-accesses: the loads, stores, atomics and affine.applys of a bound tile as kernel ops,
// their maps over kernel values. Cases: a row max whose store does not depend on the lane axis
// it was combined across: only lane 0 of each row stores (%is_la0, in the prologue); an
// affine.apply folded into the accesses that use it, and expanded to index arithmetic for the
// loop bound that uses it, an axis of extent 1 (bound to 0) dropped from a map, an atomic, and a
// store no thread axis changes, guarded to thread 0 (%is_t0); accesses masked along dim 0 (rows
// of a 37-row buffer over 5 blocks of 8): the load clamped and selected to 0 outside, the store
// under `kernel.if %inside`, the atomic of a combined partial done by the threads at 0 on the
// combined axis (%is_ra0) inside the buffer; kernel ops only, left alone.
kernel.func @k_rowmax(%x: memref<8x256xf64>, %y: memref<8xf64>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %c16 = arith.constant 16 : index
  %tid = kernel.thread_id x
  %r = arith.divui %tid, %c16 : index
  %l = arith.remui %tid, %c16 : index
  tile.tile (%ra : 8 = thread at %r, %la : 16 = thread at %l) thread_id %tid {
    %part = kernel.for %j = %la to 256 step 16 -> f64 {
      %v = loop.load %x[%ra, %j] : memref<8x256xf64>
      kernel.accumulate max %v : f64
    }
    %m = tile.combine max %part across [%la] warp_shuffle : f64
    loop.store %m, %y[%ra] : memref<8xf64>
  }
}

// CHECK-LABEL: kernel.func @k_rowmax
// CHECK:         %tid = kernel.thread_id x
// CHECK-NEXT:    %r = arith.divui %tid, %c16 : index
// CHECK-NEXT:    %l = arith.remui %tid, %c16 : index
// CHECK-NEXT:    %is_la0 = arith.cmpi eq, %l, %{{.*}} : index
// CHECK-NEXT:    tile.tile (%ra : 8 = thread at %r, %la : 16 = thread at %l) thread_id %tid {
// CHECK-NEXT:      %part = kernel.for %j = %la to 256 step 16 -> f64 {
// CHECK-NEXT:        %v = kernel.load %x[%r, %j] : memref<8x256xf64>
// CHECK-NEXT:        kernel.accumulate max %v : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      %m = tile.combine max %part across [%la] warp_shuffle : f64
// CHECK-NEXT:      kernel.if %is_la0 {
// CHECK-NEXT:        kernel.store %m, %y[%r] : memref<8xf64>
// CHECK-NEXT:      }

// -----

kernel.func @k_apply(%x: memref<64xf32>, %y: memref<64xf32>, %first: memref<2xf32>) grid [2, 1, 1] block [32, 1, 1] smem 0 {
  %zero = arith.constant 0 : index
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ba : 2 = block at %b, %ta : 32 = thread at %t, %u : 1 = thread at %zero) thread_id %t {
    %g = affine.apply affine_map<(d0, d1) -> (d0 * 32 + d1)> (%ba, %ta)
    %v = loop.load %x[%g + %u] : memref<64xf32>
    loop.store %v, %y[%g] : memref<64xf32>
    kernel.for %i = %g to 64 step 64 {
      %w = loop.load %x[%i] : memref<64xf32>
      %s = arith.addf %w, %w : f32
      tile.atomic add %s, %y[%i] : memref<64xf32>
    }
    %h = loop.load %x[%ba * 32] : memref<64xf32>
    loop.store %h, %first[%ba] : memref<2xf32>
  }
}

// CHECK-LABEL: kernel.func @k_apply
// CHECK:         %t = kernel.thread_id x
// CHECK-NEXT:    %is_t0 = arith.cmpi eq, %t, %{{.*}} : index
// CHECK-NEXT:    tile.tile
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %b, %{{.*}} : index
// CHECK-NEXT:      %g = arith.addi %[[ROW]], %t : index
// CHECK-NEXT:      %v = kernel.load %x[%b * 32 + %t] : memref<64xf32>
// CHECK-NEXT:      kernel.store %v, %y[%b * 32 + %t] : memref<64xf32>
// CHECK-NEXT:      kernel.for %i = %g to 64 step 64 {
// CHECK-NEXT:        %w = kernel.load %x[%i] : memref<64xf32>
// CHECK-NEXT:        %s = arith.addf %w, %w : f32
// CHECK-NEXT:        kernel.atomic add %s, %y[%i] : memref<64xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %h = kernel.load %x[%b * 32] : memref<64xf32>
// CHECK-NEXT:      kernel.if %is_t0 {
// CHECK-NEXT:        kernel.store %h, %first[%b] : memref<2xf32>
// CHECK-NEXT:      }

// -----

kernel.func @k_masked(%x: memref<37x5xf32>, %y: memref<37x5xf32>, %s: memref<37xf32>) grid [5, 1, 1] block [32, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %c8 = arith.constant 8 : index
  %r = arith.divui %t, %c8 : index
  %l = arith.remui %t, %c8 : index
  tile.tile (%ba : 5 = block at %b, %ra : 4 = thread at %r, %la : 8 = thread at %l) thread_id %t {
    %v = loop.load %x[%ba * 8 + %la, %ra] {tile.masked = [0 : i64]} : memref<37x5xf32>
    loop.store %v, %y[%ba * 8 + %la, %ra] {tile.masked = [0 : i64]} : memref<37x5xf32>
    %m = tile.combine add %v across [%ra] tree : f32
    tile.atomic add %m, %s[%ba * 8 + %la] {tile.masked = [0 : i64]} : memref<37xf32>
  }
}

// CHECK-LABEL: kernel.func @k_masked
// CHECK:         %is_ra0 = arith.cmpi eq, %r, %{{.*}} : index
// CHECK-NEXT:    tile.tile
// CHECK-NEXT:      %{{.*}} = arith.muli %b, %{{.*}} : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %{{.*}}, %l : index
// CHECK-NEXT:      %inside = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK:           %[[C:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %v = kernel.load %x[%[[C]], %r] if %inside : memref<37x5xf32>
// CHECK:           %[[IN2:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      kernel.if %[[IN2]] {
// CHECK-NEXT:        kernel.store %v, %y[%b * 8 + %l, %r] : memref<37x5xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %m = tile.combine add %v across [%ra] tree : f32
// CHECK:           %[[IN3:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      kernel.if %is_ra0 {
// CHECK-NEXT:        kernel.if %[[IN3]] {
// CHECK-NEXT:          kernel.atomic add %m, %s[%b * 8 + %l] : memref<37xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }

// -----

kernel.func @k_none(%x: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t) thread_id %t {
    %v = kernel.load %x[%t] : memref<32xf32>
    %w = arith.negf %v : f32
    kernel.store %w, %x[%t] : memref<32xf32>
  }
}

// CHECK-LABEL: kernel.func @k_none
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    tile.tile (%ta : 32 = thread at %t) thread_id %t {
// CHECK-NEXT:      %v = kernel.load %x[%t] : memref<32xf32>
// CHECK-NEXT:      %w = arith.negf %v : f32
// CHECK-NEXT:      kernel.store %w, %x[%t] : memref<32xf32>


// -----

// tile.hold: a register array filled by an unrolled loop of loads, masked along the row's last
// dim (37 elements on 16 lanes, 3 trips), and read at the counted loop's index.
kernel.func @k_hold(%x: memref<4x37xf32>, %y: memref<4xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %c16 = arith.constant 16 : index
  %tid = kernel.thread_id x
  %r = arith.divui %tid, %c16 : index
  %l = arith.remui %tid, %c16 : index
  tile.tile (%ra : 4 = thread at %r, %la : 16 = thread at %l) thread_id %tid {
    %x_reg = tile.hold %x[%ra, %la] step 16 {tile.masked = [1 : i64]} : memref<4x37xf32> -> memref<3xf32>
    %part = kernel.for %j = 0 to 3 step 1 unroll -> f32 {
      %v = loop.load %x_reg[%j] : memref<3xf32>
      kernel.accumulate add %v : f32
    }
    %s = tile.combine add %part across [%la] warp_shuffle : f32
    loop.store %s, %y[%ra] : memref<4xf32>
  }
}

// CHECK-LABEL: kernel.func @k_hold
// CHECK:         %x_reg = kernel.alloca : memref<3xf32>
// CHECK-NEXT:    kernel.for %j = 0 to 3 step 1 unroll {
// CHECK:           %inside = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK:           %[[V:.*]] = kernel.load %x[%r, %{{.*}}] if %inside : memref<4x37xf32>
// CHECK-NEXT:      kernel.store %[[V]], %x_reg[%j] : memref<3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %part = kernel.for %j_1 = 0 to 3 step 1 unroll -> f32 {
// CHECK-NEXT:      %v = kernel.load %x_reg[%j_1] : memref<3xf32>
