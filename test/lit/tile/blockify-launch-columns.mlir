// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch{sms=1}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch{block-size=16}' | filecheck %s --check-prefix=SMALL

// A one-pass column reduction whose columns fill the GPU takes fewer lanes (column_lanes): on
// one SM, 64 x 96 = 6144 columns fill it twice with 1 lane (2 x 2048 threads), so each thread
// loads its whole column. 96 columns hold no more warps than 3, so the 8 warps of the block
// come from the axis before: 8 rows of 64, each warp 32 consecutive columns of one row.
func.func @main(%x: memref<64x40x96xf32>) -> memref<64x96xf32> {
  %sum = memref.alloc() : memref<64x96xf32>
  tile.kernel @k_wide ins(%x : memref<64x40x96xf32>) outs(%sum : memref<64x96xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 96 = thread) {
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<64x40x96xf32>
        loop.accumulate add %in : f32
      }
      loop.store %acc, %sum[%a0, %a1] : memref<64x96xf32>
    }
  }
  func.return %sum : memref<64x96xf32>
}

// CHECK-LABEL: tile.kernel @k_wide
// CHECK:      tile.tile (%lane : 1 = thread, %a0_b : 8 = block, %a0_t : 8 = thread, %a1_b : 3 = block, %a1_t : 32 = thread) {
// CHECK:        loop.load %x[%a0_b * 8 + %a0_t, %r0, %a1_b * 32 + %a1_t]

// -----

// Where the column axis has warps to spare, the block's other warps go along it: 8 x 512
// columns on 1 lane, 256 threads of columns a block.
func.func @main(%x: memref<8x40x512xf32>) -> memref<8x512xf32> {
  %sum = memref.alloc() : memref<8x512xf32>
  tile.kernel @k_long ins(%x : memref<8x40x512xf32>) outs(%sum : memref<8x512xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 512 = thread) {
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<8x40x512xf32>
        loop.accumulate max %in : f32
      }
      loop.store %acc, %sum[%a0, %a1] : memref<8x512xf32>
    }
  }
  func.return %sum : memref<8x512xf32>
}

// CHECK-LABEL: tile.kernel @k_long
// CHECK:      tile.tile (%lane : 1 = thread, %a0 : 8 = block, %a1_b : 2 = block, %a1_t : 256 = thread) {

// -----

// Declined: 2 x 64 columns fill no SM even with 8 lanes, which they keep (a warp of columns,
// the lanes the rest of the block).
func.func @main(%x: memref<2x40x64xf32>) -> memref<2x64xf32> {
  %sum = memref.alloc() : memref<2x64xf32>
  tile.kernel @k_few ins(%x : memref<2x40x64xf32>) outs(%sum : memref<2x64xf32>) {
    tile.tile (%a0 : 2 = thread, %a1 : 64 = thread) {
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<2x40x64xf32>
        loop.accumulate add %in : f32
      }
      loop.store %acc, %sum[%a0, %a1] : memref<2x64xf32>
    }
  }
  func.return %sum : memref<2x64xf32>
}

// CHECK-LABEL: tile.kernel @k_few
// CHECK:      tile.tile (%lane : 8 = thread, %a0 : 2 = block, %a1_b : 2 = block, %a1_t : 32 = thread) {
// CHECK:        loop.for reduce %r0 < 40

// A block-size below a warp still gives a column its whole warp, on 1 lane.
// SMALL-LABEL: tile.kernel @k_few
// SMALL:      tile.tile (%lane : 1 = thread, %a0 : 2 = block, %a1_b : 2 = block, %a1_t : 32 = thread) {

// -----

// A column norm (a reduce over the column, then a pass that normalizes it) takes the fewest
// lanes, from 2, that pass over its column in 24 to 32 trips, so hold-rows keeps the column in
// registers (column_norm_lanes): 64 channels on 2 lanes, 32 trips each, where 64 x 128 columns
// on 2 lanes fill half the SM; the block's other 4 warps go along the column axis (128
// consecutive elements a row).
func.func @main(%x: memref<64x64x128xf32>) -> memref<64x64x128xf32> {
  %out = memref.alloc() : memref<64x64x128xf32>
  tile.kernel @k_norm ins(%x : memref<64x64x128xf32>) outs(%out : memref<64x64x128xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 128 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<64x64x128xf32>
        %sq = arith.mulf %in, %in : f32
        loop.accumulate add %sq : f32
      }
      loop.for free %c < 64 {
        %v = loop.load %x[%a0, %c, %a1] : memref<64x64x128xf32>
        %o = arith.mulf %v, %acc : f32
        loop.store %o, %out[%a0, %c, %a1] : memref<64x64x128xf32>
      }
    }
  }
  func.return %out : memref<64x64x128xf32>
}

// CHECK-LABEL: tile.kernel @k_norm
// CHECK:      tile.tile (%lane : 2 = thread, %a0 : 64 = block, %a1 : 128 = thread) {
// CHECK:        tile.strided_for free %c = %lane to 64 step 2 {

// -----

// Declined: 96 columns hold 3 warps, an odd number, so the 4 warps a block of 2 lanes adds
// would go along the axis before; a block of one warp of columns a row ran slower on fewer
// lanes (COLUMN_NORM_RUN), so it keeps the block's 8 lanes.
func.func @main(%x: memref<64x64x96xf32>) -> memref<64x64x96xf32> {
  %out = memref.alloc() : memref<64x64x96xf32>
  tile.kernel @k_narrow ins(%x : memref<64x64x96xf32>) outs(%out : memref<64x64x96xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 96 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<64x64x96xf32>
        %sq = arith.mulf %in, %in : f32
        loop.accumulate add %sq : f32
      }
      loop.for free %c < 64 {
        %v = loop.load %x[%a0, %c, %a1] : memref<64x64x96xf32>
        %o = arith.mulf %v, %acc : f32
        loop.store %o, %out[%a0, %c, %a1] : memref<64x64x96xf32>
      }
    }
  }
  func.return %out : memref<64x64x96xf32>
}

// CHECK-LABEL: tile.kernel @k_narrow
// CHECK:      tile.tile (%lane : 8 = thread, %a0 : 64 = block, %a1_b : 3 = block, %a1_t : 32 = thread) {

// -----

// Declined: a column of 32 channels on 2 lanes is 16 trips, too few for hold-rows to hold, so
// it keeps the block's 8 lanes (the reduce shared across them).
func.func @main(%x: memref<64x32x96xf32>) -> memref<64x32x96xf32> {
  %out = memref.alloc() : memref<64x32x96xf32>
  tile.kernel @k_short ins(%x : memref<64x32x96xf32>) outs(%out : memref<64x32x96xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 96 = thread) {
      %acc = loop.for reduce %r0 < 32 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<64x32x96xf32>
        loop.accumulate add %in : f32
      }
      loop.for free %c < 32 {
        %v = loop.load %x[%a0, %c, %a1] : memref<64x32x96xf32>
        %o = arith.mulf %v, %acc : f32
        loop.store %o, %out[%a0, %c, %a1] : memref<64x32x96xf32>
      }
    }
  }
  func.return %out : memref<64x32x96xf32>
}

// CHECK-LABEL: tile.kernel @k_short
// CHECK:      tile.tile (%lane : 8 = thread, %a0 : 64 = block, %a1_b : 3 = block, %a1_t : 32 = thread) {

// -----

// Declined: 2 x 96 columns of 64 channels on 2 lanes would not fill half the SM; 8 lanes.
func.func @main(%x: memref<2x64x96xf32>) -> memref<2x64x96xf32> {
  %out = memref.alloc() : memref<2x64x96xf32>
  tile.kernel @k_few_norm ins(%x : memref<2x64x96xf32>) outs(%out : memref<2x64x96xf32>) {
    tile.tile (%a0 : 2 = thread, %a1 : 96 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<2x64x96xf32>
        loop.accumulate add %in : f32
      }
      loop.for free %c < 64 {
        %v = loop.load %x[%a0, %c, %a1] : memref<2x64x96xf32>
        %o = arith.mulf %v, %acc : f32
        loop.store %o, %out[%a0, %c, %a1] : memref<2x64x96xf32>
      }
    }
  }
  func.return %out : memref<2x64x96xf32>
}

// CHECK-LABEL: tile.kernel @k_few_norm
// CHECK:      tile.tile (%lane : 8 = thread, %a0 : 2 = block, %a1_b : 3 = block, %a1_t : 32 = thread) {

// -----

// A column norm longer than 8 lanes hold (256 channels) takes more lanes, up to 32, where they
// hold it from 16 trips (column_wide_lanes): 384 channels on 16 lanes, 24 trips each, a block
// of 512 threads.
func.func @main(%x: memref<8x384x64xf32>) -> memref<8x384x64xf32> {
  %out = memref.alloc() : memref<8x384x64xf32>
  tile.kernel @k_wide_norm ins(%x : memref<8x384x64xf32>) outs(%out : memref<8x384x64xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {
      %acc = loop.for reduce %r0 < 384 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<8x384x64xf32>
        %sq = arith.mulf %in, %in : f32
        loop.accumulate add %sq : f32
      }
      loop.for free %c < 384 {
        %v = loop.load %x[%a0, %c, %a1] : memref<8x384x64xf32>
        %o = arith.mulf %v, %acc : f32
        loop.store %o, %out[%a0, %c, %a1] : memref<8x384x64xf32>
      }
    }
  }
  func.return %out : memref<8x384x64xf32>
}

// CHECK-LABEL: tile.kernel @k_wide_norm
// CHECK:      tile.tile (%lane : 16 = thread, %a0 : 8 = block, %a1_b : 2 = block, %a1_t : 32 = thread) {
// CHECK:        tile.strided_for free %c = %lane to 384 step 16 {

// -----

// Declined: 1200 channels on 32 lanes are 38 trips, more than hold-rows holds; 8 lanes.
func.func @main(%x: memref<8x1200x64xf32>) -> memref<8x1200x64xf32> {
  %out = memref.alloc() : memref<8x1200x64xf32>
  tile.kernel @k_too_long ins(%x : memref<8x1200x64xf32>) outs(%out : memref<8x1200x64xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {
      %acc = loop.for reduce %r0 < 1200 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1] : memref<8x1200x64xf32>
        %sq = arith.mulf %in, %in : f32
        loop.accumulate add %sq : f32
      }
      loop.for free %c < 1200 {
        %v = loop.load %x[%a0, %c, %a1] : memref<8x1200x64xf32>
        %o = arith.mulf %v, %acc : f32
        loop.store %o, %out[%a0, %c, %a1] : memref<8x1200x64xf32>
      }
    }
  }
  func.return %out : memref<8x1200x64xf32>
}

// CHECK-LABEL: tile.kernel @k_too_long
// CHECK:      tile.tile (%lane : 8 = thread, %a0 : 8 = block, %a1_b : 2 = block, %a1_t : 32 = thread) {
