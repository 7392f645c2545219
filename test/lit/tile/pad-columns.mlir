// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,pad-columns,blockify-launch{sms=1},cooperative-reduce' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,pad-columns,blockify-launch{sms=132},cooperative-reduce' | filecheck %s --check-prefix=FILL
// A column reduction (the reduce walks a slower dim than the tile's fastest axis) gets its
// contiguous axis rounded up to a multiple of the warp (32 threads), the accesses past the end
// masked, and blockify-launch gives that axis the warp (coalesced) and the reduce the other
// lanes of the block (256 / 32 = 8), shared by cooperative-reduce. Cases: a sum over dim 1 of
// 3 x 40 x 45 (45 -> 64 columns, 2 column blocks); a row reduction (declined, a lane axis of
// its own); a column axis below the warp that
// is a power of two (4 columns: no rounding, 4 threads, 64 lanes; the dim before it is the
// reduce's); such an axis continued in memory by another tile axis, which takes the rest of the
// warp (rounded up to a multiple of it where it must be).

func.func @main(%x: memref<3x40x45xf64>) -> memref<3x45xf64> {
  %y = memref.alloc() : memref<3x45xf64>
  loop.kernel @k_colsum ins(%x : memref<3x40x45xf64>) outs(%y : memref<3x45xf64>) {
    loop.for free %a < 3 {
      loop.for free %c < 45 {
        %s = loop.for reduce %r < 40 -> f64 {
          %v = loop.load %x[%a, %r, %c] : memref<3x40x45xf64>
          loop.accumulate add %v : f64
        }
        loop.store %s, %y[%a, %c] : memref<3x45xf64>
      }
    }
  }
  func.return %y : memref<3x45xf64>
}
// CHECK-LABEL: tile.kernel @k_colsum
// CHECK:         tile.tile (%lane : 8 = thread, %a : 3 = block, %c_b : 2 = block, %c_t : 32 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 40 step 8 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r, %c_b * 32 + %c_t] {tile.masked = [2 : i64]} : memref<3x40x45xf64>
// CHECK:           %s = tile.combine add %s_part across [%lane] warp_shuffle : f64
// CHECK-NEXT:      loop.store %s, %y[%a, %c_b * 32 + %c_t] {tile.masked = [1 : i64]} : memref<3x45xf64>

// -----

// A reduce over two leading dims, collapsed into one loop (collapse-loops: %r floordiv 40,
// %r mod 40; the index is not linear in %r): still a column reduction, %c takes the warp.

func.func @main(%x: memref<2x40x45xf64>) -> memref<45xf64> {
  %y = memref.alloc() : memref<45xf64>
  loop.kernel @k_collapsed ins(%x : memref<2x40x45xf64>) outs(%y : memref<45xf64>) {
    loop.for free %c < 45 {
      %s = loop.for reduce %r < 80 -> f64 {
        %v = loop.load %x[%r floordiv 40, %r mod 40, %c] : memref<2x40x45xf64>
        loop.accumulate add %v : f64
      }
      loop.store %s, %y[%c] : memref<45xf64>
    }
  }
  func.return %y : memref<45xf64>
}
// CHECK-LABEL: tile.kernel @k_collapsed
// CHECK:         tile.tile (%lane : 8 = thread, %c_b : 2 = block, %c_t : 32 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 80 step 8 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%r floordiv 40, %r mod 40, %c_b * 32 + %c_t] {tile.masked = [2 : i64]} : memref<2x40x45xf64>
// CHECK:           %s = tile.combine add %s_part across [%lane] warp_shuffle : f64

// -----

func.func @main(%x: memref<3x40xf64>) -> memref<3xf64> {
  %y = memref.alloc() : memref<3xf64>
  loop.kernel @k_rowsum ins(%x : memref<3x40xf64>) outs(%y : memref<3xf64>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 40 -> f64 {
        %v = loop.load %x[%a, %r] : memref<3x40xf64>
        loop.accumulate add %v : f64
      }
      loop.store %s, %y[%a] : memref<3xf64>
    }
  }
  func.return %y : memref<3xf64>
}
// CHECK-LABEL: tile.kernel @k_rowsum
// CHECK:         tile.tile (%lane : 64 = thread, %a : 3 = block) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 40 step 64 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r] : memref<3x40xf64>

// -----

// A batched vector-matrix product: the vector x[b, %r] is read along the loop's own index, but
// it is the same for every column, so the matrix's column axis %c still takes the warp.
func.func @main(%x: memref<3x40xf64>, %w: memref<3x40x45xf64>) -> memref<3x45xf64> {
  %y = memref.alloc() : memref<3x45xf64>
  loop.kernel @k_vecmat ins(%x, %w : memref<3x40xf64>, memref<3x40x45xf64>) outs(%y : memref<3x45xf64>) {
    loop.for free %b < 3 {
      loop.for free %c < 45 {
        %s = loop.for reduce %r < 40 -> f64 {
          %u = loop.load %x[%b, %r] : memref<3x40xf64>
          %v = loop.load %w[%b, %r, %c] : memref<3x40x45xf64>
          %p = arith.mulf %u, %v : f64
          loop.accumulate add %p : f64
        }
        loop.store %s, %y[%b, %c] : memref<3x45xf64>
      }
    }
  }
  func.return %y : memref<3x45xf64>
}
// CHECK-LABEL: tile.kernel @k_vecmat
// CHECK:         tile.tile (%lane : 8 = thread, %b : 3 = block, %c_b : 2 = block, %c_t : 32 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 40 step 8 -> f64 {
// CHECK-NEXT:        %u = loop.load %x[%b, %r] : memref<3x40xf64>
// CHECK-NEXT:        %v = loop.load %w[%b, %r, %c_b * 32 + %c_t] {tile.masked = [2 : i64]} : memref<3x40x45xf64>

// -----

// A column axis of 5 is padded to 8 (masked), and the axis before it in memory still takes the
// rest of the warp: 4 x 8 threads read 20 consecutive elements.
func.func @main(%x: memref<2x50x12x5xf64>) -> memref<2x12x5xf64> {
  %y = memref.alloc() : memref<2x12x5xf64>
  loop.kernel @k_padded_narrow ins(%x : memref<2x50x12x5xf64>) outs(%y : memref<2x12x5xf64>) {
    loop.for free %a < 2 {
      loop.for free %h < 12 {
        loop.for free %w < 5 {
          %s = loop.for reduce %r < 50 -> f64 {
            %v = loop.load %x[%a, %r, %h, %w] : memref<2x50x12x5xf64>
            loop.accumulate max %v : f64
          }
          loop.store %s, %y[%a, %h, %w] : memref<2x12x5xf64>
        }
      }
    }
  }
  func.return %y : memref<2x12x5xf64>
}
// With 132 SMs its 6 blocks would leave most of them idle: the column takes its 8 threads alone.
// FILL-LABEL: tile.kernel @k_padded_narrow
// FILL:         tile.tile (%lane : 32 = thread, %a : 2 = block, %h : 12 = block, %w : 8 = thread) {
// CHECK-LABEL: tile.kernel @k_padded_narrow
// CHECK:         tile.tile (%lane : 8 = thread, %a : 2 = block, %h_b : 3 = block, %h_t : 4 = thread, %w : 8 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 50 step 8 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r, %h_b * 4 + %h_t, %w] {tile.masked = [3 : i64]} : memref<2x50x12x5xf64>

// -----

func.func @main(%x: memref<2x50x4xf64>) -> memref<2x4xf64> {
  %y = memref.alloc() : memref<2x4xf64>
  loop.kernel @k_narrow ins(%x : memref<2x50x4xf64>) outs(%y : memref<2x4xf64>) {
    loop.for free %a < 2 {
      loop.for free %c < 4 {
        %s = loop.for reduce %r < 50 -> f64 {
          %v = loop.load %x[%a, %r, %c] : memref<2x50x4xf64>
          loop.accumulate max %v : f64
        }
        loop.store %s, %y[%a, %c] : memref<2x4xf64>
      }
    }
  }
  func.return %y : memref<2x4xf64>
}
// CHECK-LABEL: tile.kernel @k_narrow
// CHECK:         tile.tile (%lane : 64 = thread, %a : 2 = block, %c : 4 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 50 step 64 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r, %c] : memref<2x50x4xf64>
// CHECK:           %s = tile.combine max %s_part across [%lane] warp_shuffle : f64

// -----

// A column axis below the warp (%c of 4, the whole innermost dim) continued in memory by %b (7,
// the dim before): %b takes the rest of the warp (32 / 4 = 8 threads, rounded 7 -> 8, masked),
// so a warp reads 32 consecutive floats, and the lanes the rest of the block (256 / 32).
func.func @main(%x: memref<2x40x7x4xf64>) -> memref<2x7x4xf64> {
  %y = memref.alloc() : memref<2x7x4xf64>
  loop.kernel @k_outer ins(%x : memref<2x40x7x4xf64>) outs(%y : memref<2x7x4xf64>) {
    loop.for free %a < 2 {
      loop.for free %b < 7 {
        loop.for free %c < 4 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<2x40x7x4xf64>
            loop.accumulate add %v : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<2x7x4xf64>
        }
      }
    }
  }
  func.return %y : memref<2x7x4xf64>
}
// CHECK-LABEL: tile.kernel @k_outer
// CHECK:         tile.tile (%lane : 8 = thread, %a : 2 = block, %b : 8 = thread, %c : 4 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 40 step 8 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r, %b, %c] {tile.masked = [2 : i64]} : memref<2x40x7x4xf64>
// CHECK:           %s = tile.combine add %s_part across [%lane] warp_shuffle : f64
// CHECK-NEXT:      loop.store %s, %y[%a, %b, %c] {tile.masked = [1 : i64]} : memref<2x7x4xf64>

// -----

// The same with %b of 16: a multiple of the 8 threads it takes, no rounding; 2 blocks of 8 x 4
// columns.
func.func @main(%x: memref<2x40x16x4xf64>) -> memref<2x16x4xf64> {
  %y = memref.alloc() : memref<2x16x4xf64>
  loop.kernel @k_outer_even ins(%x : memref<2x40x16x4xf64>) outs(%y : memref<2x16x4xf64>) {
    loop.for free %a < 2 {
      loop.for free %b < 16 {
        loop.for free %c < 4 {
          %s = loop.for reduce %r < 40 -> f64 {
            %v = loop.load %x[%a, %r, %b, %c] : memref<2x40x16x4xf64>
            loop.accumulate add %v : f64
          }
          loop.store %s, %y[%a, %b, %c] : memref<2x16x4xf64>
        }
      }
    }
  }
  func.return %y : memref<2x16x4xf64>
}
// CHECK-LABEL: tile.kernel @k_outer_even
// CHECK:         tile.tile (%lane : 8 = thread, %a : 2 = block, %b_b : 2 = block, %b_t : 8 = thread, %c : 4 = thread) {
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %lane to 40 step 8 -> f64 {
// CHECK-NEXT:        %v = loop.load %x[%a, %r, %b_b * 8 + %b_t, %c] : memref<2x40x16x4xf64>
