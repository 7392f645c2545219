// RUN: dpl-opt %s --split-input-file --pass-pipeline='materialize-attention-wgmma' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='materialize-attention-wgmma' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// The shared memory a block may use is the module's #kernel.target's: 30000 bytes are too few.
// RUN: not dpl-opt %s --split-input-file --pass-pipeline='set-target{smem-bytes=30000},materialize-attention-wgmma' 2>&1 | filecheck %s --check-prefix=SMALL
// SMALL: materialize-attention: @k_scaled_dot_product_attention: needs 39936 bytes of shared memory, more than 30000
// materialize-attention-wgmma: an attn.flash tile marked `wgmma` becomes one flash-attention
// kernel.func on warpgroup MMA: the query and key tiles in 128-byte-swizzled shared memory, split
// into their TF32 parts once (hi in place, lo beside it), the value tile transposed on its way in
// (keys permuted within 8, so that the scores' accumulators are P's A fragment), the scores on
// mma.wgmma (two chains, the small terms first), P @ V on mma.wgmma_rs (A from registers) into a
// fresh chain added into o, and the online softmax in exp2 between them.
// tests/test_attention.py runs such kernels on the executor against the loop level.

// Causal, 3xTF32, 13 queries and keys (one ragged key tile of 64), depth 8 (padded to 32).
func.func @main(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 64))> (%qb)
      attn.flash %l0 rows 64 queries 13 keys 13 tile 64 depth 8 x 8 chain 2 precision "3xtf32" wgmma causal query {
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
// CHECK-SAME:    grid [2, 1, 1] block [128, 1, 1] smem 39936
// CHECK:         %[[C:.*]] = arith.constant 0.510069728 : f32
// CHECK:         %[[NC:.*]] = arith.constant -0.510069728 : f32
// CHECK:         %qs = kernel.smem dynamic offset 0 : memref<1x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %qs_lo = kernel.smem dynamic offset 8192 : memref<1x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %ks = kernel.smem dynamic offset 16384 : memref<1x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %ks_lo = kernel.smem dynamic offset 24576 : memref<1x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %vt = kernel.smem dynamic offset 32768 : memref<2x8x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %vt_lo = kernel.smem dynamic offset 34816 : memref<2x8x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %vs = kernel.smem dynamic offset 36864 : memref<64x8xf32, #kernel.smem>
// CHECK:         %tiles = arith.minsi %last, %{{.*}} : index
// CHECK:         kernel.cp_async %qs[%c floordiv 32, %r, %c mod 32], %x[%{{.*}}, %a1, %row, %c] bytes 16
// CHECK:         kernel.cp_async %ks[
// CHECK:         kernel.cp_async %vs[
// CHECK:         kernel.cp_async_wait 0
// CHECK-NEXT:    kernel.barrier
// CHECK:         kernel.store %{{.*}}, %qs_lo[(%tid floordiv 8 + %si * 16) floordiv 64, (%tid floordiv 8 + %si * 16) mod 64, %tid mod 8 * 4] vector 4
// CHECK:         kernel.store %{{.*}}, %ks_lo[
// CHECK:         mma.fence_proxy_async
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    kernel.for %j = 0 to %tiles step 1 {
// CHECK:           mma.wgmma_fence
// CHECK-NEXT:      mma.wgmma m64n64k8 overwrite %sc, %qs_lo[0, 0, 0], %ks[0, 0, 0]
// CHECK-NEXT:      mma.wgmma m64n64k8 %sc, %qs[0, 0, 0], %ks_lo[0, 0, 0]
// CHECK-NEXT:      mma.wgmma m64n64k8 %sc, %qs_lo[0, 0, 8], %ks[0, 0, 8]
// CHECK-NEXT:      mma.wgmma m64n64k8 %sc, %qs[0, 0, 8], %ks_lo[0, 0, 8]
// CHECK-NEXT:      mma.wgmma m64n64k8 %sc, %qs[0, 0, 0], %ks[0, 0, 0]
// CHECK-NEXT:      mma.wgmma m64n64k8 %sc, %qs[0, 0, 8], %ks[0, 0, 8]
// CHECK-NEXT:      mma.wgmma m64n64k8 overwrite %sc_chain, %qs_lo[0, 0, 16], %ks[0, 0, 16]
// CHECK:           mma.wgmma m64n64k8 %sc_chain, %qs[0, 0, 24], %ks[0, 0, 24]
// CHECK-NEXT:      mma.wgmma_commit
// CHECK-NEXT:      kernel.cp_async_wait 0
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      kernel.for %ti = 0 to 1 step 1 unroll {
// CHECK:             kernel.store %{{.*}}, %vt[%u * 4 floordiv 32, %c_3, %u * 4 mod 32] vector 4
// The value tile j + 1 is fetched while the scores run, once every thread has transposed tile j.
// CHECK:           mma.fence_proxy_async
// CHECK-NEXT:      kernel.if %more {
// CHECK-NEXT:        kernel.barrier
// CHECK:             kernel.cp_async %vs[
// CHECK:             kernel.cp_async_commit
// CHECK:           mma.wgmma_wait 0
// CHECK:           kernel.barrier
// CHECK-NEXT:      kernel.if %more {
// CHECK:             kernel.cp_async %ks[
// CHECK:             kernel.cp_async_commit
// The scale 0.353553385 is left to the softmax (times log2 e: 0.510069728): a tile below the
// diagonal keeps sc as it is, one on it only masks.
// CHECK:           %s_last = arith.addi %s0, %{{.*}} : index
// CHECK:           %[[ABOVE:.*]] = arith.xori
// CHECK-NEXT:      kernel.if %[[ABOVE]] {
// CHECK-NOT:         arith.mulf
// CHECK:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:           %nm2 = arith.mulf %m_use, %[[NC]] : f32
// CHECK:           %alpha0 = math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NEXT:      %{{.*}} = math.fma %{{.*}}, %[[C]], %nm2 : f32
// CHECK:           %alpha1 = math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK:           mma.wgmma_fence
// CHECK:           mma.wgmma_rs m64n8k8 overwrite %pv, a(%{{.*}}), %vt[0, 0, 0]
// CHECK-NEXT:      mma.wgmma_rs m64n8k8 %pv, a(%{{.*}}), %vt_lo[0, 0, 0]
// CHECK:           mma.wgmma_rs m64n8k8 %pv, a(%{{.*}}), %vt_lo[1, 0, 24]
// CHECK-NEXT:      mma.wgmma_rs m64n8k8 %pv, a(%{{.*}}), %vt[0, 0, 0]
// CHECK:           mma.wgmma_rs m64n8k8 %pv, a(%{{.*}}), %vt[1, 0, 24]
// CHECK-NEXT:      mma.wgmma_commit
// CHECK-NEXT:      kernel.if %more {
// CHECK-NEXT:        kernel.cp_async_wait 0
// CHECK-NEXT:        kernel.barrier
// CHECK:             mma.fence_proxy_async
// CHECK:           mma.wgmma_wait 0
// CHECK:           kernel.barrier
// CHECK:         arith.divf
// CHECK:       func.func @main
// CHECK:         kernel.launch @k_scaled_dot_product_attention(%x, %y, %z, %scaled_dot_product_attention)
// CHECK-NOT:     tile.kernel
// CUDA:        __device__ __forceinline__ float dpl_ex2(float x) {
// CUDA:        void dpl_wgmma_rs_m64n8k8_zero(float (&d)[4], float a0, float a1, float a2, float a3, unsigned long long db) {
// CUDA:          "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
// CUDA-NEXT:     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1;\n}\n"
// CUDA-NEXT:     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
// CUDA:        k_scaled_dot_product_attention(
// CUDA:          &qs_lo[dpl_swz128(tid / 8 * 32 + tid % 8 * 4) + si * 512]
// CUDA:          dpl_fence_regs(sc);
// CUDA-NEXT:     dpl_fence_regs(sc_chain);
// CUDA-NEXT:     asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// CUDA-NEXT:     dpl_wgmma_m64n64k8_zero(sc, dpl_sw128_desc(qs_lo + 0), dpl_sw128_desc(ks + 0));
// CUDA:          asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
// CUDA-NEXT:     dpl_fence_regs(sc_chain);
// CUDA-NEXT:     dpl_fence_regs(sc);
// CUDA:          dpl_ex2(
// The P @ V chain starts by overwriting pv: its fence does not keep pv's old values live.
// CUDA:          asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
// CUDA-NOT:      dpl_fence_regs
// CUDA:          dpl_wgmma_rs_m64n8k8_zero(pv, {{.*}}, dpl_sw128_desc(vt + 0));
// CUDA:          asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
// CUDA-NEXT:     dpl_fence_regs(pv);

// -----

// A scale that is not a positive constant stays in the score region: sc = score * -0.35 before
// the softmax, whose multiplier is log2 e.

func.func @negative_scale(%x: memref<1x1x13x8xf32>, %y: memref<1x1x13x8xf32>, %z: memref<1x1x13x8xf32>) -> memref<1x1x13x8xf32> {
  %out = memref.alloc() : memref<1x1x13x8xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x1x13x8xf32>, memref<1x1x13x8xf32>, memref<1x1x13x8xf32>) outs(%out : memref<1x1x13x8xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 1 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 64))> (%qb)
      attn.flash %l0 rows 64 queries 13 keys 13 tile 64 depth 8 x 8 chain 1 precision "3xtf32" wgmma query {
      ^bb0(%l: index, %c: index):
        %in = loop.load %x[%a0, %a1, %l, %c] : memref<1x1x13x8xf32>
        attn.yield %in : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %in_1 = loop.load %y[%a0, %a1, %s, %c_1] : memref<1x1x13x8xf32>
        attn.yield %in_1 : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %in_2 = loop.load %z[%a0, %a1, %s_1, %c_2] : memref<1x1x13x8xf32>
        attn.yield %in_2 : f32
      } score {
      ^bb0(%x_1: f32, %l_1: index, %s_2: index):
        %1 = arith.constant -0.353553385 : f32
        %3 = arith.mulf %x_1, %1 : f32
        attn.yield %3 : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%a0, %a1, %l_2, %c_3] : memref<1x1x13x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<1x1x13x8xf32>
}
// CHECK-LABEL: kernel.func @k_scaled_dot_product_attention
// CHECK:         %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:         kernel.for %j = 0 to 1 step 1 {
// CHECK:             %[[SC:.*]] = kernel.load %sc[%n * 4] : memref<32xf32>
// CHECK:             %[[NEG:.*]] = arith.constant -0.353553385 : f32
// CHECK-NEXT:        arith.mulf %[[SC]], %[[NEG]] : f32
// CHECK:           %nm2 = arith.mulf %m_use, %{{.*}} : f32

// -----

// Not marked wgmma: left to materialize-attention (the attn.flash prints and parses back).

func.func @declined(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  tile.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = affine.apply affine_map<(d0) -> ((d0 * 64))> (%qb)
      attn.flash %l0 rows 64 queries 13 keys 13 tile 32 depth 8 x 8 chain 1 precision "3xtf32" causal query {
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
// CHECK-LABEL: func.func @declined
// CHECK:         tile.kernel @k_scaled_dot_product_attention
// CHECK:         attn.flash %l0 rows 64 queries 13 keys 13 tile 32 depth 8 x 8 chain 1 precision "3xtf32" causal query {
// CHECK-NOT:   kernel.func
