// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,pad-matmul{rows=2 cols=2 threads=4 k-tile=8},chunk-matmul-k{k-tile=8},split-matmul-k{splits=3},register-tile{rows=2 cols=2},blockify-launch{block-size=16},permute-register-tile,cooperative-reduce,stage-inputs,mark-unroll,double-buffer,async-copy,pad-smem{pad=4},pipeline-k-outer' | filecheck %s
// The matmul schedule on ragged sizes (a small block tile: 8 x 8 outputs on 4 x 4 threads of
// 2 x 2 registers, K by 8): pad-matmul rounds M, N and K up and masks the accesses past the end,
// and the rest of the schedule runs as on even sizes: K chunked and split over blocks, A and B
// staged per K step with masked (zero-filling) double-buffered cp.async fills, the bias added
// by the first split only, the atomic adds masked. Cases: 13 x 11 x 21 (x @ w + b); a
// x @ W^T of 10 x 9 x 36 (16-byte copies along K), whose 5 K trips the 3 splits do not divide:
// the K loop is padded to 6 trips, 2 a split, the copies past K masked.

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
// CHECK:         tile.tile (%ks : 3 = block, %m_b : 2 = block, %m_t : 4 = thread, %n_b : 2 = block, %n_t : 4 = thread, %m_c : 2 = cell, %n_c : 2 = cell) {
// CHECK:           %x_smem = tile.stage %x origin [%m_b * 8, %ks * 8] slab [cell : 2 at 0, m_t : 4 at 0, ki : 8 at 1] {{.*}}async {tile.masked = [0 : i64, 1 : i64]}
// CHECK:           %w_smem = tile.stage %w origin [%ks * 8, %n_b * 8] slab [ki : 8 at 0, cell : 2 at 1, n_t : 4 at 1] {{.*}}async {tile.masked = [0 : i64, 1 : i64]}
// CHECK:           %bn = loop.load %b[%n_b * 8 + %n_c * 4 + %n_t] {tile.masked = [0 : i64]} : memref<11xf64>
// CHECK:           tile.atomic add %part, %y[%m_b * 8 + %m_c * 4 + %m_t, %n_b * 8 + %n_c * 4 + %n_t] {tile.masked = [0 : i64, 1 : i64]} : memref<13x11xf64>

// -----

func.func @main(%x: memref<10x36xf64>, %w: memref<9x36xf64>) -> memref<10x9xf64> {
  %y = memref.alloc() : memref<10x9xf64>
  loop.kernel @k_nt ins(%x, %w : memref<10x36xf64>, memref<9x36xf64>) outs(%y : memref<10x9xf64>) {
    loop.for free %m < 10 {
      loop.for free %n < 9 {
        %acc = loop.for reduce %k < 36 -> f64 {
          %a = loop.load %x[%m, %k] : memref<10x36xf64>
          %c = loop.load %w[%n, %k] : memref<9x36xf64>
          %p = arith.mulf %a, %c : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %y[%m, %n] : memref<10x9xf64>
      }
    }
  }
  func.return %y : memref<10x9xf64>
}
// CHECK-LABEL: tile.kernel @k_nt
// CHECK:         tile.tile (%ks : 3 = block, %m_b : 2 = block, %m_t : 4 = thread, %n_b : 2 = block, %n_t : 4 = thread, %m_c : 2 = cell, %n_c : 2 = cell) {
// CHECK:           %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK:             %x_smem = tile.stage %x origin [%m_b * 8, %ks * 16 + %ko * 8] {{.*}} buffers 2 at %ko {{.*}}async {tile.masked = [0 : i64, 1 : i64]}
// CHECK:             %w_smem = tile.stage %w origin [%n_b * 8, %ks * 16 + %ko * 8] {{.*}} buffers 2 at %ko {{.*}}async {tile.masked = [0 : i64, 1 : i64]}
// CHECK:           } {tile.pipeline = 2 : i64}
// CHECK:           tile.atomic add %acc, %y[%m_b * 8 + %m_c * 4 + %m_t, %n_b * 8 + %n_c * 4 + %n_t] {tile.masked = [0 : i64, 1 : i64]} : memref<10x9xf64>
