// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(outline-kernels)' | filecheck %s
// outline-kernels: each tile.kernel becomes a kernel.func (before @main) launched in its place;
// the func's grid/block and block/thread indices come from the tile's axes, and the tile moves
// in bound to them. Cases: a block axis in grid x and two thread axes split from one thread
// index; 1100 threads, more than a block holds: blocks of 256 in grid x, the tile guarded to
// the threads inside it; four block axes, more than the grid's three dims: one flat block index
// split by div/mod; a loop.kernel, which is left alone (tile-loop-kernels runs first); buffers
// taken through loop.views (launched as their sources).
func.func @main(%x: memref<4x64xf32>) -> memref<4x64xf32> {
  %y = memref.alloc() : memref<4x64xf32>
  tile.kernel @k_relu ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    %zero = arith.constant 0.0 : f32
    tile.tile (%b : 4 = block, %t0 : 2 = thread, %t1 : 32 = thread) {
      %v = loop.load %x[%b, %t0 * 32 + %t1] : memref<4x64xf32>
      %r = arith.maximumf %v, %zero : f32
      loop.store %r, %y[%b, %t0 * 32 + %t1] : memref<4x64xf32>
    }
  }
  func.return %y : memref<4x64xf32>
}

// CHECK-LABEL: kernel.func @k_relu(%x: memref<4x64xf32>, %y: memref<4x64xf32>) grid [4, 1, 1] block [64, 1, 1] smem 0 {
// CHECK:         %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %b = kernel.block_id x
// CHECK-NEXT:    %tid = kernel.thread_id x
// CHECK-NEXT:    %t0 = arith.divui %tid, %{{.*}} : index
// CHECK-NEXT:    %t1 = arith.remui %tid, %{{.*}} : index
// CHECK-NEXT:    tile.tile (%b_1 : 4 = block at %b, %t0_1 : 2 = thread at %t0, %t1_1 : 32 = thread at %t1) thread_id %tid {
// CHECK-NEXT:      %v = loop.load %x[%b_1, %t0_1 * 32 + %t1_1] : memref<4x64xf32>
// CHECK-NEXT:      %r = arith.maximumf %v, %zero : f32
// CHECK-NEXT:      loop.store %r, %y[%b_1, %t0_1 * 32 + %t1_1] : memref<4x64xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @main(%x: memref<4x64xf32>) -> memref<4x64xf32> {
// CHECK-NEXT:    %y = memref.alloc() : memref<4x64xf32>
// CHECK-NEXT:    kernel.launch @k_relu(%x, %y) : memref<4x64xf32>, memref<4x64xf32>

// -----

func.func @main(%x: memref<1100xf32>) -> memref<1100xf32> {
  %y = memref.alloc() : memref<1100xf32>
  tile.kernel @k_wide ins(%x : memref<1100xf32>) outs(%y : memref<1100xf32>) {
    tile.tile (%t : 1100 = thread) {
      %v = loop.load %x[%t] : memref<1100xf32>
      loop.store %v, %y[%t] : memref<1100xf32>
    }
  }
  func.return %y : memref<1100xf32>
}

// CHECK-LABEL: kernel.func @k_wide(%x: memref<1100xf32>, %y: memref<1100xf32>) grid [5, 1, 1] block [256, 1, 1] smem 0 {
// CHECK:         %tid_local = kernel.thread_id x
// CHECK-NEXT:    %vblock = kernel.block_id x
// CHECK-NEXT:    %[[OFF:.*]] = arith.muli %vblock, %{{.*}} : index
// CHECK-NEXT:    %t = arith.addi %[[OFF]], %tid_local : index
// CHECK-NEXT:    %in_tile = arith.cmpi ult, %t, %{{.*}} : index
// CHECK-NEXT:    kernel.if %in_tile {
// CHECK-NEXT:      tile.tile (%t_1 : 1100 = thread at %t) thread_id %t {

// -----

func.func @main(%x: memref<2x3x4x5xf32>) -> memref<2x3x4x5xf32> {
  %y = memref.alloc() : memref<2x3x4x5xf32>
  tile.kernel @k_4d ins(%x : memref<2x3x4x5xf32>) outs(%y : memref<2x3x4x5xf32>) {
    tile.tile (%i : 2 = block, %j : 3 = block, %k : 4 = block, %l : 5 = block) {
      %v = loop.load %x[%i, %j, %k, %l] : memref<2x3x4x5xf32>
      loop.store %v, %y[%i, %j, %k, %l] : memref<2x3x4x5xf32>
    }
  }
  func.return %y : memref<2x3x4x5xf32>
}

// CHECK-LABEL: kernel.func @k_4d(%x: memref<2x3x4x5xf32>, %y: memref<2x3x4x5xf32>) grid [120, 1, 1] block [1, 1, 1] smem 0 {
// CHECK:         %bid = kernel.block_id x
// CHECK-NEXT:    %i = arith.divui %bid, %{{.*}} : index
// CHECK-NEXT:    %[[J:.*]] = arith.divui %bid, %{{.*}} : index
// CHECK-NEXT:    %j = arith.remui %[[J]], %{{.*}} : index
// CHECK-NEXT:    %[[K:.*]] = arith.divui %bid, %{{.*}} : index
// CHECK-NEXT:    %k = arith.remui %[[K]], %{{.*}} : index
// CHECK-NEXT:    %l = arith.remui %bid, %{{.*}} : index
// CHECK-NEXT:    tile.tile (%i_1 : 2 = block at %i, %j_1 : 3 = block at %j, %k_1 : 4 = block at %k, %l_1 : 5 = block at %l) {

// -----

func.func @main(%x: memref<8xf32>) -> memref<8xf32> {
  %y = memref.alloc() : memref<8xf32>
  loop.kernel @k_loop ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
    loop.for free %i < 8 {
      %v = loop.load %x[%i] : memref<8xf32>
      loop.store %v, %y[%i] : memref<8xf32>
    }
  }
  func.return %y : memref<8xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<8xf32>)
// CHECK-NEXT:    %y = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    loop.kernel @k_loop


// -----

// A buffer taken through a loop.view (merge-dims): the func's parameter is the view's type, the
// launch passes the view's source, and the view goes.
func.func @main(%x: memref<4x2x32xf32>) -> memref<4x2x32xf32> {
  %y = memref.alloc() : memref<4x2x32xf32>
  %xv = loop.view %x : memref<4x2x32xf32> -> memref<4x64xf32>
  %yv = loop.view %y : memref<4x2x32xf32> -> memref<4x64xf32>
  tile.kernel @k_relu ins(%xv : memref<4x64xf32>) outs(%yv : memref<4x64xf32>) {
    %zero = arith.constant 0.0 : f32
    tile.tile (%b : 4 = block, %t : 64 = thread) {
      %v = loop.load %xv[%b, %t] : memref<4x64xf32>
      %r = arith.maximumf %v, %zero : f32
      loop.store %r, %yv[%b, %t] : memref<4x64xf32>
    }
  }
  func.return %y : memref<4x2x32xf32>
}

// CHECK-LABEL: kernel.func @k_relu(%xv: memref<4x64xf32>, %yv: memref<4x64xf32>) grid [4, 1, 1] block [64, 1, 1] smem 0 {
// CHECK:         loop.load %xv[%b_1, %t_1] : memref<4x64xf32>
// CHECK:       func.func @main(%x: memref<4x2x32xf32>) -> memref<4x2x32xf32> {
// CHECK-NEXT:    %y = memref.alloc() : memref<4x2x32xf32>
// CHECK-NEXT:    kernel.launch @k_relu(%x, %y) : memref<4x2x32xf32>, memref<4x2x32xf32>
// CHECK-NEXT:    func.return %y : memref<4x2x32xf32>
