// RUN: dpl-opt %s --split-input-file --pass-pipeline='materialize-attention' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='materialize-attention' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// The shared memory a block may use is the module's #kernel.target's: 1024 bytes are too few.
// RUN: not dpl-opt %s --split-input-file --pass-pipeline='set-target{smem-bytes=1024},materialize-attention' 2>&1 | filecheck %s --check-prefix=SMALL
// SMALL: materialize-attention: @k_scaled_dot_product_attention: needs 1536 bytes of shared memory, more than 1024
// materialize-attention: an attn.flash tile becomes one flash-attention kernel.func and its launch:
// the query tile in shared memory, key and value tiles through cp.async, the scores and P @ V on
// mma.sync (3xTF32: three per k-step) or SIMT fp32, the online softmax (running max and sum per
// row, quad shuffles, the accumulator rescaled by exp(m - m')), causal blocks stopping at the
// tile of their last row. tests/test_materialize.py runs the tile-attention cases before and after.

// Causal, 3xTF32, 13 queries and keys (the second key tile ragged), depth 8.
func.func @main(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 1 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 16))> (%qb)
      attn.flash %l0 rows 16 queries 13 keys 13 tile 8 depth 8 x 8 chain 1 precision "3xtf32" causal query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x2x13x8xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x2x13x8xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x2x13x8xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %0 = arith.constant 0xff800000 : f32
        %1 = arith.constant 0.353553385 : f32
        %2 = arith.cmpi ugt, %s_2, %l_1 : index
        %3 = arith.mulf %x_1, %1 : f32
        %a = arith.select %2, %0, %3 : f32
        attn.yield %a : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %scaled_dot_product_attention[%a0, %a1, %l_2, %c_3] : memref<1x2x13x8xf32>
        attn.yield
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x8xf32>
}
// CHECK-LABEL: kernel.func @k_scaled_dot_product_attention
// CHECK-SAME:    grid [2, 1, 1] block [32, 1, 1] smem 1536
// CHECK-DAG:     %[[C0:[0-9a-z_]+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:[0-9a-z_]+]] = arith.constant 2 : index
// CHECK:         %qs = kernel.smem dynamic offset 0 : memref<16x12xf32, #kernel.smem>
// CHECK:         %ks = kernel.smem dynamic offset 768 : memref<8x12xf32, #kernel.smem>
// CHECK:         %vs = kernel.smem dynamic offset 1152 : memref<8x12xf32, #kernel.smem>
// CHECK:         %tiles = arith.minsi %last, %[[C2]] : index
// CHECK:         kernel.cp_async %qs[%r, %c], %x[%[[C0]], %a1, %row, %c] bytes 16
// CHECK:         kernel.for %j = 0 to %tiles step 1 {
// CHECK:           kernel.cp_async %vs
// CHECK-NOT:       kernel.barrier
// CHECK:           mma.tf32
// CHECK-COUNT-3:   mma.sync m16n8k8
// CHECK:           kernel.shuffle_xor {{.*}}, 1 : f32
// CHECK:           kernel.shuffle_xor {{.*}}, 2 : f32
// CHECK:           %alpha0 = math.exp
// CHECK:           %alpha1 = math.exp
// CHECK:           kernel.cp_async %ks
// CHECK-COUNT-3:   mma.sync m16n8k8
// CHECK:         arith.divf
// CHECK:       func.func @main
// CHECK:         kernel.launch @k_scaled_dot_product_attention(%x, %y, %z, %scaled_dot_product_attention)
// CHECK-NOT:     tile.kernel
// CUDA:        extern "C" __global__
// CUDA-NEXT:   k_scaled_dot_product_attention(
// CUDA:          mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// -----

// Head dim 128 (PRESPLIT_DEPTH): each key and value tile is split into its TF32 parts once, in
// shared memory (16-byte chunks: the hi part in place, the lo part in ks_lo / vs_lo), after a
// barrier the MMAs load both parts instead of splitting them per warp (the query fragment is
// still split per MMA).
func.func @main(%x: memref<1x1x13x128xf32>, %y: memref<1x1x13x128xf32>, %z: memref<1x1x13x128xf32>) -> memref<1x1x13x128xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x1x13x128xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x1x13x128xf32>, memref<1x1x13x128xf32>, memref<1x1x13x128xf32>) outs(%scaled_dot_product_attention : memref<1x1x13x128xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 1 = block, %qb : 1 = block, %w : 1 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 16))> (%qb)
      attn.flash %l0 rows 16 queries 13 keys 13 tile 8 depth 128 x 128 chain 1 precision "3xtf32" causal query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x1x13x128xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x1x13x128xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x1x13x128xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %0 = arith.constant 0xff800000 : f32
        %1 = arith.constant 0.0883883461 : f32
        %2 = arith.cmpi ugt, %s_2, %l_1 : index
        %3 = arith.mulf %x_1, %1 : f32
        %a = arith.select %2, %0, %3 : f32
        attn.yield %a : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %scaled_dot_product_attention[%a0, %a1, %l_2, %c_3] : memref<1x1x13x128xf32>
        attn.yield
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x1x13x128xf32>
}
// CHECK-LABEL: kernel.func @k_scaled_dot_product_attention
// CHECK-SAME:    grid [1, 1, 1] block [32, 1, 1] smem 25344
// CHECK:         %ks = kernel.smem dynamic offset 8448 : memref<8x132xf32, #kernel.smem>
// CHECK:         %vs = kernel.smem dynamic offset 12672 : memref<8x132xf32, #kernel.smem>
// CHECK:         %ks_lo = kernel.smem dynamic offset 16896 : memref<8x132xf32, #kernel.smem>
// CHECK:         %vs_lo = kernel.smem dynamic offset 21120 : memref<8x132xf32, #kernel.smem>
// CHECK:         kernel.for %j = 0 to %tiles step 1 {
// CHECK:           kernel.cp_async %vs
// CHECK:           kernel.for %si = 0 to 8 step 1 unroll {
// CHECK:             kernel.load %ks[%r{{.*}}, %c{{.*}}] vector 4
// CHECK:             %[[HI:.*]] = mma.tf32 %{{.*}} : f32
// CHECK:             %[[REST:.*]] = arith.subf %{{.*}}, %[[HI]] : f32
// CHECK:             mma.tf32 %[[REST]] : f32
// CHECK:             kernel.store {{.*}}, %ks[%r{{.*}}, %c{{.*}}] vector 4
// CHECK:             kernel.store {{.*}}, %ks_lo[%r{{.*}}, %c{{.*}}] vector 4
// CHECK:           kernel.barrier
// CHECK:           kernel.load %ks_lo
// CHECK:           mma.sync m16n8k8
// CHECK:           kernel.cp_async %ks
// CHECK:           kernel.for %si{{.*}} = 0 to 8 step 1 unroll {
// CHECK:             kernel.load %vs[{{.*}}] vector 4
// CHECK:             kernel.store {{.*}}, %vs_lo[
// CHECK:           kernel.barrier
// CHECK:           kernel.load %vs_lo
// CHECK:           mma.sync m16n8k8

// -----

// Head dim 128, `wide 2`: each thread reads its 8 depth columns of a key-tile group (4 k-steps)
// of Q and of K's hi and lo parts with two 16-byte loads each (k-step s takes columns 8t + 2s and
// 8t + 2s + 1 as the fragment's k = t and t + 4), P @ V reads the B values of 4 column tiles with
// one 16-byte load (tile j's fragment column g is column 32 (j / 4) + 4g + j % 4), and the
// epilogue stores o[4j + 2h + e] to column 32 (j / 4) + 8t + 4e + j % 4. `qsplit`: the query
// tile is split once before the key-tile loop (hi in qs, lo in qs_lo), its fragments loaded.
// P @ V has 4 column groups here: P is split once per key tile (hi in sc, lo in sc_lo), not per group.
func.func @main(%x: memref<1x1x13x128xf32>, %y: memref<1x1x13x128xf32>, %z: memref<1x1x13x128xf32>) -> memref<1x1x13x128xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x1x13x128xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x1x13x128xf32>, memref<1x1x13x128xf32>, memref<1x1x13x128xf32>) outs(%scaled_dot_product_attention : memref<1x1x13x128xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 1 = block, %qb : 1 = block, %w : 1 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 16))> (%qb)
      attn.flash %l0 rows 16 queries 13 keys 13 tile 8 depth 128 x 128 chain 4 precision "3xtf32" wide 2 qsplit causal query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x1x13x128xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x1x13x128xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x1x13x128xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %0 = arith.constant 0xff800000 : f32
        %1 = arith.constant 0.0883883461 : f32
        %2 = arith.cmpi ugt, %s_2, %l_1 : index
        %3 = arith.mulf %x_1, %1 : f32
        %a = arith.select %2, %0, %3 : f32
        attn.yield %a : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %scaled_dot_product_attention[%a0, %a1, %l_2, %c_3] : memref<1x1x13x128xf32>
        attn.yield
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x1x13x128xf32>
}
// CHECK-LABEL: kernel.func @k_scaled_dot_product_attention
// CHECK-SAME:    smem 33792
// CHECK:         %qs_lo = kernel.smem dynamic offset 25344 : memref<16x132xf32, #kernel.smem>
// CHECK:         %sc_lo = kernel.alloca : memref<4xf32>
// CHECK:         kernel.cp_async_wait 0
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    kernel.for %si = 0 to 16 step 1 unroll {
// CHECK:           kernel.store {{.*}}, %qs_lo[%r{{.*}}, %c{{.*}}] vector 4
// CHECK:         kernel.barrier
// CHECK:         kernel.for %j = 0 to %tiles step 1 {
// CHECK:           kernel.for %kq = 0 to 1 step 1 unroll {
// CHECK:             kernel.load %qs[{{.*}}] vector 4
// CHECK-NEXT:        kernel.extract
// CHECK:             kernel.load %qs_lo[{{.*}}] vector 4
// CHECK:             kernel.load %ks[{{.*}}] vector 4
// CHECK:             kernel.load %ks_lo[{{.*}}] vector 4
// CHECK:             mma.sync m16n8k8
// CHECK:           kernel.store %{{.*}}, %sc_lo[%z{{.*}}]
// CHECK:           kernel.load %sc_lo[%kk * 4]
// CHECK:           kernel.load %vs[{{.*}}] vector 4
// CHECK:           kernel.load %vs_lo[{{.*}}] vector 4
// CHECK:           mma.sync m16n8k8
// CUDA:          float4 {{.*}} = *reinterpret_cast<const float4*>(&qs[(w * 16 + g + 8) * 132 + k32 * 32 + t * 8]);
// CUDA:          float4 {{.*}} = *reinterpret_cast<const float4*>(&ks_lo[g * 132 + k32 * 32 + t * 8]);
// CUDA:          float4 {{.*}} = *reinterpret_cast<const float4*>(&vs[(kk * 8 + t * 2 + 1) * 132 + gr * 32 + g * 4]);
// CUDA:          int [[Q:.*]] = j_2 / 4;
// CUDA-NEXT:     int [[Q32:.*]] = [[Q]] * 32;
// CUDA-NEXT:     int [[T8:.*]] = t * 8;
// CUDA-NEXT:     int [[S:.*]] = [[Q32]] + [[T8]];
// CUDA-NEXT:     int [[J4:.*]] = j_2 % 4;
// CUDA-NEXT:     int col = [[S]] + [[J4]];

// -----

// Not causal, SIMT fp32 (precision ieee), depth 6 (not a multiple of 4: element-wise fills, the
// padding columns zero): a fixed trip count, no tensor-core op.
func.func @main(%x: memref<1x2x13x6xf32>, %y: memref<1x2x13x6xf32>, %z: memref<1x2x13x6xf32>) -> memref<1x2x13x6xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x6xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x6xf32>, memref<1x2x13x6xf32>, memref<1x2x13x6xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x6xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 1 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 16))> (%qb)
      attn.flash %l0 rows 16 queries 13 keys 13 tile 8 depth 6 x 6 chain 1 precision "ieee" query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x2x13x6xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x2x13x6xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x2x13x6xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %0 = arith.constant 0xff800000 : f32
        %1 = arith.constant 0.353553385 : f32
        %2 = arith.cmpi ugt, %s_2, %l_1 : index
        %3 = arith.mulf %x_1, %1 : f32
        %a = arith.select %2, %0, %3 : f32
        attn.yield %a : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %scaled_dot_product_attention[%a0, %a1, %l_2, %c_3] : memref<1x2x13x6xf32>
        attn.yield
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x6xf32>
}
// CHECK-LABEL: kernel.func @k_scaled_dot_product_attention
// CHECK-NOT:     mma.sync
// CHECK-NOT:     kernel.cp_async
// CHECK:         kernel.for %j = 0 to 2 step 1 {
// CHECK:           %alpha0 = math.exp
// CHECK-NOT:     mma.sync
// CHECK:         kernel.launch @k_scaled_dot_product_attention

// -----

// Declined: a tile kernel without attn.flash is left to materialize.
func.func @main(%x: memref<32xf32>) -> memref<32xf32> {
  %y = memref.alloc() : memref<32xf32>
  tile.kernel @k_copy ins(%x : memref<32xf32>) outs(%y : memref<32xf32>) {
    tile.tile (%t : 32 = thread) {
      %v = loop.load %x[%t] : memref<32xf32>
      loop.store %v, %y[%t] : memref<32xf32>
    }
  }
  func.return %y : memref<32xf32>
}

// CHECK-LABEL: tile.kernel @k_copy
// CHECK-NOT:     kernel.launch

// -----

// A split over the keys (split-KV, tile-attention{splits=4} over two key tiles: two splits of one
// tile): the split is a grid axis (x here: one query block); its key tiles run from sp (its first) to min(sp + 1, the causal
// last); the output is 0 where a row has no key in the split, its log-sum-exp m + log l (-inf
// there) is stored once per row (lane t = 0 of the quad).
func.func @main(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  %scaled_dot_product_attention_part = memref.alloc() : memref<2x1x2x13x8xf32>
  %scaled_dot_product_attention_lse = memref.alloc() : memref<2x1x2x13xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention_part, %scaled_dot_product_attention_lse : memref<2x1x2x13x8xf32>, memref<2x1x2x13xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %sp : 2 = block, %qb : 1 = block, %w : 1 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 16))> (%qb)
      attn.flash %l0 rows 16 queries 13 keys 13 tile 8 depth 8 x 8 chain 1 precision "3xtf32" causal split %sp keys 8 query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x2x13x8xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x2x13x8xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x2x13x8xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %0 = arith.constant 0xff800000 : f32
        %1 = arith.constant 0.353553385 : f32
        %2 = arith.cmpi ugt, %s_2, %l_1 : index
        %3 = arith.mulf %x_1, %1 : f32
        %a = arith.select %2, %0, %3 : f32
        attn.yield %a : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %scaled_dot_product_attention_part[%sp, %a0, %a1, %l_2, %c_3] : memref<2x1x2x13x8xf32>
        attn.yield
      } lse {
      ^bb0(%x_2: f32, %l_3: index):
        loop.store %x_2, %scaled_dot_product_attention_lse[%sp, %a0, %a1, %l_3] : memref<2x1x2x13xf32>
        attn.yield
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x8xf32>
}
// CHECK-LABEL: kernel.func @k_scaled_dot_product_attention
// CHECK-SAME:    %scaled_dot_product_attention_part: memref<2x1x2x13x8xf32>, %scaled_dot_product_attention_lse: memref<2x1x2x13xf32>) grid [2, 2, 1]
// CHECK:         %sp = kernel.block_id x
// CHECK:         %tiles = arith.minsi %last,
// CHECK:         %end = arith.addi %sp,
// CHECK:         %[[END:.*]] = arith.minsi %end, %tiles : index
// CHECK:         %[[N:tiles_1]] = arith.addi %[[END]],
// CHECK:         kernel.for %j = 0 to %[[N]] step 1 {
// CHECK:         {{^    }}}
// CHECK-NEXT:    kernel.cp_async_wait 0
// CHECK:         %[[SOME:.*]] = arith.cmpf ogt, %[[L:.*]], %{{.*}} : f32
// CHECK:         arith.select %[[SOME]],
// CHECK:         kernel.store {{.*}}, %scaled_dot_product_attention_part[%sp,
// CHECK:         math.log %[[L]] : f32
// CHECK:         %lse = arith.select %[[SOME]],
// CHECK:         kernel.store %lse, %scaled_dot_product_attention_lse[%sp, %{{.*}}, %a1, %row0]
// CUDA:        void k_scaled_dot_product_attention(
// CUDA:          int sp = blockIdx.x;
// CUDA:          logf(
