// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch{sms=1}' | filecheck %s
// blockify-launch packs short rows (at most 768 elements), where there are many (on 1 SM: at
// least 2048 / 256 = 8): a lane axis, the fastest, of a warp per row (a row of 64), or of 16
// lanes where those pass over the row in fewer lane slots (37: 3 passes of 16 lanes, 48 slots
// against a warp's 64; 48: 3 of 16; 8 lanes only up to 32 elements), and 256 / lanes rows per
// block along the fastest row axis, rounded up to a multiple of them with the accesses past its
// end masked (13 rows -> 2 blocks of 8, or 1 of 16). A row longer than 768, or fewer rows (4), keep a block per row (a lane
// axis of 256 threads first, rows on blocks).

func.func @main(%x: memref<13x64xf64>) -> memref<13x64xf64> {
  %y = memref.alloc() : memref<13x64xf64>
  tile.kernel @k_scale ins(%x : memref<13x64xf64>) outs(%y : memref<13x64xf64>) {
    tile.tile (%a0 : 13 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<13x64xf64>
        loop.accumulate add %v : f64
      }
      loop.for free %a1 < 64 {
        %v1 = loop.load %x[%a0, %a1] : memref<13x64xf64>
        %q = arith.divf %v1, %acc : f64
        loop.store %q, %y[%a0, %a1] : memref<13x64xf64>
      }
    }
  }
  func.return %y : memref<13x64xf64>
}
// CHECK-LABEL: tile.kernel @k_scale
// CHECK:         tile.tile (%a0_b : 2 = block, %a0_t : 8 = thread, %lane : 32 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 64 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a0_b * 8 + %a0_t, %r0] {tile.masked = [0 : i64]} : memref<13x64xf64>
// CHECK:           tile.strided_for free %a1 = %lane to 64 step 32 {
// CHECK-NEXT:        %v1 = loop.load %x[%a0_b * 8 + %a0_t, %a1] {tile.masked = [0 : i64]} : memref<13x64xf64>
// CHECK:             loop.store %q, %y[%a0_b * 8 + %a0_t, %a1] {tile.masked = [0 : i64]} : memref<13x64xf64>

// -----

func.func @main(%x: memref<13x800xf32>) -> memref<13x800xf32> {
  %y = memref.alloc() : memref<13x800xf32>
  tile.kernel @k_long ins(%x : memref<13x800xf32>) outs(%y : memref<13x800xf32>) {
    tile.tile (%a0 : 13 = thread) {
      %acc = loop.for reduce %r0 < 800 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<13x800xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 800 {
        %v1 = loop.load %x[%a0, %a1] : memref<13x800xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<13x800xf32>
      }
    }
  }
  func.return %y : memref<13x800xf32>
}
// CHECK-LABEL: tile.kernel @k_long
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 13 = block) {
// CHECK:           tile.strided_for free %a1 = %lane to 800 step 256 {
// CHECK-NEXT:        %v1 = loop.load %x[%a0, %a1] : memref<13x800xf32>

// -----

func.func @main(%x: memref<4x37xf32>) -> memref<4x37xf32> {
  %y = memref.alloc() : memref<4x37xf32>
  tile.kernel @k_few ins(%x : memref<4x37xf32>) outs(%y : memref<4x37xf32>) {
    tile.tile (%a0 : 4 = thread) {
      %acc = loop.for reduce %r0 < 37 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<4x37xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 37 {
        %v1 = loop.load %x[%a0, %a1] : memref<4x37xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<4x37xf32>
      }
    }
  }
  func.return %y : memref<4x37xf32>
}
// CHECK-LABEL: tile.kernel @k_few
// CHECK:         tile.tile (%lane : 64 = thread, %a0 : 4 = block) {
// CHECK:           tile.strided_for free %a1 = %lane to 37 step 64 {

// -----

// A row over two dims collapsed into one loop (LayerNorm over (6, 8)): its index `%r0 floordiv 8,
// %r0 mod 8` stays within the buffer (%r0 < 48: 0..5 and 0..7), so only the row dim that was
// rounded up (13 -> 16) is masked.

func.func @main(%x: memref<13x6x8xf32>) -> memref<13x6x8xf32> {
  %y = memref.alloc() : memref<13x6x8xf32>
  tile.kernel @k_collapsed ins(%x : memref<13x6x8xf32>) outs(%y : memref<13x6x8xf32>) {
    tile.tile (%a0 : 13 = thread) {
      %acc = loop.for reduce %r0 < 48 -> f32 {
        %v = loop.load %x[%a0, %r0 floordiv 8, %r0 mod 8] : memref<13x6x8xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 48 {
        %v1 = loop.load %x[%a0, %a1 floordiv 8, %a1 mod 8] : memref<13x6x8xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1 floordiv 8, %a1 mod 8] : memref<13x6x8xf32>
      }
    }
  }
  func.return %y : memref<13x6x8xf32>
}
// CHECK-LABEL: tile.kernel @k_collapsed
// CHECK:         tile.tile (%a0_b : 1 = block, %a0_t : 16 = thread, %lane : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 48 -> f32 {
// CHECK-NEXT:        %v = loop.load %x[%a0_b * 16 + %a0_t, %r0 floordiv 8, %r0 mod 8] {tile.masked = [0 : i64]} : memref<13x6x8xf32>
// CHECK:             loop.store %q, %y[%a0_b * 16 + %a0_t, %a1 floordiv 8, %a1 mod 8] {tile.masked = [0 : i64]} : memref<13x6x8xf32>

// -----

func.func @main(%x: memref<13x37xf32>) -> memref<13x37xf32> {
  %y = memref.alloc() : memref<13x37xf32>
  tile.kernel @k_short ins(%x : memref<13x37xf32>) outs(%y : memref<13x37xf32>) {
    tile.tile (%a0 : 13 = thread) {
      %acc = loop.for reduce %r0 < 37 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<13x37xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 37 {
        %v1 = loop.load %x[%a0, %a1] : memref<13x37xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<13x37xf32>
      }
    }
  }
  func.return %y : memref<13x37xf32>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%a0_b : 1 = block, %a0_t : 16 = thread, %lane : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 37 -> f32 {
// CHECK-NEXT:        %v = loop.load %x[%a0_b * 16 + %a0_t, %r0] {tile.masked = [0 : i64]} : memref<13x37xf32>
// CHECK:           tile.strided_for free %a1 = %lane to 37 step 16 {

// -----

// Rows shorter than 32 (ROW_LOOP_MIN), from 4 (PACK_ROW_MIN), are packed where the op passes
// over each row more than once (here a scale by the row's sum: 21 elements, 8 lanes, 32 rows a
// block, 40 rows rounded up to 64 with the accesses past 40 masked).
func.func @main(%x: memref<40x21xf32>) -> memref<40x21xf32> {
  %y = memref.alloc() : memref<40x21xf32>
  tile.kernel @k_short ins(%x : memref<40x21xf32>) outs(%y : memref<40x21xf32>) {
    tile.tile (%a0 : 40 = thread) {
      %acc = loop.for reduce %r0 < 21 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<40x21xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 21 {
        %v1 = loop.load %x[%a0, %a1] : memref<40x21xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<40x21xf32>
      }
    }
  }
  func.return %y : memref<40x21xf32>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%a0_b : 2 = block, %a0_t : 32 = thread, %lane : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 21 -> f32 {
// CHECK-NEXT:        %v = loop.load %x[%a0_b * 32 + %a0_t, %r0] {tile.masked = [0 : i64]} : memref<40x21xf32>
// CHECK:           tile.strided_for free %a1 = %lane to 21 step 8 {

// -----

// Rows of at most 32 (EIGHT_LANE_ROW_MAX) take 8 lanes, not 16 at the same lane slots: rows of
// 9, two passes of 8 lanes (the second on lane 0 only), 32 rows a block (40 rows are too few
// for 2 or 4 lanes: below).
func.func @main(%x: memref<40x9xf32>) -> memref<40x9xf32> {
  %y = memref.alloc() : memref<40x9xf32>
  tile.kernel @k_nine ins(%x : memref<40x9xf32>) outs(%y : memref<40x9xf32>) {
    tile.tile (%a0 : 40 = thread) {
      %acc = loop.for reduce %r0 < 9 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<40x9xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 9 {
        %v1 = loop.load %x[%a0, %a1] : memref<40x9xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<40x9xf32>
      }
    }
  }
  func.return %y : memref<40x9xf32>
}
// CHECK-LABEL: tile.kernel @k_nine
// CHECK:         tile.tile (%a0_b : 2 = block, %a0_t : 32 = thread, %lane : 8 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 9 step 8 {

// -----

// Rows of 5 take 2 lanes where their threads fill the SMs twice (row_lanes; on 1 SM: 2048
// rows x 2 lanes = 2 x 2048 threads): each lane holds 3 elements, not 8 lanes' one, in 6 slots,
// 128 rows a block. (These three subtract the row's sum: a sum of 5 or 9 normals near zero
// would make the quotient's rounding fail the executor's comparison.)
func.func @main(%x: memref<2048x5xf32>) -> memref<2048x5xf32> {
  %y = memref.alloc() : memref<2048x5xf32>
  tile.kernel @k_five ins(%x : memref<2048x5xf32>) outs(%y : memref<2048x5xf32>) {
    tile.tile (%a0 : 2048 = thread) {
      %acc = loop.for reduce %r0 < 5 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<2048x5xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 5 {
        %v1 = loop.load %x[%a0, %a1] : memref<2048x5xf32>
        %q = arith.subf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<2048x5xf32>
      }
    }
  }
  func.return %y : memref<2048x5xf32>
}
// CHECK-LABEL: tile.kernel @k_five
// CHECK:         tile.tile (%a0_b : 16 = block, %a0_t : 128 = thread, %lane : 2 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 5 step 2 {

// -----

// Rows of 9 take 4 lanes there (12 slots against 8 lanes' 16; 2 lanes would pass 5 times),
// 64 rows a block.
func.func @main(%x: memref<1024x9xf32>) -> memref<1024x9xf32> {
  %y = memref.alloc() : memref<1024x9xf32>
  tile.kernel @k_nine_many ins(%x : memref<1024x9xf32>) outs(%y : memref<1024x9xf32>) {
    tile.tile (%a0 : 1024 = thread) {
      %acc = loop.for reduce %r0 < 9 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<1024x9xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 9 {
        %v1 = loop.load %x[%a0, %a1] : memref<1024x9xf32>
        %q = arith.subf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<1024x9xf32>
      }
    }
  }
  func.return %y : memref<1024x9xf32>
}
// CHECK-LABEL: tile.kernel @k_nine_many
// CHECK:         tile.tile (%a0_b : 16 = block, %a0_t : 64 = thread, %lane : 4 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 9 step 4 {

// -----

// f32 rows of 8 take 2 lanes where those fill the SMs twice, not 8 at the same 8 slots: the
// output loop then moves one float4 a lane (vectorize-access; hold-rows' float4_row_loop), not
// one scalar a thread.
func.func @main(%x: memref<2048x8xf32>) -> memref<2048x8xf32> {
  %y = memref.alloc() : memref<2048x8xf32>
  tile.kernel @k_eight_float4 ins(%x : memref<2048x8xf32>) outs(%y : memref<2048x8xf32>) {
    tile.tile (%a0 : 2048 = thread) {
      %acc = loop.for reduce %r0 < 8 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<2048x8xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 8 {
        %v1 = loop.load %x[%a0, %a1] : memref<2048x8xf32>
        %q = arith.subf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<2048x8xf32>
      }
    }
  }
  func.return %y : memref<2048x8xf32>
}
// CHECK-LABEL: tile.kernel @k_eight_float4
// CHECK:         tile.tile (%a0_b : 16 = block, %a0_t : 128 = thread, %lane : 2 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 8 step 2 {

// -----

// f32 rows of 16 take 4 lanes (a float4 each), not 8 (two scalars each) at the same 16 slots.
func.func @main(%x: memref<2048x16xf32>) -> memref<2048x16xf32> {
  %y = memref.alloc() : memref<2048x16xf32>
  tile.kernel @k_sixteen_float4 ins(%x : memref<2048x16xf32>) outs(%y : memref<2048x16xf32>) {
    tile.tile (%a0 : 2048 = thread) {
      %acc = loop.for reduce %r0 < 16 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<2048x16xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 16 {
        %v1 = loop.load %x[%a0, %a1] : memref<2048x16xf32>
        %q = arith.subf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<2048x16xf32>
      }
    }
  }
  func.return %y : memref<2048x16xf32>
}
// CHECK-LABEL: tile.kernel @k_sixteen_float4
// CHECK:         tile.tile (%a0_b : 32 = block, %a0_t : 64 = thread, %lane : 4 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 16 step 4 {

// -----

// Declined: f64 rows of 8 move no float4 (vectorize-access is f32 only), so they keep 8 lanes.
func.func @main(%x: memref<2048x8xf64>) -> memref<2048x8xf64> {
  %y = memref.alloc() : memref<2048x8xf64>
  tile.kernel @k_eight_f64 ins(%x : memref<2048x8xf64>) outs(%y : memref<2048x8xf64>) {
    tile.tile (%a0 : 2048 = thread) {
      %acc = loop.for reduce %r0 < 8 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<2048x8xf64>
        loop.accumulate add %v : f64
      }
      loop.for free %a1 < 8 {
        %v1 = loop.load %x[%a0, %a1] : memref<2048x8xf64>
        %q = arith.subf %v1, %acc : f64
        loop.store %q, %y[%a0, %a1] : memref<2048x8xf64>
      }
    }
  }
  func.return %y : memref<2048x8xf64>
}
// CHECK-LABEL: tile.kernel @k_eight_f64
// CHECK:         tile.tile (%a0_b : 64 = block, %a0_t : 32 = thread, %lane : 8 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 8 step 8 {

// -----

// Declined: 1000 rows of 5 fill one SM less than twice with 2 or 4 lanes each (2000, 4000
// threads), so they keep 8 lanes, 32 rows a block, 1000 rounded up to 1024 and masked.
func.func @main(%x: memref<1000x5xf32>) -> memref<1000x5xf32> {
  %y = memref.alloc() : memref<1000x5xf32>
  tile.kernel @k_five_few ins(%x : memref<1000x5xf32>) outs(%y : memref<1000x5xf32>) {
    tile.tile (%a0 : 1000 = thread) {
      %acc = loop.for reduce %r0 < 5 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<1000x5xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 5 {
        %v1 = loop.load %x[%a0, %a1] : memref<1000x5xf32>
        %q = arith.subf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<1000x5xf32>
      }
    }
  }
  func.return %y : memref<1000x5xf32>
}
// CHECK-LABEL: tile.kernel @k_five_few
// CHECK:         tile.tile (%a0_b : 32 = block, %a0_t : 32 = thread, %lane : 8 = thread) {
// CHECK:           tile.strided_for free %a1 = %lane to 5 step 8 {

// -----

// Declined: a one-pass reduction of short rows (a sum over 16) keeps a thread per row, its loads
// all in flight at once (packed, it ran slower on the H100).
func.func @main(%x: memref<40x16xf32>) -> memref<40xf32> {
  %y = memref.alloc() : memref<40xf32>
  tile.kernel @k_sum16 ins(%x : memref<40x16xf32>) outs(%y : memref<40xf32>) {
    tile.tile (%a0 : 40 = thread) {
      %acc = loop.for reduce %r0 < 16 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<40x16xf32>
        loop.accumulate add %v : f32
      }
      loop.store %acc, %y[%a0] : memref<40xf32>
    }
  }
  func.return %y : memref<40xf32>
}
// CHECK-LABEL: tile.kernel @k_sum16
// CHECK:         tile.tile (%a0 : 40 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 16 -> f32 {

// -----

// Declined: rows of 3 (below PACK_ROW_MIN) run whole in each thread.
func.func @main(%x: memref<40x3xf32>) -> memref<40x3xf32> {
  %y = memref.alloc() : memref<40x3xf32>
  tile.kernel @k_three ins(%x : memref<40x3xf32>) outs(%y : memref<40x3xf32>) {
    tile.tile (%a0 : 40 = thread) {
      %acc = loop.for reduce %r0 < 3 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<40x3xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a1 < 3 {
        %v1 = loop.load %x[%a0, %a1] : memref<40x3xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1] : memref<40x3xf32>
      }
    }
  }
  func.return %y : memref<40x3xf32>
}
// CHECK-LABEL: tile.kernel @k_three
// CHECK:         tile.tile (%a0 : 40 = thread) {

// -----

// The fastest row axis (5) is not a multiple of the 8 rows a block holds: the row axes run as
// one of 15 rows (row floordiv 5, row mod 5; 8 mod 5 = 3), 2 blocks of 8, the 16th row masked
// along dim 0.
func.func @main(%x: memref<3x5x64xf32>) -> memref<3x5x64xf32> {
  %y = memref.alloc() : memref<3x5x64xf32>
  tile.kernel @k_flat ins(%x : memref<3x5x64xf32>) outs(%y : memref<3x5x64xf32>) {
    tile.tile (%a0 : 3 = thread, %a1 : 5 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f32 {
        %v = loop.load %x[%a0, %a1, %r0] : memref<3x5x64xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a2 < 64 {
        %v1 = loop.load %x[%a0, %a1, %a2] : memref<3x5x64xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[%a0, %a1, %a2] : memref<3x5x64xf32>
      }
    }
  }
  func.return %y : memref<3x5x64xf32>
}
// CHECK-LABEL: tile.kernel @k_flat
// CHECK:         tile.tile (%row_b : 2 = block, %row_t : 8 = thread, %lane : 32 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r0 < 64 -> f32 {
// CHECK-NEXT:        %v = loop.load %x[(%row_b * 8 + %row_t) floordiv 5, (%row_b * 8 + %row_t) mod 5, %r0] {tile.masked = [0 : i64]} : memref<3x5x64xf32>
// CHECK:             loop.store %q, %y[(%row_b * 8 + %row_t) floordiv 5, (%row_b * 8 + %row_t) mod 5, %a2] {tile.masked = [0 : i64]} : memref<3x5x64xf32>

// -----

// Declined: the rows are stored flipped along the outermost axis (y[2 - a0, ..]), so a row past
// the 15th would not land past the buffer; the fastest axis is rounded up to 8 instead (y[.., 5..7]
// is past its dim 1).
func.func @main(%x: memref<3x5x64xf32>) -> memref<3x5x64xf32> {
  %y = memref.alloc() : memref<3x5x64xf32>
  tile.kernel @k_not_flat ins(%x : memref<3x5x64xf32>) outs(%y : memref<3x5x64xf32>) {
    tile.tile (%a0 : 3 = thread, %a1 : 5 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f32 {
        %v = loop.load %x[%a0, %a1, %r0] : memref<3x5x64xf32>
        loop.accumulate add %v : f32
      }
      loop.for free %a2 < 64 {
        %v1 = loop.load %x[%a0, %a1, %a2] : memref<3x5x64xf32>
        %q = arith.divf %v1, %acc : f32
        loop.store %q, %y[2 - %a0, %a1, %a2] : memref<3x5x64xf32>
      }
    }
  }
  func.return %y : memref<3x5x64xf32>
}
// CHECK-LABEL: tile.kernel @k_not_flat
// CHECK:         tile.tile (%a0 : 3 = block, %a1_b : 1 = block, %a1_t : 8 = thread, %lane : 32 = thread) {
// CHECK:             loop.store %q, %y[%a0 * -1 + 2, %a1_b * 8 + %a1_t, %a2] {tile.masked = [1 : i64]} : memref<3x5x64xf32>
