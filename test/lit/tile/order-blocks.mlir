// RUN: dpl-opt %s --split-input-file --pass-pipeline='order-blocks{min-bytes=4096}' | filecheck %s
// order-blocks moves the block axes that a tile's large broadcast inputs do not index to the end
// of its block axes (fastest in the grid), so the blocks reading one tile of them run together.
// Cases: a norm's normalize kernel whose weight (4 x 64 x 64 floats, 64 KB) is read once per row
// of a batch of 8 (the batch axis moved last; the statistic per row, 32 bytes, does not count);
// declined: the same weight of 16 x 16 floats (1 KB, fewer than min-bytes = 4096 with the
// statistic's 32 bytes in another group), the batch axis already last, one block axis.

func.func @main(%x: memref<8x4x64x64xf32>, %w: memref<4x64x64xf32>, %stat: memref<8xf32>) -> memref<8x4x64x64xf32> {
  %y = memref.alloc() : memref<8x4x64x64xf32>
  tile.kernel @k_norm ins(%x, %w, %stat : memref<8x4x64x64xf32>, memref<4x64x64xf32>, memref<8xf32>) outs(%y : memref<8x4x64x64xf32>) {
    tile.tile (%a0 : 8 = block, %a1 : 4 = block, %a2 : 64 = block, %a3 : 64 = thread) {
      %s = loop.load %stat[%a0] : memref<8xf32>
      %v = loop.load %x[%a0, %a1, %a2, %a3] : memref<8x4x64x64xf32>
      %c = loop.load %w[%a1, %a2, %a3] : memref<4x64x64xf32>
      %m = arith.mulf %v, %s : f32
      %r = arith.mulf %m, %c : f32
      loop.store %r, %y[%a0, %a1, %a2, %a3] : memref<8x4x64x64xf32>
    }
  }
  func.return %y : memref<8x4x64x64xf32>
}
// CHECK-LABEL: tile.kernel @k_norm
// CHECK:         tile.tile (%a1 : 4 = block, %a2 : 64 = block, %a0 : 8 = block, %a3 : 64 = thread) {
// CHECK-NEXT:      %s = loop.load %stat[%a0] : memref<8xf32>
// CHECK-NEXT:      %v = loop.load %x[%a0, %a1, %a2, %a3] : memref<8x4x64x64xf32>
// CHECK-NEXT:      %c = loop.load %w[%a1, %a2, %a3] : memref<4x64x64xf32>

// -----

func.func @main(%x: memref<8x16x16xf32>, %w: memref<16x16xf32>, %stat: memref<8xf32>) -> memref<8x16x16xf32> {
  %y = memref.alloc() : memref<8x16x16xf32>
  tile.kernel @k_small ins(%x, %w, %stat : memref<8x16x16xf32>, memref<16x16xf32>, memref<8xf32>) outs(%y : memref<8x16x16xf32>) {
    tile.tile (%a0 : 8 = block, %a1 : 16 = block, %a2 : 16 = thread) {
      %s = loop.load %stat[%a0] : memref<8xf32>
      %v = loop.load %x[%a0, %a1, %a2] : memref<8x16x16xf32>
      %c = loop.load %w[%a1, %a2] : memref<16x16xf32>
      %m = arith.mulf %v, %s : f32
      %r = arith.mulf %m, %c : f32
      loop.store %r, %y[%a0, %a1, %a2] : memref<8x16x16xf32>
    }
  }
  func.return %y : memref<8x16x16xf32>
}
// CHECK-LABEL: tile.kernel @k_small
// CHECK:         tile.tile (%a0 : 8 = block, %a1 : 16 = block, %a2 : 16 = thread) {

// -----

func.func @main(%x: memref<4x64x64x8xf32>, %w: memref<4x64x64xf32>) -> memref<4x64x64x8xf32> {
  %y = memref.alloc() : memref<4x64x64x8xf32>
  tile.kernel @k_last ins(%x, %w : memref<4x64x64x8xf32>, memref<4x64x64xf32>) outs(%y : memref<4x64x64x8xf32>) {
    tile.tile (%a1 : 4 = block, %a2 : 64 = block, %a0 : 8 = block, %a3 : 64 = thread) {
      %v = loop.load %x[%a1, %a2, %a3, %a0] : memref<4x64x64x8xf32>
      %c = loop.load %w[%a1, %a2, %a3] : memref<4x64x64xf32>
      %r = arith.mulf %v, %c : f32
      loop.store %r, %y[%a1, %a2, %a3, %a0] : memref<4x64x64x8xf32>
    }
  }
  func.return %y : memref<4x64x64x8xf32>
}
// CHECK-LABEL: tile.kernel @k_last
// CHECK:         tile.tile (%a1 : 4 = block, %a2 : 64 = block, %a0 : 8 = block, %a3 : 64 = thread) {

// -----

func.func @main(%x: memref<8x64xf32>, %w: memref<64xf32>) -> memref<8x64xf32> {
  %y = memref.alloc() : memref<8x64xf32>
  tile.kernel @k_one_block_axis ins(%x, %w : memref<8x64xf32>, memref<64xf32>) outs(%y : memref<8x64xf32>) {
    tile.tile (%a0 : 8 = block, %a1 : 64 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<8x64xf32>
      %c = loop.load %w[%a1] : memref<64xf32>
      %r = arith.mulf %v, %c : f32
      loop.store %r, %y[%a0, %a1] : memref<8x64xf32>
    }
  }
  func.return %y : memref<8x64xf32>
}
// CHECK-LABEL: tile.kernel @k_one_block_axis
// CHECK:         tile.tile (%a0 : 8 = block, %a1 : 64 = thread) {
