// RUN: dpl-opt %s --split-input-file --pass-pipeline='hold-rows' | filecheck %s
// hold-rows: a row that two strided loops read is loaded into registers once (tile.hold), and the
// loops reading it count the thread's trips. Rows of 37 on 16 lanes run 3 whole trips: the
// accesses past 37 are masked and the max folds -inf there; the weight, read once, stays a global
// load. Rows of 64 divide evenly (no mask), and the output loop, float4 later, keeps reading x
// from memory. Declined: x read at two different rows. Rows of 8 on 8 lanes hold the output loop
// too. A column (the channels of (batch, channels, h, w)) of 24 trips or more is held along its
// middle dim; a shorter one is declined. A channel's weight read at an index list carrying the
// padded row's index unread by its map (GroupNorm(C, C)) is not masked.

func.func @main(%x: memref<8x37xf32>, %w: memref<37xf32>) -> memref<8x37xf32> {
  %out = memref.alloc() : memref<8x37xf32>
  tile.kernel @k_scale ins(%x, %w : memref<8x37xf32>, memref<37xf32>) outs(%out : memref<8x37xf32>) {
    tile.tile (%b : 4 = block, %t : 2 = thread, %lane : 16 = thread) {
      %m_part = tile.strided_for reduce %r = %lane to 37 step 16 -> f32 {
        %v = loop.load %x[%b * 2 + %t, %r] : memref<8x37xf32>
        loop.accumulate max %v : f32
      }
      %m = tile.combine max %m_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 37 step 16 {
        %v2 = loop.load %x[%b * 2 + %t, %c] : memref<8x37xf32>
        %wc = loop.load %w[%c] : memref<37xf32>
        %d = arith.subf %v2, %m : f32
        %y = arith.mulf %d, %wc : f32
        loop.store %y, %out[%b * 2 + %t, %c] : memref<8x37xf32>
      }
    }
  }
  func.return %out : memref<8x37xf32>
}

// CHECK-LABEL: tile.kernel @k_scale
// CHECK:         %x_reg = tile.hold %x[%b * 2 + %t, %lane] step 16 {tile.masked = [1 : i64]} : memref<8x37xf32> -> memref<3xf32>
// CHECK-NEXT:    %m_part = loop.for reduce %j < 3 -> f32 {
// CHECK-NEXT:      %r = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 16)))> (%lane, %j)
// CHECK-NEXT:      %v = loop.load %x_reg[%j] : memref<3xf32>
// CHECK-NEXT:      %{{.*}} = arith.constant 37 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %r, %{{.*}} : index
// CHECK-NEXT:      %[[NEG:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[IN]], %v, %[[NEG]] : f32
// CHECK-NEXT:      loop.accumulate max %[[SEL]] : f32
// CHECK-NEXT:    } {tile.unroll}
// CHECK:         loop.for free %j_1 < 3 {
// CHECK-NEXT:      %c = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 16)))> (%lane, %j_1)
// CHECK-NEXT:      %v2 = loop.load %x_reg[%j_1] : memref<3xf32>
// CHECK-NEXT:      %wc = loop.load %w[%c] {tile.masked = [0 : i64]} : memref<37xf32>
// CHECK:           loop.store %y, %out[%b * 2 + %t, %c] {tile.masked = [1 : i64]} : memref<8x37xf32>
// CHECK-NEXT:    } {tile.unroll}

// -----

func.func @main(%x: memref<8x64xf32>) -> memref<8x64xf32> {
  %out = memref.alloc() : memref<8x64xf32>
  tile.kernel @k_even ins(%x : memref<8x64xf32>) outs(%out : memref<8x64xf32>) {
    tile.tile (%b : 8 = block, %lane : 16 = thread) {
      %s_part = tile.strided_for reduce %r = %lane to 64 step 16 -> f32 {
        %v = loop.load %x[%b, %r] : memref<8x64xf32>
        loop.accumulate add %v : f32
      }
      %s = tile.combine add %s_part across [%lane] warp_shuffle : f32
      %q_part = tile.strided_for reduce %r2 = %lane to 64 step 16 -> f32 {
        %v3 = loop.load %x[%b, %r2] : memref<8x64xf32>
        %d = arith.subf %v3, %s : f32
        %sq = arith.mulf %d, %d : f32
        loop.accumulate add %sq : f32
      }
      %q = tile.combine add %q_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 64 step 16 {
        %v2 = loop.load %x[%b, %c] : memref<8x64xf32>
        %y = arith.divf %v2, %q : f32
        loop.store %y, %out[%b, %c] : memref<8x64xf32>
      }
    }
  }
  func.return %out : memref<8x64xf32>
}

// The output loop, float4 after vectorize-access, keeps its global read.
// CHECK-LABEL: tile.kernel @k_even
// CHECK:         %x_reg = tile.hold %x[%b, %lane] step 16 : memref<8x64xf32> -> memref<4xf32>
// CHECK-NEXT:    %s_part = loop.for reduce %j < 4 -> f32 {
// CHECK-NEXT:      %r = affine.apply
// CHECK-NEXT:      %v = loop.load %x_reg[%j] : memref<4xf32>
// CHECK-NEXT:      loop.accumulate add %v : f32
// CHECK:         %q_part = loop.for reduce %j_1 < 4 -> f32 {
// CHECK:           %v3 = loop.load %x_reg[%j_1] : memref<4xf32>
// CHECK:         tile.strided_for free %c = %lane to 64 step 16 {
// CHECK-NEXT:      %v2 = loop.load %x[%b, %c] : memref<8x64xf32>

// -----

func.func @main(%x: memref<8x64xf32>) -> memref<4x64xf32> {
  %out = memref.alloc() : memref<4x64xf32>
  tile.kernel @k_declined ins(%x : memref<8x64xf32>) outs(%out : memref<4x64xf32>) {
    tile.tile (%b : 4 = block, %lane : 16 = thread) {
      %s_part = tile.strided_for reduce %r = %lane to 64 step 16 -> f32 {
        %v = loop.load %x[%b, %r] : memref<8x64xf32>
        loop.accumulate add %v : f32
      }
      %s = tile.combine add %s_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 64 step 16 {
        %v2 = loop.load %x[%b + 4, %c] : memref<8x64xf32>
        %y = arith.divf %v2, %s : f32
        loop.store %y, %out[%b, %c] : memref<4x64xf32>
      }
    }
  }
  func.return %out : memref<4x64xf32>
}

// CHECK-LABEL: tile.kernel @k_declined
// CHECK-NOT:     tile.hold
// CHECK:         tile.strided_for reduce %r = %lane to 64 step 16 -> f32 {
// CHECK:         tile.strided_for free %c = %lane to 64 step 16 {

// -----

// Rows of 8 on 8 lanes: a float4 output loop would leave 6 of 8 lanes idle, so it is held too.
func.func @main(%x: memref<16x8xf32>) -> memref<16x8xf32> {
  %out = memref.alloc() : memref<16x8xf32>
  tile.kernel @k_short ins(%x : memref<16x8xf32>) outs(%out : memref<16x8xf32>) {
    tile.tile (%b : 4 = block, %t : 4 = thread, %lane : 8 = thread) {
      %m_part = tile.strided_for reduce %r = %lane to 8 step 8 -> f32 {
        %v = loop.load %x[%b * 4 + %t, %r] : memref<16x8xf32>
        loop.accumulate max %v : f32
      }
      %m = tile.combine max %m_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 8 step 8 {
        %v2 = loop.load %x[%b * 4 + %t, %c] : memref<16x8xf32>
        %y = arith.subf %v2, %m : f32
        loop.store %y, %out[%b * 4 + %t, %c] : memref<16x8xf32>
      }
    }
  }
  func.return %out : memref<16x8xf32>
}

// CHECK-LABEL: tile.kernel @k_short
// CHECK:         %x_reg = tile.hold %x[%b * 4 + %t, %lane] step 8 : memref<16x8xf32> -> memref<1xf32>
// CHECK:         loop.for free %j_1 < 1 {
// CHECK:           %v2 = loop.load %x_reg[%j_1] : memref<1xf32>

// -----

// A column: RMSNorm-like over the 197 channels of (2, 197, 5, 9), threads along w, the channels
// shared by 8 lanes (25 trips, the last part past 197). The column is held along dim 1 (`at 1`),
// masked there as well as along the rounded-up w; the output loop reads the registers.
func.func @main(%x: memref<2x197x5x9xf32>) -> memref<2x197x5x9xf32> {
  %out = memref.alloc() : memref<2x197x5x9xf32>
  tile.kernel @k_column ins(%x : memref<2x197x5x9xf32>) outs(%out : memref<2x197x5x9xf32>) {
    tile.tile (%lane : 8 = thread, %a0 : 2 = block, %a2 : 5 = block, %a3 : 16 = thread) {
      %s_part = tile.strided_for reduce %r = %lane to 197 step 8 -> f32 {
        %v = loop.load %x[%a0, %r, %a2, %a3] {tile.masked = [3 : i64]} : memref<2x197x5x9xf32>
        %sq = arith.mulf %v, %v : f32
        loop.accumulate add %sq : f32
      }
      %s = tile.combine add %s_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 197 step 8 {
        %v2 = loop.load %x[%a0, %c, %a2, %a3] {tile.masked = [3 : i64]} : memref<2x197x5x9xf32>
        %y = arith.mulf %v2, %s : f32
        loop.store %y, %out[%a0, %c, %a2, %a3] {tile.masked = [3 : i64]} : memref<2x197x5x9xf32>
      }
    }
  }
  func.return %out : memref<2x197x5x9xf32>
}

// CHECK-LABEL: tile.kernel @k_column
// CHECK:         %x_reg = tile.hold %x[%a0, %lane, %a2, %a3] step 8 at 1 {tile.masked = [1 : i64, 3 : i64]} : memref<2x197x5x9xf32> -> memref<25xf32>
// CHECK-NEXT:    %s_part = loop.for reduce %j < 25 -> f32 {
// CHECK-NEXT:      %r = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 8)))> (%lane, %j)
// CHECK-NEXT:      %v = loop.load %x_reg[%j] : memref<25xf32>
// CHECK:         loop.for free %j_1 < 25 {
// CHECK-NEXT:      %c = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 8)))> (%lane, %j_1)
// CHECK-NEXT:      %v2 = loop.load %x_reg[%j_1] : memref<25xf32>
// CHECK:           loop.store %y, %out[%a0, %c, %a2, %a3] {tile.masked = [1 : i64, 3 : i64]} : memref<2x197x5x9xf32>

// -----

// Declined: a column of 5 trips (37 channels on 8 lanes), fewer than column-trips (24); its
// re-reads hit L1.
func.func @main(%x: memref<2x37x5x9xf32>) -> memref<2x37x5x9xf32> {
  %out = memref.alloc() : memref<2x37x5x9xf32>
  tile.kernel @k_short_column ins(%x : memref<2x37x5x9xf32>) outs(%out : memref<2x37x5x9xf32>) {
    tile.tile (%lane : 8 = thread, %a0 : 2 = block, %a2 : 5 = block, %a3 : 16 = thread) {
      %s_part = tile.strided_for reduce %r = %lane to 37 step 8 -> f32 {
        %v = loop.load %x[%a0, %r, %a2, %a3] {tile.masked = [3 : i64]} : memref<2x37x5x9xf32>
        %sq = arith.mulf %v, %v : f32
        loop.accumulate add %sq : f32
      }
      %s = tile.combine add %s_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 37 step 8 {
        %v2 = loop.load %x[%a0, %c, %a2, %a3] {tile.masked = [3 : i64]} : memref<2x37x5x9xf32>
        %y = arith.mulf %v2, %s : f32
        loop.store %y, %out[%a0, %c, %a2, %a3] {tile.masked = [3 : i64]} : memref<2x37x5x9xf32>
      }
    }
  }
  func.return %out : memref<2x37x5x9xf32>
}

// CHECK-LABEL: tile.kernel @k_short_column
// CHECK-NOT:     tile.hold
// CHECK:         tile.strided_for reduce %r = %lane to 37 step 8 -> f32 {

// -----

// A column longer than long-column (256) is held from long-column-trips (16): 300 channels on
// 16 lanes, 19 trips (the last masked past 300); read again it would not stay in the cache.
func.func @main(%x: memref<2x300x32xf32>) -> memref<2x300x32xf32> {
  %out = memref.alloc() : memref<2x300x32xf32>
  tile.kernel @k_long_column ins(%x : memref<2x300x32xf32>) outs(%out : memref<2x300x32xf32>) {
    tile.tile (%lane : 16 = thread, %a0 : 2 = block, %a2 : 32 = thread) {
      %s_part = tile.strided_for reduce %r = %lane to 300 step 16 -> f32 {
        %v = loop.load %x[%a0, %r, %a2] : memref<2x300x32xf32>
        %sq = arith.mulf %v, %v : f32
        loop.accumulate add %sq : f32
      }
      %s = tile.combine add %s_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 300 step 16 {
        %v2 = loop.load %x[%a0, %c, %a2] : memref<2x300x32xf32>
        %y = arith.mulf %v2, %s : f32
        loop.store %y, %out[%a0, %c, %a2] : memref<2x300x32xf32>
      }
    }
  }
  func.return %out : memref<2x300x32xf32>
}

// CHECK-LABEL: tile.kernel @k_long_column
// CHECK:         %x_reg = tile.hold %x[%a0, %lane, %a2] step 16 at 1 {tile.masked = [1 : i64]} : memref<2x300x32xf32> -> memref<19xf32>

// -----

// GroupNorm(C, C)'s output loop reads the channel's weight at an index list that carries the
// row's `%c` though its map does not read it (`(d0, d1, d2) -> (d1)`, as lower-to-loops makes
// it). Rows of 37 on 16 lanes run past the row; the weight's index never does: it is not masked
// (an empty `tile.masked` list failed the verifier), while x's store is masked along the row.
func.func @main(%x: memref<2x8x37xf32>, %w: memref<8xf32>) -> memref<2x8x37xf32> {
  %out = memref.alloc() : memref<2x8x37xf32>
  tile.kernel @k_channel_weight ins(%x, %w : memref<2x8x37xf32>, memref<8xf32>) outs(%out : memref<2x8x37xf32>) {
    tile.tile (%lane : 16 = thread, %a0 : 2 = block, %a1 : 8 = block) {
      %s_part = tile.strided_for reduce %r = %lane to 37 step 16 -> f32 {
        %v = loop.load %x[%a0, %a1, %r] : memref<2x8x37xf32>
        loop.accumulate add %v : f32
      }
      %s = tile.combine add %s_part across [%lane] warp_shuffle : f32
      tile.strided_for free %c = %lane to 37 step 16 {
        %v2 = loop.load %x[%a0, %a1, %c] : memref<2x8x37xf32>
        %wc = "loop.load"(%w, %a0, %a1, %c) <{map = affine_map<(d0, d1, d2) -> (d1)>}> : (memref<8xf32>, index, index, index) -> f32
        %d = arith.subf %v2, %s : f32
        %y = arith.mulf %d, %wc : f32
        loop.store %y, %out[%a0, %a1, %c] : memref<2x8x37xf32>
      }
    }
  }
  func.return %out : memref<2x8x37xf32>
}

// CHECK-LABEL: tile.kernel @k_channel_weight
// CHECK:         %x_reg = tile.hold %x[%a0, %a1, %lane] step 16 {tile.masked = [2 : i64]} : memref<2x8x37xf32> -> memref<3xf32>
// CHECK:         loop.for free %j_1 < 3 {
// CHECK-NEXT:      %c = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 16)))> (%lane, %j_1)
// CHECK-NEXT:      %v2 = loop.load %x_reg[%j_1] : memref<3xf32>
// CHECK-NEXT:      %wc = loop.load %w[%a1] : memref<8xf32>
// CHECK:           loop.store %y, %out[%a0, %a1, %c] {tile.masked = [2 : i64]} : memref<2x8x37xf32>
// CHECK-NEXT:    } {tile.unroll}
