// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(lower-loops)' | filecheck %s
// lower-loops: the loops of a bound tile in their kernel forms. Cases: the four forms of a
// strided loop over 32 threads: one every thread runs once (%i = %ta), one some threads run
// once (kernel.if %ta < 20), one every thread runs exactly 4 times and marked unroll (a
// kernel.for over j with %i3 = %ta + j * 32), and the general one (a reduce, its accumulate a
// kernel.accumulate); a one-trip loop.for inlined (%k = 0) and a 16-trip one marked unroll; a
// tile without loops, left alone.
kernel.func @k_forms(%x: memref<128xf32>, %y: memref<128xf32>, %s: memref<1xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t) thread_id %t {
    tile.strided_for free %i = %ta to 32 step 32 {
      %v = loop.load %x[%i] : memref<128xf32>
      loop.store %v, %y[%i] : memref<128xf32>
    }
    tile.strided_for free %i2 = %ta to 20 step 32 {
      %v2 = loop.load %x[%i2 + 32] : memref<128xf32>
      loop.store %v2, %y[%i2 + 32] : memref<128xf32>
    }
    tile.strided_for free %i3 = %ta to 128 step 32 {
      %v3 = loop.load %x[%i3] : memref<128xf32>
      loop.store %v3, %y[%i3] : memref<128xf32>
    } {tile.unroll}
    %p = tile.strided_for reduce %i4 = %ta to 100 step 32 -> f32 {
      %v4 = loop.load %x[%i4] : memref<128xf32>
      loop.accumulate add %v4 : f32
    }
    %q = tile.combine add %p across [%ta] warp_shuffle : f32
    loop.store %q, %s[0] : memref<1xf32>
  }
}

// CHECK-LABEL: kernel.func @k_forms
// CHECK:         tile.tile (%ta : 32 = thread at %t) thread_id %t {
// CHECK-NEXT:      %v = loop.load %x[%ta] : memref<128xf32>
// CHECK-NEXT:      loop.store %v, %y[%ta] : memref<128xf32>
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %ta, %{{.*}} : index
// CHECK-NEXT:      kernel.if %[[IN]] {
// CHECK-NEXT:        %v2 = loop.load %x[%ta + 32] : memref<128xf32>
// CHECK-NEXT:        loop.store %v2, %y[%ta + 32] : memref<128xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.for %i3_j = 0 to 4 step 1 unroll {
// CHECK-NEXT:        %[[OFF:.*]] = arith.muli %i3_j, %{{.*}} : index
// CHECK-NEXT:        %i3 = arith.addi %ta, %[[OFF]] : index
// CHECK-NEXT:        %v3 = loop.load %x[%i3] : memref<128xf32>
// CHECK-NEXT:        loop.store %v3, %y[%i3] : memref<128xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %p = kernel.for %i4 = %ta to 100 step 32 -> f32 {
// CHECK-NEXT:        %v4 = loop.load %x[%i4] : memref<128xf32>
// CHECK-NEXT:        kernel.accumulate add %v4 : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %q = tile.combine add %p across [%ta] warp_shuffle : f32

// -----

kernel.func @k_loops(%x: memref<8x16xf32>, %y: memref<8xf32>) grid [1, 1, 1] block [8, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 8 = thread at %t) thread_id %t {
    %a = loop.for reduce %k < 1 -> f32 {
      %v = loop.load %x[%ta, %k] : memref<8x16xf32>
      loop.accumulate add %v : f32
    }
    %b = loop.for reduce %k2 < 16 -> f32 {
      %w = loop.load %x[%ta, %k2] : memref<8x16xf32>
      loop.accumulate max %w : f32
    } {tile.unroll}
    %c = arith.addf %a, %b : f32
    loop.store %c, %y[%ta] : memref<8xf32>
  }
}

// CHECK-LABEL: kernel.func @k_loops
// CHECK:         tile.tile (%ta : 8 = thread at %t) thread_id %t {
// CHECK-NEXT:      %v = loop.load %x[%ta, %{{.*}}] : memref<8x16xf32>
// CHECK-NEXT:      %b = kernel.for %k2 = 0 to 16 step 1 unroll -> f32 {
// CHECK-NEXT:        %w = loop.load %x[%ta, %k2] : memref<8x16xf32>
// CHECK-NEXT:        kernel.accumulate max %w : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %c = arith.addf %v, %b : f32

// -----

kernel.func @k_copy(%x: memref<32xf32>, %y: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t) thread_id %t {
    %v = loop.load %x[%ta] : memref<32xf32>
    loop.store %v, %y[%ta] : memref<32xf32>
  }
}

// CHECK-LABEL: kernel.func @k_copy
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    tile.tile (%ta : 32 = thread at %t) thread_id %t {
// CHECK-NEXT:      %v = loop.load %x[%ta] : memref<32xf32>
// CHECK-NEXT:      loop.store %v, %y[%ta] : memref<32xf32>

