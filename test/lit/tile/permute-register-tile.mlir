// RUN: dpl-opt %s --split-input-file --pass-pipeline='permute-register-tile{short-k=0}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='permute-register-tile' | filecheck %s --check-prefix=SHORT
// permute-register-tile: in a register-tiled, blockified matmul every index a * 4 + c (thread a of
// 4, cell c of 4) becomes c * 4 + a, in loads and stores alike (block parts stay). Declined: a
// tile without cell axes; a cell axis also used on its own. The first RUN keeps runs of 4 on a
// side stored along M or N at any K (short-k=0); the second, with the default short-k = 64,
// interleaves the N side of a.T @ b over K = 32 (SHORT, the last case), whose output stores
// then cover a warp's 16 columns at once, and keeps A's runs.

func.func @main(%x: memref<32x16xf64>, %wt: memref<32x16xf64>, %b: memref<32xf64>) -> memref<32x32xf64> {
  %out = memref.alloc() : memref<32x32xf64>
  tile.kernel @k_linear ins(%b, %x, %wt : memref<32xf64>, memref<32x16xf64>, memref<32x16xf64>) outs(%out : memref<32x32xf64>) {
    tile.tile (%m_b : 2 = block, %m_t : 4 = thread, %n_b : 2 = block, %n_t : 4 = thread, %m_c : 4 = cell, %n_c : 4 = cell) {
      %acc = loop.for reduce %ko < 2 -> f64 {
        %acc_k = loop.for reduce %ki < 8 -> f64 {
          %in = loop.load %x[%m_b * 16 + %m_t * 4 + %m_c, %ko * 8 + %ki] : memref<32x16xf64>
          %in_1 = loop.load %wt[%n_b * 16 + %n_t * 4 + %n_c, %ko * 8 + %ki] : memref<32x16xf64>
          %p = arith.mulf %in, %in_1 : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      %bias = loop.load %b[%n_b * 16 + %n_t * 4 + %n_c] : memref<32xf64>
      %v = arith.addf %acc, %bias : f64
      loop.store %v, %out[%m_b * 16 + %m_t * 4 + %m_c, %n_b * 16 + %n_t * 4 + %n_c] : memref<32x32xf64>
    }
  }
  func.return %out : memref<32x32xf64>
}

// CHECK-LABEL: tile.kernel @k_linear
// CHECK:           %in = loop.load %x[%m_b * 16 + %m_c * 4 + %m_t, %ko * 8 + %ki] : memref<32x16xf64>
// CHECK-NEXT:      %in_1 = loop.load %wt[%n_b * 16 + %n_c * 4 + %n_t, %ko * 8 + %ki] : memref<32x16xf64>
// CHECK:         %bias = loop.load %b[%n_b * 16 + %n_c * 4 + %n_t] : memref<32xf64>
// CHECK-NEXT:    %v = arith.addf %acc, %bias : f64
// CHECK-NEXT:    loop.store %v, %out[%m_b * 16 + %m_c * 4 + %m_t, %n_b * 16 + %n_c * 4 + %n_t] : memref<32x32xf64>

// -----

func.func @main(%x: memref<8x8xf64>, %w: memref<8x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_plain ins(%x, %w : memref<8x8xf64>, memref<8x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %x[%i, %k] : memref<8x8xf64>
        %b = loop.load %w[%k, %j] : memref<8x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_plain
// CHECK:         %a = loop.load %x[%i, %k] : memref<8x8xf64>

// -----

func.func @main(%x: memref<8x8xf64>, %w: memref<8x8xf64>, %s: memref<4xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_alone ins(%x, %w, %s : memref<8x8xf64>, memref<8x8xf64>, memref<4xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 2 = thread, %j : 8 = thread, %c : 4 = cell) {
      %acc = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %x[%i * 4 + %c, %k] : memref<8x8xf64>
        %b = loop.load %w[%k, %j] : memref<8x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      %sc = loop.load %s[%c] : memref<4xf64>
      %v = arith.mulf %acc, %sc : f64
      loop.store %v, %out[%i * 4 + %c, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_alone
// CHECK:         %a = loop.load %x[%i * 4 + %c, %k] : memref<8x8xf64>

// -----

// A head-major operand (`%k floordiv 4`, `%k mod 4`, as the o-projection reads attention's
// output) keeps its non-linear indices; only the register-tiled index is interleaved.

func.func @main(%h: memref<2x8x4xf64>, %w: memref<8x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_heads ins(%h, %w : memref<2x8x4xf64>, memref<8x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%m_t : 2 = thread, %n : 8 = thread, %m_c : 4 = cell) {
      %acc = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %h[%k floordiv 4, %m_t * 4 + %m_c, %k mod 4] : memref<2x8x4xf64>
        %b = loop.load %w[%n, %k] : memref<8x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m_t * 4 + %m_c, %n] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_heads
// CHECK:         %a = loop.load %h[%k floordiv 4, %m_c * 2 + %m_t, %k mod 4] : memref<2x8x4xf64>
// CHECK:         loop.store %acc, %out[%m_c * 2 + %m_t, %n] : memref<8x8xf64>

// -----

// B stored along N (x @ w): its cells stay in runs of 4 per thread (one 16-byte shared read):
// with 4 cells the N index keeps `a * 4 + c`, with 8 the cell axis splits into 2 x 4; A (read
// along K) is interleaved as before.
func.func @main(%x: memref<64x16xf64>, %w: memref<16x64xf64>) -> memref<64x64xf64> {
  %out = memref.alloc() : memref<64x64xf64>
  tile.kernel @k_nn ins(%x, %w : memref<64x16xf64>, memref<16x64xf64>) outs(%out : memref<64x64xf64>) {
    tile.tile (%m_t : 16 = thread, %n_b : 2 = block, %n_t : 4 = thread, %m_c : 4 = cell, %n_c : 8 = cell) {
      %acc = loop.for reduce %k < 16 -> f64 {
        %a = loop.load %x[%m_t * 4 + %m_c, %k] : memref<64x16xf64>
        %b = loop.load %w[%k, %n_b * 32 + %n_t * 8 + %n_c] : memref<16x64xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m_t * 4 + %m_c, %n_b * 32 + %n_t * 8 + %n_c] : memref<64x64xf64>
    }
  }
  func.return %out : memref<64x64xf64>
}

// CHECK-LABEL: tile.kernel @k_nn
// CHECK:         tile.tile (%m_t : 16 = thread, %n_b : 2 = block, %n_t : 4 = thread, %m_c : 4 = cell, %n_c : 2 = cell, %n_c_v : 4 = cell) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 16 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%m_c * 16 + %m_t, %k] : memref<64x16xf64>
// CHECK-NEXT:        %b = loop.load %w[%k, %n_b * 32 + %n_c * 16 + %n_t * 4 + %n_c_v] : memref<16x64xf64>
// CHECK:         loop.store %acc, %out[%m_c * 16 + %m_t, %n_b * 32 + %n_c * 16 + %n_t * 4 + %n_c_v] : memref<64x64xf64>

// -----

func.func @main(%x: memref<16x16xf64>, %w: memref<16x16xf64>) -> memref<16x16xf64> {
  %out = memref.alloc() : memref<16x16xf64>
  tile.kernel @k_nn4 ins(%x, %w : memref<16x16xf64>, memref<16x16xf64>) outs(%out : memref<16x16xf64>) {
    tile.tile (%m_t : 4 = thread, %n_t : 4 = thread, %m_c : 4 = cell, %n_c : 4 = cell) {
      %acc = loop.for reduce %k < 16 -> f64 {
        %a = loop.load %x[%m_t * 4 + %m_c, %k] : memref<16x16xf64>
        %b = loop.load %w[%k, %n_t * 4 + %n_c] : memref<16x16xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m_t * 4 + %m_c, %n_t * 4 + %n_c] : memref<16x16xf64>
    }
  }
  func.return %out : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_nn4
// CHECK:           %a = loop.load %x[%m_c * 4 + %m_t, %k] : memref<16x16xf64>
// CHECK-NEXT:      %b = loop.load %w[%k, %n_t * 4 + %n_c] : memref<16x16xf64>
// CHECK:         loop.store %acc, %out[%m_c * 4 + %m_t, %n_t * 4 + %n_c] : memref<16x16xf64>

// -----

func.func @main(%a: memref<32x64xf64>, %b: memref<32x64xf64>) -> memref<64x64xf64> {
  %out = memref.alloc() : memref<64x64xf64>
  tile.kernel @k_tn_short ins(%a, %b : memref<32x64xf64>, memref<32x64xf64>) outs(%out : memref<64x64xf64>) {
    tile.tile (%m_t : 16 = thread, %n_t : 16 = thread, %m_c : 4 = cell, %n_c : 4 = cell) {
      %acc = loop.for reduce %k < 32 -> f64 {
        %x = loop.load %a[%k, %m_t * 4 + %m_c] : memref<32x64xf64>
        %y = loop.load %b[%k, %n_t * 4 + %n_c] : memref<32x64xf64>
        %p = arith.mulf %x, %y : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m_t * 4 + %m_c, %n_t * 4 + %n_c] : memref<64x64xf64>
    }
  }
  func.return %out : memref<64x64xf64>
}

// CHECK-LABEL: tile.kernel @k_tn_short
// CHECK:           %x = loop.load %a[%k, %m_t * 4 + %m_c] : memref<32x64xf64>
// CHECK-NEXT:      %y = loop.load %b[%k, %n_t * 4 + %n_c] : memref<32x64xf64>
// CHECK:         loop.store %acc, %out[%m_t * 4 + %m_c, %n_t * 4 + %n_c] : memref<64x64xf64>
// SHORT-LABEL: tile.kernel @k_tn_short
// SHORT:           %x = loop.load %a[%k, %m_t * 4 + %m_c] : memref<32x64xf64>
// SHORT-NEXT:      %y = loop.load %b[%k, %n_c * 16 + %n_t] : memref<32x64xf64>
// SHORT:         loop.store %acc, %out[%m_t * 4 + %m_c, %n_c * 16 + %n_t] : memref<64x64xf64>
