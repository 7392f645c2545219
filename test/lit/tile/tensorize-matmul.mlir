// RUN: dpl-opt %s --split-input-file --pass-pipeline='tensorize-matmul{bm=64 bn=32}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tensorize-matmul{layout=mma_sync bm=64 bn=32 precision=tf32 promote=1}' | filecheck %s --check-prefix=SYNC
// tensorize-matmul: a K-chunked matmul tile gets block axes of bm x bn, the fragment's thread and
// cell axes, K-major operand stages whose regions compute A(m, k) and B(n, k), and mma.dot with
// its promotion interval (MMA steps of 8 per tensor-core accumulation chain); the epilogue reads
// the same outputs. Cases: x @ W^T + bias (wgmma and mma_sync fragments); a norm's
// scale in the A prologue with W stored [K, N] (the B stage reads it transposed). Declined: M not
// a multiple of bm; f64; K not chunked.

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>, %b: memref<32xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k_linear ins(%b, %x, %wt : memref<32xf32>, memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 32 = thread) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %acc_k = loop.for reduce %ki < 32 -> f32 {
          %in = loop.load %x[%a0, %ko * 32 + %ki] : memref<64x64xf32>
          %in_1 = loop.load %wt[%a1, %ko * 32 + %ki] : memref<32x64xf32>
          %p = arith.mulf %in, %in_1 : f32
          loop.accumulate add %p : f32
        }
        loop.accumulate add %acc_k : f32
      }
      %bias = loop.load %b[%a1] : memref<32xf32>
      %r = arith.addf %acc, %bias : f32
      loop.store %r, %out[%a0, %a1] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}

// CHECK-LABEL: tile.kernel @k_linear
// CHECK:       tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
// CHECK-NEXT:    %acc = loop.for reduce %ko < 2 -> f32 {
// CHECK-NEXT:      %a_st = mma.stage rows 64 k 32 {
// CHECK-NEXT:      ^bb0(%r: index, %c: index):
// CHECK-NEXT:        %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
// CHECK-NEXT:        mma.yield %in : f32
// CHECK-NEXT:      } : memref<64x32xf32, #tile.smem>
// CHECK-NEXT:      %b_st = mma.stage rows 32 k 32 {
// CHECK-NEXT:      ^bb0(%r_1: index, %c_1: index):
// CHECK-NEXT:        %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
// CHECK-NEXT:        mma.yield %in_1 : f32
// CHECK-NEXT:      } : memref<32x32xf32, #tile.smem>
// CHECK-NEXT:      %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 4 : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
// CHECK-NEXT:      loop.accumulate add %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %bias = loop.load %b[%bn * 32 + %j * 8 + %t * 2 + %e] : memref<32xf32>
// CHECK-NEXT:    %r_2 = arith.addf %acc, %bias : f32
// CHECK-NEXT:    loop.store %r_2, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>

// SYNC-LABEL: tile.kernel @k_linear
// SYNC:       tile.tile (%bm : 1 = block, %bn : 1 = block, %wm : 1 = thread, %wn : 1 = thread, %g : 8 = thread, %t : 4 = thread, %mi : 4 = cell, %ni : 4 = cell, %h : 2 = cell, %e : 2 = cell) {
// SYNC:         %p = mma.dot %a_st[%wm * 64 + %mi * 16 + %h * 8 + %g], %b_st[%wn * 32 + %ni * 8 + %t * 2 + %e] precision "tf32" layout mma_sync promote 1 :

// -----

func.func @main(%x: memref<64x64xf32>, %rstd: memref<64xf32>, %gain: memref<64xf32>, %w: memref<64x32xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k_norm_mm ins(%x, %rstd, %gain, %w : memref<64x64xf32>, memref<64xf32>, memref<64xf32>, memref<64x32xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 32 = thread) {
      %s = loop.load %rstd[%a0] : memref<64xf32>
      %acc = loop.for reduce %ko < 2 -> f32 {
        %acc_k = loop.for reduce %ki < 32 -> f32 {
          %in = loop.load %x[%a0, %ko * 32 + %ki] : memref<64x64xf32>
          %gk = loop.load %gain[%ko * 32 + %ki] : memref<64xf32>
          %xs = arith.mulf %in, %s : f32
          %wk = loop.load %w[%ko * 32 + %ki, %a1] : memref<64x32xf32>
          %p = arith.mulf %gk, %xs : f32
          %q = arith.mulf %p, %wk : f32
          loop.accumulate add %q : f32
        }
        loop.accumulate add %acc_k : f32
      }
      loop.store %acc, %out[%a0, %a1] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}

// CHECK-LABEL: tile.kernel @k_norm_mm
// CHECK:         %a_st = mma.stage rows 64 k 32 {
// CHECK-NEXT:    ^bb0(%r: index, %c: index):
// CHECK-NEXT:      %gk = loop.load %gain[%ko * 32 + %c] : memref<64xf32>
// CHECK-NEXT:      %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
// CHECK-NEXT:      %s = loop.load %rstd[%bm * 64 + %r] : memref<64xf32>
// CHECK-NEXT:      %xs = arith.mulf %in, %s : f32
// CHECK-NEXT:      %p = arith.mulf %gk, %xs : f32
// CHECK-NEXT:      mma.yield %p : f32
// CHECK:         %b_st = mma.stage rows 32 k 32 {
// CHECK-NEXT:    ^bb0(%r_1: index, %c_1: index):
// CHECK-NEXT:      %wk = loop.load %w[%ko * 32 + %c_1, %bn * 32 + %r_1] : memref<64x32xf32>
// CHECK-NEXT:      mma.yield %wk : f32
// CHECK-NOT:     loop.load %rstd
// CHECK:         loop.store %acc, %out[

// -----

func.func @main(%x: memref<48x64xf32>, %wt: memref<32x64xf32>) -> memref<48x32xf32> {
  %out = memref.alloc() : memref<48x32xf32>
  tile.kernel @k_ragged ins(%x, %wt : memref<48x64xf32>, memref<32x64xf32>) outs(%out : memref<48x32xf32>) {
    tile.tile (%a0 : 48 = thread, %a1 : 32 = thread) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %acc_k = loop.for reduce %ki < 32 -> f32 {
          %in = loop.load %x[%a0, %ko * 32 + %ki] : memref<48x64xf32>
          %in_1 = loop.load %wt[%a1, %ko * 32 + %ki] : memref<32x64xf32>
          %p = arith.mulf %in, %in_1 : f32
          loop.accumulate add %p : f32
        }
        loop.accumulate add %acc_k : f32
      }
      loop.store %acc, %out[%a0, %a1] : memref<48x32xf32>
    }
  }
  func.return %out : memref<48x32xf32>
}

// CHECK-LABEL: tile.kernel @k_ragged
// CHECK:       tile.tile (%a0 : 48 = thread, %a1 : 32 = thread) {
// CHECK-NOT:   mma.dot

// -----

func.func @main(%x: memref<64x64xf64>, %wt: memref<32x64xf64>) -> memref<64x32xf64> {
  %out = memref.alloc() : memref<64x32xf64>
  tile.kernel @k_f64 ins(%x, %wt : memref<64x64xf64>, memref<32x64xf64>) outs(%out : memref<64x32xf64>) {
    tile.tile (%a0 : 64 = thread, %a1 : 32 = thread) {
      %acc = loop.for reduce %ko < 2 -> f64 {
        %acc_k = loop.for reduce %ki < 32 -> f64 {
          %in = loop.load %x[%a0, %ko * 32 + %ki] : memref<64x64xf64>
          %in_1 = loop.load %wt[%a1, %ko * 32 + %ki] : memref<32x64xf64>
          %p = arith.mulf %in, %in_1 : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%a0, %a1] : memref<64x32xf64>
    }
  }
  func.return %out : memref<64x32xf64>
}

// CHECK-LABEL: tile.kernel @k_f64
// CHECK-NOT:   mma.dot

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k_unchunked ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 32 = thread) {
      %acc = loop.for reduce %k < 64 -> f32 {
        %in = loop.load %x[%a0, %k] : memref<64x64xf32>
        %in_1 = loop.load %wt[%a1, %k] : memref<32x64xf32>
        %p = arith.mulf %in, %in_1 : f32
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%a0, %a1] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}

// CHECK-LABEL: tile.kernel @k_unchunked
// CHECK-NOT:   mma.dot
