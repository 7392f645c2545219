// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,pad-matmul{rows=2 cols=2 threads=4 k-tile=8}' | filecheck %s
// pad-matmul rounds a matmul's ragged sizes up to its block tile (here 2 x 4 = 8 rows and
// columns, K by 8) and masks the accesses that can leave their buffer. Cases: a 13 x 11 x 21
// matmul with a bias epilogue (M, N, K all rounded: 16, 16, 24); an M below the block tile
// (3 rows: 2 x the next power of two of 3 / 2 = 4); a flattened output, where a padded column
// would land in the next row (N kept; M and K rounded: a padded row lands past the end); a K whose product does not vanish past
// K (an added constant: K kept); a tile that needs no rounding (declined); a convolution as
// collapse-matmul-axes leaves it (output positions %q = (n, h, w) delinearized, the input
// channel `%r floordiv 9`): N 42 -> 48 and K 27 -> 32, masked along the dims whose floordiv
// passes the end (0 for %q, 1 for %r).

func.func @main(%x: memref<13x21xf64>, %w: memref<21x11xf64>, %b: memref<11xf64>) -> memref<13x11xf64> {
  %y = memref.alloc() : memref<13x11xf64>
  loop.kernel @k_bias ins(%x, %w, %b : memref<13x21xf64>, memref<21x11xf64>, memref<11xf64>) outs(%y : memref<13x11xf64>) {
    loop.for free %m < 13 {
      loop.for free %n < 11 {
        %acc = loop.for reduce %k < 21 -> f64 {
          %a = loop.load %x[%m, %k] : memref<13x21xf64>
          %c = loop.load %w[%k, %n] : memref<21x11xf64>
          %p = arith.mulf %a, %c : f64
          loop.accumulate add %p : f64
        }
        %bn = loop.load %b[%n] : memref<11xf64>
        %v = arith.addf %acc, %bn : f64
        loop.store %v, %y[%m, %n] : memref<13x11xf64>
      }
    }
  }
  func.return %y : memref<13x11xf64>
}
// CHECK-LABEL: tile.kernel @k_bias
// CHECK:         tile.tile (%m : 16 = thread, %n : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 24 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%m, %k] {tile.masked = [0 : i64, 1 : i64]} : memref<13x21xf64>
// CHECK-NEXT:        %c = loop.load %w[%k, %n] {tile.masked = [0 : i64, 1 : i64]} : memref<21x11xf64>
// CHECK:           %bn = loop.load %b[%n] {tile.masked = [0 : i64]} : memref<11xf64>
// CHECK:           loop.store %v, %y[%m, %n] {tile.masked = [0 : i64, 1 : i64]} : memref<13x11xf64>

// -----

func.func @main(%x: memref<3x16xf64>, %w: memref<16x8xf64>) -> memref<3x8xf64> {
  %y = memref.alloc() : memref<3x8xf64>
  loop.kernel @k_small ins(%x, %w : memref<3x16xf64>, memref<16x8xf64>) outs(%y : memref<3x8xf64>) {
    loop.for free %m < 3 {
      loop.for free %n < 8 {
        %acc = loop.for reduce %k < 16 -> f64 {
          %a = loop.load %x[%m, %k] : memref<3x16xf64>
          %c = loop.load %w[%k, %n] : memref<16x8xf64>
          %p = arith.mulf %a, %c : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%m, %n] : memref<3x8xf64>
      }
    }
  }
  func.return %y : memref<3x8xf64>
}
// CHECK-LABEL: tile.kernel @k_small
// CHECK:         tile.tile (%m : 4 = thread, %n : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 16 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%m, %k] {tile.masked = [0 : i64]} : memref<3x16xf64>
// CHECK-NEXT:        %c = loop.load %w[%k, %n] : memref<16x8xf64>
// CHECK:           loop.store %acc, %y[%m, %n] {tile.masked = [0 : i64]} : memref<3x8xf64>

// -----

func.func @main(%x: memref<13x21xf64>, %w: memref<21x11xf64>) -> memref<143xf64> {
  %y = memref.alloc() : memref<143xf64>
  loop.kernel @k_flat ins(%x, %w : memref<13x21xf64>, memref<21x11xf64>) outs(%y : memref<143xf64>) {
    loop.for free %m < 13 {
      loop.for free %n < 11 {
        %acc = loop.for reduce %k < 21 -> f64 {
          %a = loop.load %x[%m, %k] : memref<13x21xf64>
          %c = loop.load %w[%k, %n] : memref<21x11xf64>
          %p = arith.mulf %a, %c : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%m * 11 + %n] : memref<143xf64>
      }
    }
  }
  func.return %y : memref<143xf64>
}
// CHECK-LABEL: tile.kernel @k_flat
// CHECK:         tile.tile (%m : 16 = thread, %n : 11 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 24 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%m, %k] {tile.masked = [0 : i64, 1 : i64]} : memref<13x21xf64>
// CHECK-NEXT:        %c = loop.load %w[%k, %n] {tile.masked = [0 : i64]} : memref<21x11xf64>
// CHECK:           loop.store %acc, %y[%m * 11 + %n] {tile.masked = [0 : i64]} : memref<143xf64>

// -----

func.func @main(%x: memref<16x21xf64>, %w: memref<21x16xf64>) -> memref<16x16xf64> {
  %y = memref.alloc() : memref<16x16xf64>
  loop.kernel @k_plus_one ins(%x, %w : memref<16x21xf64>, memref<21x16xf64>) outs(%y : memref<16x16xf64>) {
    %one = arith.constant 1.0 : f64
    loop.for free %m < 16 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 21 -> f64 {
          %a = loop.load %x[%m, %k] : memref<16x21xf64>
          %c = loop.load %w[%k, %n] : memref<21x16xf64>
          %p = arith.mulf %a, %c : f64
          %q = arith.addf %p, %one : f64
          loop.accumulate add %q : f64
        }
        loop.store %acc, %y[%m, %n] : memref<16x16xf64>
      }
    }
  }
  func.return %y : memref<16x16xf64>
}
// CHECK-LABEL: tile.kernel @k_plus_one
// CHECK:         tile.tile (%m : 16 = thread, %n : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 21 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%m, %k] : memref<16x21xf64>

// -----

func.func @main(%x: memref<16x24xf64>, %w: memref<24x16xf64>) -> memref<16x16xf64> {
  %y = memref.alloc() : memref<16x16xf64>
  loop.kernel @k_even ins(%x, %w : memref<16x24xf64>, memref<24x16xf64>) outs(%y : memref<16x16xf64>) {
    loop.for free %m < 16 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 24 -> f64 {
          %a = loop.load %x[%m, %k] : memref<16x24xf64>
          %c = loop.load %w[%k, %n] : memref<24x16xf64>
          %p = arith.mulf %a, %c : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%m, %n] : memref<16x16xf64>
      }
    }
  }
  func.return %y : memref<16x16xf64>
}
// CHECK-LABEL: tile.kernel @k_even
// CHECK:         tile.tile (%m : 16 = thread, %n : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 24 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%m, %k] : memref<16x24xf64>

// -----

func.func @main(%x: memref<3x3x4x9xf64>, %w: memref<8x3x3x3xf64>) -> memref<3x8x2x7xf64> {
  %y = memref.alloc() : memref<3x8x2x7xf64>
  loop.kernel @k_conv ins(%x, %w : memref<3x3x4x9xf64>, memref<8x3x3x3xf64>) outs(%y : memref<3x8x2x7xf64>) {
    loop.for free %o < 8 {
      loop.for free %q < 42 {
        %acc = loop.for reduce %r < 27 -> f64 {
          %u = loop.load %x[%q floordiv 14, %r floordiv 9, %q floordiv 7 mod 2 + %r mod 9 floordiv 3, %q mod 7 + %r mod 3] : memref<3x3x4x9xf64>
          %v = loop.load %w[%o, %r floordiv 9, %r mod 9 floordiv 3, %r mod 3] : memref<8x3x3x3xf64>
          %p = arith.mulf %u, %v : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%q floordiv 14, %o, %q floordiv 7 mod 2, %q mod 7] : memref<3x8x2x7xf64>
      }
    }
  }
  func.return %y : memref<3x8x2x7xf64>
}
// CHECK-LABEL: tile.kernel @k_conv
// CHECK:         tile.tile (%o : 8 = thread, %q : 48 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %r < 32 -> f64 {
// CHECK-NEXT:        %u = loop.load %x[%q floordiv 14, %r floordiv 9, %q floordiv 7 mod 2 + %r mod 9 floordiv 3, %q mod 7 + %r mod 3] {tile.masked = [0 : i64, 1 : i64]} : memref<3x3x4x9xf64>
// CHECK-NEXT:        %v = loop.load %w[%o, %r floordiv 9, %r mod 9 floordiv 3, %r mod 3] {tile.masked = [1 : i64]} : memref<8x3x3x3xf64>
// CHECK:           loop.store %acc, %y[%q floordiv 14, %o, %q floordiv 7 mod 2, %q mod 7] {tile.masked = [0 : i64]} : memref<3x8x2x7xf64>

