// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(unroll-cells)' | filecheck %s
// unroll-cells: the cell axes (a register tile) leave the tile.tile; cell-dependent ops get one
// copy per cell point (`_c0`, `_c1`), a cell index becomes that point's constant. Cases: a
// reduce loop whose accumulator depends on the cell stays one loop with one result per cell,
// the scalar code after it is copied; a combine of a cell-dependent partial combines both
// copies at once; a tile without cells is left alone.

func.func @main(%x: memref<16x8xf32>) -> memref<16xf32> {
  %y = memref.alloc() : memref<16xf32>
  tile.kernel @k_rowsum ins(%x : memref<16x8xf32>) outs(%y : memref<16xf32>) {
    tile.tile (%a0 : 8 = thread, %c0 : 2 = cell) {
      %s = loop.for reduce %k < 8 -> f32 {
        %v = loop.load %x[%a0 * 2 + %c0, %k] : memref<16x8xf32>
        loop.accumulate add %v : f32
      }
      %h = arith.constant 0.5 : f32
      %r = arith.mulf %s, %h : f32
      loop.store %r, %y[%a0 * 2 + %c0] : memref<16xf32>
    }
  }
  func.return %y : memref<16xf32>
}

// CHECK-LABEL: tile.kernel @k_rowsum
// CHECK-NEXT:    tile.tile (%a0 : 8 = thread) {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %s_c0, %s_c1 = loop.for reduce %k < 8 -> f32, f32 {
// CHECK-NEXT:        %v_c0 = loop.load %x[%a0 * 2 + %[[C0]], %k] : memref<16x8xf32>
// CHECK-NEXT:        %v_c1 = loop.load %x[%a0 * 2 + %[[C1]], %k] : memref<16x8xf32>
// CHECK-NEXT:        loop.accumulate add %v_c0, add %v_c1 : f32, f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %h = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %r_c0 = arith.mulf %s_c0, %h : f32
// CHECK-NEXT:      %r_c1 = arith.mulf %s_c1, %h : f32
// CHECK-NEXT:      loop.store %r_c0, %y[%a0 * 2 + %[[C0]]] : memref<16xf32>
// CHECK-NEXT:      loop.store %r_c1, %y[%a0 * 2 + %[[C1]]] : memref<16xf32>
// CHECK-NEXT:    }

// -----

func.func @main(%x: memref<4x64xf32>) -> memref<4x2xf32> {
  %y = memref.alloc() : memref<4x2xf32>
  tile.kernel @k_pairs ins(%x : memref<4x64xf32>) outs(%y : memref<4x2xf32>) {
    tile.tile (%b : 4 = block, %t : 32 = thread, %c : 2 = cell) {
      %v = loop.load %x[%b, %c * 32 + %t] : memref<4x64xf32>
      %s = tile.combine add %v across [%t] warp_shuffle : f32
      loop.store %s, %y[%b, %c] : memref<4x2xf32>
    }
  }
  func.return %y : memref<4x2xf32>
}

// CHECK-LABEL: tile.kernel @k_pairs
// CHECK-NEXT:    tile.tile (%b : 4 = block, %t : 32 = thread) {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %v_c0 = loop.load %x[%b, %[[C0]] * 32 + %t] : memref<4x64xf32>
// CHECK-NEXT:      %v_c1 = loop.load %x[%b, %[[C1]] * 32 + %t] : memref<4x64xf32>
// CHECK-NEXT:      %s_c0, %s_c1 = tile.combine add %v_c0, %v_c1 across [%t] warp_shuffle : f32, f32
// CHECK-NEXT:      loop.store %s_c0, %y[%b, %[[C0]]] : memref<4x2xf32>
// CHECK-NEXT:      loop.store %s_c1, %y[%b, %[[C1]]] : memref<4x2xf32>

// -----

func.func @main(%x: memref<64xf32>) -> memref<64xf32> {
  %y = memref.alloc() : memref<64xf32>
  tile.kernel @k_no_cells ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%t : 64 = thread) {
      %v = loop.load %x[%t] : memref<64xf32>
      loop.store %v, %y[%t] : memref<64xf32>
    }
  }
  func.return %y : memref<64xf32>
}

// CHECK-LABEL: tile.kernel @k_no_cells
// CHECK-NEXT:    tile.tile (%t : 64 = thread) {
// CHECK-NEXT:      %v = loop.load %x[%t] : memref<64xf32>
// CHECK-NEXT:      loop.store %v, %y[%t] : memref<64xf32>
