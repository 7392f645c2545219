// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,merge-columns{sms=1}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,merge-columns{sms=1},pad-columns,blockify-launch{sms=1},cooperative-reduce' | filecheck %s --check-prefix=WARP
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,merge-columns{sms=4}' | filecheck %s --check-prefix=FEW
// A column reduction whose column axis is narrow and ragged (5 columns: padded to 8, 3 of 8
// threads idle) runs it and the axis before it (12) as one axis of 60, indexed back with
// floordiv / mod; pad-columns then rounds 60 to 64 and a warp reads 32 consecutive elements.
// Declined: a merge that leaves fewer than 2 warps of columns per SM (prefix FEW, 3 x 2 warps on 4
// SMs), a merge that idles more (7 x 5 = 35 -> 64), a column axis of 8 (no padding), and a load
// indexing the column axis alone (a per-column weight).
// A one-pass reduction over long rows (1024: split-reduce later spreads each warp of columns over
// 1024 / 128 = 8 blocks) counts those blocks: its 2 warps are 16 on 4 SMs, merged (FEW too); the
// same rows whose sum is doubled before the store (split-reduce cannot spread them) are not.
// A column axis of 7 (-> 8, 1 of 8 threads idle) and the 32 before it: one axis of 224, no padding.

func.func @main(%x: memref<3x40x12x5xf64>) -> memref<3x12x5xf64> {
  %y = memref.alloc() : memref<3x12x5xf64>
  loop.kernel @k_merged ins(%x : memref<3x40x12x5xf64>) outs(%y : memref<3x12x5xf64>) {
    loop.for free %a < 3 {
      loop.for free %b < 12 {
        loop.for free %c < 5 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<3x40x12x5xf64>
            loop.accumulate max %v : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<3x12x5xf64>
        }
      }
    }
  }
  func.return %y : memref<3x12x5xf64>
}
// CHECK-LABEL: tile.kernel @k_merged
// CHECK:         tile.tile (%a : 3 = thread, %bc : 60 = thread) {
// CHECK-NEXT:      %s = loop.for reduce %r < 40 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r, %bc floordiv 5, %bc mod 5] : memref<3x40x12x5xf64>
// CHECK:           loop.store %s, %y[%a, %bc floordiv 5, %bc mod 5] : memref<3x12x5xf64>
// FEW-LABEL: tile.kernel @k_merged
// FEW:         tile.tile (%a : 3 = thread, %b : 12 = thread, %c : 5 = thread) {
// WARP-LABEL: tile.kernel @k_merged
// WARP:         tile.tile (%lane : 8 = thread, %a : 3 = block, %bc_b : 2 = block, %bc_t : 32 = thread) {
// WARP-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 40 step 8 -> f64 {
// WARP-NEXT:        %v = loop.load %x[%a, %r, (%bc_b * 32 + %bc_t) floordiv 5, (%bc_b * 32 + %bc_t) mod 5] {tile.masked = [2 : i64]} : memref<3x40x12x5xf64>
// WARP:           loop.store %s, %y[%a, (%bc_b * 32 + %bc_t) floordiv 5, (%bc_b * 32 + %bc_t) mod 5] {tile.masked = [1 : i64]} : memref<3x12x5xf64>

// -----

func.func @main(%x: memref<3x40x7x5xf64>) -> memref<3x7x5xf64> {
  %y = memref.alloc() : memref<3x7x5xf64>
  loop.kernel @k_idles_more ins(%x : memref<3x40x7x5xf64>) outs(%y : memref<3x7x5xf64>) {
    loop.for free %a < 3 {
      loop.for free %b < 7 {
        loop.for free %c < 5 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<3x40x7x5xf64>
            loop.accumulate max %v : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<3x7x5xf64>
        }
      }
    }
  }
  func.return %y : memref<3x7x5xf64>
}
// CHECK-LABEL: tile.kernel @k_idles_more
// CHECK:         tile.tile (%a : 3 = thread, %b : 7 = thread, %c : 5 = thread) {
// CHECK:             loop.load %x[%a, %r, %b, %c] : memref<3x40x7x5xf64>

// -----

func.func @main(%x: memref<3x40x12x8xf64>) -> memref<3x12x8xf64> {
  %y = memref.alloc() : memref<3x12x8xf64>
  loop.kernel @k_no_padding ins(%x : memref<3x40x12x8xf64>) outs(%y : memref<3x12x8xf64>) {
    loop.for free %a < 3 {
      loop.for free %b < 12 {
        loop.for free %c < 8 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<3x40x12x8xf64>
            loop.accumulate add %v : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<3x12x8xf64>
        }
      }
    }
  }
  func.return %y : memref<3x12x8xf64>
}
// CHECK-LABEL: tile.kernel @k_no_padding
// CHECK:         tile.tile (%a : 3 = thread, %b : 12 = thread, %c : 8 = thread) {

// -----

func.func @main(%x: memref<3x40x12x5xf64>, %w: memref<5xf64>) -> memref<3x12x5xf64> {
  %y = memref.alloc() : memref<3x12x5xf64>
  loop.kernel @k_weight ins(%x, %w : memref<3x40x12x5xf64>, memref<5xf64>) outs(%y : memref<3x12x5xf64>) {
    loop.for free %a < 3 {
      loop.for free %b < 12 {
        loop.for free %c < 5 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<3x40x12x5xf64>
            %u = loop.load %w[%c] : memref<5xf64>
            %p = arith.mulf %v, %u : f64
            loop.accumulate add %p : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<3x12x5xf64>
        }
      }
    }
  }
  func.return %y : memref<3x12x5xf64>
}
// CHECK-LABEL: tile.kernel @k_weight
// CHECK:         tile.tile (%a : 3 = thread, %b : 12 = thread, %c : 5 = thread) {

// -----

func.func @main(%x: memref<1024x12x5xf64>) -> memref<12x5xf64> {
  %y = memref.alloc() : memref<12x5xf64>
  loop.kernel @k_long_rows ins(%x : memref<1024x12x5xf64>) outs(%y : memref<12x5xf64>) {
    loop.for free %b < 12 {
      loop.for free %c < 5 {
        %s = loop.for reduce %r < 1024 -> f64 {
          %v = loop.load %x[%r, %b, %c] : memref<1024x12x5xf64>
          loop.accumulate add %v : f64
        }
        loop.store %s, %y[%b, %c] : memref<12x5xf64>
      }
    }
  }
  func.return %y : memref<12x5xf64>
}
// CHECK-LABEL: tile.kernel @k_long_rows
// CHECK:         tile.tile (%bc : 60 = thread) {
// FEW-LABEL: tile.kernel @k_long_rows
// FEW:         tile.tile (%bc : 60 = thread) {

// -----

func.func @main(%x: memref<1024x12x5xf64>) -> memref<12x5xf64> {
  %y = memref.alloc() : memref<12x5xf64>
  loop.kernel @k_long_rows_doubled ins(%x : memref<1024x12x5xf64>) outs(%y : memref<12x5xf64>) {
    loop.for free %b < 12 {
      loop.for free %c < 5 {
        %s = loop.for reduce %r < 1024 -> f64 {
          %v = loop.load %x[%r, %b, %c] : memref<1024x12x5xf64>
          loop.accumulate add %v : f64
        }
        %d = arith.addf %s, %s : f64
        loop.store %d, %y[%b, %c] : memref<12x5xf64>
      }
    }
  }
  func.return %y : memref<12x5xf64>
}
// CHECK-LABEL: tile.kernel @k_long_rows_doubled
// CHECK:         tile.tile (%bc : 60 = thread) {
// FEW-LABEL: tile.kernel @k_long_rows_doubled
// FEW:         tile.tile (%b : 12 = thread, %c : 5 = thread) {

// -----

func.func @main(%x: memref<3x40x32x7xf64>) -> memref<3x32x7xf64> {
  %y = memref.alloc() : memref<3x32x7xf64>
  loop.kernel @k_seven ins(%x : memref<3x40x32x7xf64>) outs(%y : memref<3x32x7xf64>) {
    loop.for free %a < 3 {
      loop.for free %b < 32 {
        loop.for free %c < 7 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<3x40x32x7xf64>
            loop.accumulate add %v : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<3x32x7xf64>
        }
      }
    }
  }
  func.return %y : memref<3x32x7xf64>
}
// CHECK-LABEL: tile.kernel @k_seven
// CHECK:         tile.tile (%a : 3 = thread, %bc : 224 = thread) {
// CHECK:             loop.load %x[%a, %r, %bc floordiv 7, %bc mod 7] : memref<3x40x32x7xf64>
