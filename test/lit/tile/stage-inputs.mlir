// RUN: dpl-opt %s --split-input-file --pass-pipeline='stage-inputs{min-reuse=2}' | filecheck %s
// stage-inputs: the seeds' RMSNorm reads x twice per row, so x is staged once per block and both
// strided loops read x_smem; p_weight is read once and stays global. Declined: a row of 8192
// doubles (64 KB) does not fit 48 KB of shared memory; a pointwise read indexed by a thread axis.

func.func @main(%x: memref<1x32x2048xf64>, %p_weight: memref<2048xf64>) -> memref<1x32x2048xf64> {
  %rms_norm = memref.alloc() : memref<1x32x2048xf64>
  tile.kernel @k_rms_norm ins(%x, %p_weight : memref<1x32x2048xf64>, memref<2048xf64>) outs(%rms_norm : memref<1x32x2048xf64>) {
    %v0 = arith.constant 0.00048828125 : f64
    %eps = arith.constant 1.0e-06 : f64
    tile.tile (%a0 : 256 = thread, %a1 : 32 = block) {
      %p = tile.strided_for reduce %a2 = %a0 to 2048 step 256 -> f64 {
        %in2 = loop.load %x[0, %a1, %a2] : memref<1x32x2048xf64>
        %v1 = arith.mulf %in2, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      %acc0 = tile.combine add %p across [%a0] warp_shuffle : f64
      %v2 = arith.mulf %acc0, %v0 : f64
      %v3 = arith.addf %v2, %eps : f64
      %v4 = math.rsqrt %v3 : f64
      tile.strided_for free %a3 = %a0 to 2048 step 256 {
        %in3 = loop.load %x[0, %a1, %a3] : memref<1x32x2048xf64>
        %in4 = loop.load %p_weight[%a3] : memref<2048xf64>
        %v5 = arith.mulf %in3, %v4 : f64
        %v6 = arith.mulf %v5, %in4 : f64
        loop.store %v6, %rms_norm[0, %a1, %a3] : memref<1x32x2048xf64>
      }
    }
  }
  func.return %rms_norm : memref<1x32x2048xf64>
}

// CHECK-LABEL: tile.kernel @k_rms_norm
// CHECK:       tile.tile (%a0 : 256 = thread, %a1 : 32 = block) {
// CHECK-NEXT:    %x_smem = tile.stage %x origin [0, %a1, 0] slab [a2 : 2048 at 2] : memref<1x32x2048xf64> -> memref<2048xf64, #tile.smem>
// CHECK-NOT:     tile.stage
// CHECK-NEXT:    %p = tile.strided_for reduce %a2 = %a0 to 2048 step 256 -> f64 {
// CHECK-NEXT:      %in2 = loop.load %x_smem[%a2] : memref<2048xf64, #tile.smem>
// CHECK:         tile.strided_for free %a3 = %a0 to 2048 step 256 {
// CHECK-NEXT:      %in3 = loop.load %x_smem[%a3] : memref<2048xf64, #tile.smem>
// CHECK-NEXT:      %in4 = loop.load %p_weight[%a3] : memref<2048xf64>

// -----

func.func @main(%x: memref<1x2x8192xf64>, %p_weight: memref<8192xf64>) -> memref<1x2x8192xf64> {
  %rms_norm = memref.alloc() : memref<1x2x8192xf64>
  tile.kernel @k_too_big ins(%x, %p_weight : memref<1x2x8192xf64>, memref<8192xf64>) outs(%rms_norm : memref<1x2x8192xf64>) {
    %v0 = arith.constant 0.00048828125 : f64
    %eps = arith.constant 1.0e-06 : f64
    tile.tile (%a0 : 256 = thread, %a1 : 2 = block) {
      %p = tile.strided_for reduce %a2 = %a0 to 8192 step 256 -> f64 {
        %in2 = loop.load %x[0, %a1, %a2] : memref<1x2x8192xf64>
        %v1 = arith.mulf %in2, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      %acc0 = tile.combine add %p across [%a0] warp_shuffle : f64
      %v2 = arith.mulf %acc0, %v0 : f64
      %v3 = arith.addf %v2, %eps : f64
      %v4 = math.rsqrt %v3 : f64
      tile.strided_for free %a3 = %a0 to 8192 step 256 {
        %in3 = loop.load %x[0, %a1, %a3] : memref<1x2x8192xf64>
        %in4 = loop.load %p_weight[%a3] : memref<8192xf64>
        %v5 = arith.mulf %in3, %v4 : f64
        %v6 = arith.mulf %v5, %in4 : f64
        loop.store %v6, %rms_norm[0, %a1, %a3] : memref<1x2x8192xf64>
      }
    }
  }
  func.return %rms_norm : memref<1x2x8192xf64>
}

// CHECK-LABEL: tile.kernel @k_too_big
// CHECK-NOT:     tile.stage
// CHECK:         %in2 = loop.load %x[0, %a1, %a2] : memref<1x2x8192xf64>

// -----

func.func @main(%x: memref<8x4xf64>) -> memref<8x4xf64> {
  %out = memref.alloc() : memref<8x4xf64>
  tile.kernel @k_pointwise ins(%x : memref<8x4xf64>) outs(%out : memref<8x4xf64>) {
    tile.tile (%i : 8 = block, %j : 4 = thread) {
      %a = loop.load %x[%i, %j] : memref<8x4xf64>
      %b = loop.load %x[%i, %j] : memref<8x4xf64>
      %c = arith.mulf %a, %b : f64
      loop.store %c, %out[%i, %j] : memref<8x4xf64>
    }
  }
  func.return %out : memref<8x4xf64>
}

// CHECK-LABEL: tile.kernel @k_pointwise
// CHECK-NOT:     tile.stage
// CHECK:         %a = loop.load %x[%i, %j] : memref<8x4xf64>

// -----

// A matmul after chunk-matmul-k, register-tile and blockify-launch: x and W are staged once per
// K-outer step (origin from the block axes and %ko, slab [4 threads, 4 cells, 8 K-inner]); the
// bias, read in the epilogue outside the K loop, stays global.
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
// CHECK:         %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [%m_b * 16, %ko * 8] slab [m_t : 4 at 0, cell : 4 at 0, ki : 8 at 1] : memref<32x16xf64> -> memref<4x4x8xf64, #tile.smem>
// CHECK-NEXT:      %wt_smem = tile.stage %wt origin [%n_b * 16, %ko * 8] slab [n_t : 4 at 0, cell : 4 at 0, ki : 8 at 1] : memref<32x16xf64> -> memref<4x4x8xf64, #tile.smem>
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 8 -> f64 {
// CHECK-NEXT:        %in = loop.load %x_smem[%m_t, %m_c, %ki] : memref<4x4x8xf64, #tile.smem>
// CHECK-NEXT:        %in_1 = loop.load %wt_smem[%n_t, %n_c, %ki] : memref<4x4x8xf64, #tile.smem>
// CHECK:         %bias = loop.load %b[%n_b * 16 + %n_t * 4 + %n_c] : memref<32xf64>

// -----

// Grouped-query attention's scores: 4 query heads share 2 key heads (`%h floordiv 2`). The
// non-linear head index is block-uniform, so it goes into the origin as it is.

func.func @main(%q: memref<4x8x16xf64>, %k: memref<2x8x16xf64>) -> memref<4x8x8xf64> {
  %out = memref.alloc() : memref<4x8x8xf64>
  tile.kernel @k_gqa ins(%q, %k : memref<4x8x16xf64>, memref<2x8x16xf64>) outs(%out : memref<4x8x8xf64>) {
    tile.tile (%h : 4 = block, %i_t : 4 = thread, %j_t : 4 = thread, %i_c : 2 = cell, %j_c : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f64 {
        %acc_k = loop.for reduce %ki < 8 -> f64 {
          %a = loop.load %q[%h, %i_t * 2 + %i_c, %ko * 8 + %ki] : memref<4x8x16xf64>
          %b = loop.load %k[%h floordiv 2, %j_t * 2 + %j_c, %ko * 8 + %ki] : memref<2x8x16xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%h, %i_t * 2 + %i_c, %j_t * 2 + %j_c] : memref<4x8x8xf64>
    }
  }
  func.return %out : memref<4x8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_gqa
// CHECK:         %q_smem = tile.stage %q origin [%h, 0, %ko * 8] slab [i_t : 4 at 1, cell : 2 at 1, ki : 8 at 2]
// CHECK-NEXT:    %k_smem = tile.stage %k origin [%h floordiv 2, 0, %ko * 8] slab [j_t : 4 at 1, cell : 2 at 1, ki : 8 at 2]

// -----

// A norm over two dims: collapse-loops reads x[%a1, %r floordiv 40, %r mod 40] with %r over all
// 24 x 40 elements of the row (a flat suffix of dims 1 and 2), so x is staged with both dims
// whole and each loop reads the stage at the same indices.
func.func @main(%x: memref<7x24x40xf32>) -> memref<7x24x40xf32> {
  %y = memref.alloc() : memref<7x24x40xf32>
  tile.kernel @k_flat_row ins(%x : memref<7x24x40xf32>) outs(%y : memref<7x24x40xf32>) {
    tile.tile (%a0 : 256 = thread, %a1 : 7 = block) {
      %p = tile.strided_for reduce %r = %a0 to 960 step 256 -> f32 {
        %v = loop.load %x[%a1, %r floordiv 40, %r mod 40] : memref<7x24x40xf32>
        %v2 = arith.mulf %v, %v : f32
        loop.accumulate add %v2 : f32
      }
      %s = tile.combine add %p across [%a0] warp_shuffle : f32
      tile.strided_for free %f = %a0 to 960 step 256 {
        %w = loop.load %x[%a1, %f floordiv 40, %f mod 40] : memref<7x24x40xf32>
        %q = arith.divf %w, %s : f32
        loop.store %q, %y[%a1, %f floordiv 40, %f mod 40] : memref<7x24x40xf32>
      }
    }
  }
  func.return %y : memref<7x24x40xf32>
}

// CHECK-LABEL: tile.kernel @k_flat_row
// CHECK:         %x_smem = tile.stage %x origin [%a1, 0, 0] slab [r : 24 at 1, r : 40 at 2] : memref<7x24x40xf32> -> memref<24x40xf32, #tile.smem>
// CHECK:           %v = loop.load %x_smem[%r floordiv 40, %r mod 40] : memref<24x40xf32, #tile.smem>
// CHECK:           %w = loop.load %x_smem[%f floordiv 40, %f mod 40] : memref<24x40xf32, #tile.smem>

// -----

// Declined: the loop runs over half the row (480 of 24 x 40), so x[%a1, %r floordiv 40,
// %r mod 40] is not the whole of dims 1 and 2: a non-linear index.
func.func @main(%x: memref<7x24x40xf32>) -> memref<7xf32> {
  %y = memref.alloc() : memref<7xf32>
  tile.kernel @k_half_row ins(%x : memref<7x24x40xf32>) outs(%y : memref<7xf32>) {
    tile.tile (%a0 : 256 = thread, %a1 : 7 = block) {
      %p = tile.strided_for reduce %r = %a0 to 480 step 256 -> f32 {
        %v = loop.load %x[%a1, %r floordiv 40, %r mod 40] : memref<7x24x40xf32>
        loop.accumulate add %v : f32
      }
      %p2 = tile.strided_for reduce %r2 = %a0 to 480 step 256 -> f32 {
        %v2 = loop.load %x[%a1, %r2 floordiv 40, %r2 mod 40] : memref<7x24x40xf32>
        loop.accumulate add %v2 : f32
      }
      %s = arith.addf %p, %p2 : f32
      %t = tile.combine add %s across [%a0] warp_shuffle : f32
      loop.store %t, %y[%a1] : memref<7xf32>
    }
  }
  func.return %y : memref<7xf32>
}

// CHECK-LABEL: tile.kernel @k_half_row
// CHECK-NOT:     tile.stage
// CHECK:         loop.load %x[%a1, %r floordiv 40, %r mod 40]
