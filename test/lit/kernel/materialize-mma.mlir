// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(materialize-mma)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(materialize-mma)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// The shared memory a block may use is the module's #kernel.target's: 40000 bytes are too few.
// RUN: not dpl-opt %s --split-input-file --pass-pipeline='builtin.module(set-target{smem-bytes=40000},materialize-mma)' 2>&1 | filecheck %s --check-prefix=SMALL
// SMALL: materialize-mma: @k_linear: needs 50176 bytes of shared memory, more than the 40000 a block can have
// materialize-mma: a wgmma tile (tensorize-matmul's x @ W^T + bias, 64 x 32, K = 64) becomes a
// kernel.func of one warpgroup: swizzled hi/lo stages, the operands evaluated into registers a K
// step ahead (float4 loads), split and stored; per K step of 32 one accumulation chain (promote 4)
// on the %chain fragment: the small terms lo*hi, hi*lo of the 4 steps of 8, then hi*hi, the first
// overwriting; the next stage stored while it runs, then added into %acc; the epilogue per
// accumulator element. The mma_sync layout (sm_80, promote 1): raw stages, fragments loaded,
// split in registers, per K step of 8 a chain of 3 mma.sync from zero per m16n8 tile, added into
// %acc. A ragged tile (pad-matmul's {tile.masked} accesses: 67 x 45 x 152 padded to 128 x 64 x
// 160): the float4 of A (rows of 152, a multiple of 4) is wholly inside or outside, so it reads a
// clamped address (the K index to 148) and selects 0 per lane; B stored [K, N] is read per element,
// clamped and selected; the bias load is clamped and the output store runs under kernel.if.
// Declined: a tile without mma.dot is left for materialize.

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>, %b: memref<32xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k_linear ins(%b, %x, %wt : memref<32xf32>, memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 4 : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      %bias = loop.load %b[%bn * 32 + %j * 8 + %t * 2 + %e] : memref<32xf32>
      %r_2 = arith.addf %acc, %bias : f32
      loop.store %r_2, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}

// CHECK-LABEL: kernel.func @k_linear(%b: memref<32xf32>, %x: memref<64x64xf32>, %wt: memref<32x64xf32>, %out: memref<64x32xf32>) grid [1, 1, 1] block [128, 1, 1] smem 50176 {
// CHECK:         %tid = kernel.thread_id x
// CHECK:         %a_hi = kernel.smem dynamic offset 0 : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %b_hi = kernel.smem dynamic offset 16384 : memref<2x32x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %a_lo = kernel.smem dynamic offset 24576 : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %b_lo = kernel.smem dynamic offset 40960 : memref<2x32x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:    %acc = kernel.alloca : memref<16xf32>
// CHECK-NEXT:    %chain = kernel.alloca : memref<16xf32>
// CHECK:         %in4 = kernel.load %x[%c0 * 64 + %r, %c0 * 32 + %c] vector 4 : memref<64x64xf32>
// CHECK:         mma.tf32
// CHECK:         mma.fence_proxy_async
// CHECK-NEXT:    kernel.barrier
// CHECK:         kernel.for %ko = 0 to 2 step 1 {
// CHECK-NEXT:      mma.wgmma_fence
// CHECK-NEXT:      mma.wgmma m64n32k8 overwrite %chain, %a_lo[%ko mod 2, %wg * 64, 0], %b_hi[%ko mod 2, 0, 0]
// CHECK-NEXT:      mma.wgmma m64n32k8 %chain, %a_hi[%ko mod 2, %wg * 64, 0], %b_lo[%ko mod 2, 0, 0]
// CHECK-NEXT:      mma.wgmma m64n32k8 %chain, %a_lo[%ko mod 2, %wg * 64, 8], %b_hi[%ko mod 2, 0, 8]
// CHECK:           mma.wgmma m64n32k8 %chain, %a_hi[%ko mod 2, %wg * 64, 24], %b_lo[%ko mod 2, 0, 24]
// CHECK-NEXT:      mma.wgmma m64n32k8 %chain, %a_hi[%ko mod 2, %wg * 64, 0], %b_hi[%ko mod 2, 0, 0]
// CHECK:           mma.wgmma m64n32k8 %chain, %a_hi[%ko mod 2, %wg * 64, 24], %b_hi[%ko mod 2, 0, 24]
// CHECK-NEXT:      mma.wgmma_commit
// CHECK:           kernel.if
// CHECK:             kernel.store %{{.*}}, %a_hi[%next,
// CHECK:             mma.fence_proxy_async
// CHECK-NEXT:      }
// CHECK-NEXT:      mma.wgmma_wait 0
// CHECK-NEXT:      kernel.for %{{.*}} = 0 to 16 step 1 unroll {
// CHECK-NEXT:        %[[A:.*]] = kernel.load %acc[%[[J:.*]]] : memref<16xf32>
// CHECK-NEXT:        %[[C:.*]] = kernel.load %chain[%[[J]]] : memref<16xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[C]] : f32
// CHECK-NEXT:        kernel.store %[[S]], %acc[%[[J]]] : memref<16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:    }
// CHECK:         %d = kernel.load %acc[0] : memref<16xf32>
// CHECK:         %bias = kernel.load %b[%c0 * 32 + %c0 * 8 + %t * 2 + %c0] : memref<32xf32>
// CHECK:         %r_{{[0-9]+}} = arith.addf %d, %bias : f32
// CHECK:         kernel.store %r_{{[0-9]+}}, %out[%c0 * 64 + %wg * 64 + %w * 16 + %c0 * 8 + %g, %c0 * 32 + %c0 * 8 + %t * 2 + %c0] : memref<64x32xf32>
// CHECK:       func.func @main
// CHECK:         kernel.launch @k_linear(%b, %x, %wt, %out)

// CUDA:      __launch_bounds__(128) void k_linear(const float* __restrict__ b, const float* __restrict__ x, const float* __restrict__ wt, float* __restrict__ out) {
// CUDA-NEXT:     extern __shared__ __align__(1024) unsigned char dpl_dyn_smem_raw[];
// CUDA-NEXT:     unsigned char* dpl_dyn_smem = dpl_dyn_smem_raw + ((1024u - static_cast<unsigned int>(__cvta_generic_to_shared(dpl_dyn_smem_raw) & 1023u)) & 1023u);
// CUDA:          dpl_wgmma_m64n32k8_zero(chain, dpl_sw128_desc(a_lo + ko % 2 * 2048 + wg * 64 * 32), dpl_sw128_desc(b_hi + ko % 2 * 1024));
// CUDA-NEXT:     dpl_wgmma_m64n32k8(chain, dpl_sw128_desc(a_hi + ko % 2 * 2048 + wg * 64 * 32), dpl_sw128_desc(b_lo + ko % 2 * 1024));
// CUDA:          asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
// CUDA-NEXT:     dpl_fence_regs(chain);

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>, %b: memref<32xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k_linear_sync ins(%b, %x, %wt : memref<32xf32>, memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wm : 1 = thread, %wn : 1 = thread, %g : 8 = thread, %t : 4 = thread, %mi : 4 = cell, %ni : 4 = cell, %h : 2 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wm * 64 + %mi * 16 + %h * 8 + %g], %b_st[%wn * 32 + %ni * 8 + %t * 2 + %e] precision "3xtf32" layout mma_sync promote 1 : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      %bias = loop.load %b[%bn * 32 + %wn * 32 + %ni * 8 + %t * 2 + %e] : memref<32xf32>
      %r_2 = arith.addf %acc, %bias : f32
      loop.store %r_2, %out[%bm * 64 + %wm * 64 + %mi * 16 + %h * 8 + %g, %bn * 32 + %wn * 32 + %ni * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}

// CHECK-LABEL: kernel.func @k_linear_sync({{.*}}) grid [1, 1, 1] block [32, 1, 1] smem 25600 {
// CHECK:         %a_st = kernel.smem dynamic offset 0 : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK:         %acc = kernel.alloca : memref<64xf32>
// CHECK-NOT:     mma.fence_proxy_async
// CHECK:         kernel.for %ko = 0 to 2 step 1 {
// CHECK-NEXT:      %[[X:.*]] = kernel.load %a_st[%ko mod 2, %wm * 64 + %g, %t]
// CHECK-NEXT:      %[[HI:.*]] = mma.tf32 %[[X]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.subf %[[X]], %[[HI]] : f32
// CHECK-NEXT:      %[[LO:.*]] = mma.tf32 %[[R]] : f32
// CHECK:           %[[P0:.*]], %[[P1:.*]], %[[P2:.*]], %[[P3:.*]] = mma.sync m16n8k8 a(%[[LO]], {{.*}}) b({{.*}}) c(%[[Z:.*]], %[[Z]], %[[Z]], %[[Z]]) : f32
// CHECK-NEXT:      %[[Q0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = mma.sync m16n8k8 a(%[[HI]], {{.*}}) b({{.*}}) c(%[[P0]], %[[P1]], %[[P2]], %[[P3]]) : f32
// CHECK:           %[[OLD:.*]] = kernel.load %acc[0] : memref<64xf32>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:      kernel.store %[[SUM]], %acc[0] : memref<64xf32>
// CHECK-NOT:     mma.wgmma
// CHECK:       func.func @main

// -----

func.func @main(%x: memref<67x152xf32>, %y: memref<152x45xf32>, %z: memref<45xf32>) -> memref<67x45xf32> {
  %add = memref.alloc() : memref<67x45xf32>
  tile.kernel @k_ragged ins(%z, %x, %y : memref<45xf32>, memref<67x152xf32>, memref<152x45xf32>) outs(%add : memref<67x45xf32>) {
    tile.tile (%bm : 2 = block, %bn : 2 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 5 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] {tile.masked = [0 : i64, 1 : i64]} : memref<67x152xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %y[%ko * 32 + %c_1, %bn * 32 + %r_1] {tile.masked = [0 : i64, 1 : i64]} : memref<152x45xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 4 : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      %bias = loop.load %z[%bn * 32 + %j * 8 + %t * 2 + %e] {tile.masked = [0 : i64]} : memref<45xf32>
      %o = arith.addf %acc, %bias : f32
      loop.store %o, %add[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] {tile.masked = [0 : i64, 1 : i64]} : memref<67x45xf32>
    }
  }
  func.return %add : memref<67x45xf32>
}

// CHECK-LABEL: kernel.func @k_ragged(
// CHECK:         %[[RA:.*]] = arith.cmpi ult, %{{.*}}, %c67 : index
// CHECK:         %[[KA:.*]] = arith.cmpi ult, %{{.*}}, %c152 : index
// CHECK-NEXT:    %[[INA:.*]] = arith.andi %[[RA]], %[[KA]] : i1
// CHECK:         %[[CR:.*]] = arith.minsi %{{.*}}, %c66 : index
// CHECK:         %[[CK:.*]] = arith.minsi %{{.*}}, %c148 : index
// CHECK-NEXT:    %in4 = kernel.load %x[%[[CR]], %[[CK]]] vector 4 if %[[INA]] : memref<67x152xf32>
// CHECK-NEXT:    %in = kernel.extract %in4[0] : vector<4xf32>
// CHECK:         %[[KB:.*]] = arith.cmpi ult, %{{.*}}, %c152 : index
// CHECK:         %[[NB:.*]] = arith.cmpi ult, %{{.*}}, %c45 : index
// CHECK-NEXT:    %[[INB:.*]] = arith.andi %[[KB]], %[[NB]] : i1
// CHECK:         %[[CKB:.*]] = arith.minsi %{{.*}}, %c151 : index
// CHECK:         %[[CNB:.*]] = arith.minsi %{{.*}}, %c44 : index
// CHECK-NEXT:    %{{.*}} = kernel.load %y[%[[CKB]], %[[CNB]]] if %[[INB]] : memref<152x45xf32>
// CHECK:         kernel.for %ko = 0 to 5 step 1 {
// CHECK:         %d = kernel.load %acc[0] : memref<16xf32>
// CHECK:         %[[INZ:.*]] = arith.cmpi ult, %{{.*}}, %c45 : index
// CHECK:         %[[CZ:.*]] = arith.minsi %{{.*}}, %c44 : index
// CHECK-NEXT:    %bias = kernel.load %z[%[[CZ]]] if %[[INZ]] : memref<45xf32>
// CHECK:         %[[INO:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:    kernel.if %[[INO]] {
// CHECK-NEXT:      kernel.store %{{.*}}, %add[{{.*}}] : memref<67x45xf32>
// CHECK-NEXT:    }

// -----

func.func @main(%x: memref<67x150xf32>, %y: memref<150x45xf32>) -> memref<67x45xf32> {
  %out = memref.alloc() : memref<67x45xf32>
  tile.kernel @k_krun ins(%x, %y : memref<67x150xf32>, memref<150x45xf32>) outs(%out : memref<67x45xf32>) {
    tile.tile (%bm : 2 = block, %bn : 2 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 5 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] {tile.masked = [0 : i64, 1 : i64]} : memref<67x150xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %y[%ko * 32 + %c_1, %bn * 32 + %r_1] {tile.masked = [0 : i64, 1 : i64]} : memref<150x45xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 4 : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] {tile.masked = [0 : i64, 1 : i64]} : memref<67x45xf32>
    }
  }
  func.return %out : memref<67x45xf32>
}

// A's rows of 150 floats (K-contiguous, not float4-aligned) are read "k-run": a warp takes 32
// consecutive K of one row (K offset tid mod 32, row tid / 32 + 16 a_i + 4 l), not 32 rows, and
// stores each float to its own row. B runs along N: a warp takes 32 consecutive rows (q mod 32).
// CHECK-LABEL: kernel.func @k_krun(
// CHECK:         kernel.for %a_i = 0 to 4 step 1 unroll {
// CHECK-NEXT:      %c = arith.remui %tid, %c32 : index
// CHECK-NEXT:      %{{.*}} = arith.divui %tid, %c32 : index
// CHECK-NEXT:      %{{.*}} = arith.muli %a_i, %c16 : index
// CHECK-NEXT:      %r = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:           %in = kernel.load %x[%{{.*}}, %{{.*}}] if %inside : memref<67x150xf32>
// CHECK:           %in_3 = kernel.load %x[%{{.*}}, %{{.*}}] if %inside_3 : memref<67x150xf32>
// CHECK:         kernel.for %b_i = 0 to 2 step 1 unroll {
// CHECK:           %q = arith.addi %tid, %{{.*}} : index
// CHECK-NEXT:      %r_4 = arith.remui %q, %c32 : index
// CHECK:         kernel.for %a_j = 0 to 4 step 1 unroll {
// CHECK:           kernel.store %{{.*}}, %a_hi[%c0, %tid floordiv 32 + %a_j * 16, %tid mod 32] : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CHECK-NEXT:      kernel.store %{{.*}}, %a_hi[%c0, %tid floordiv 32 + %a_j * 16 + 4, %tid mod 32] : memref<2x64x32xf32, #mma.swizzle<128>, #kernel.smem>
// CUDA-LABEL:  void k_krun(
// CUDA:          a_hi[dpl_swz128(0 * 2048 + tid / 32 * 32 + tid % 32) + a_j * 512] =

// -----

func.func @main(%x: memref<64xf32>) -> memref<64xf32> {
  %y = memref.alloc() : memref<64xf32>
  tile.kernel @k_relu ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
    %zero = arith.constant 0.0 : f32
    tile.tile (%a0 : 64 = thread) {
      %v = loop.load %x[%a0] : memref<64xf32>
      %r = arith.maximumf %v, %zero : f32
      loop.store %r, %y[%a0] : memref<64xf32>
    }
  }
  func.return %y : memref<64xf32>
}

// CHECK-LABEL: tile.kernel @k_relu
// CHECK-NOT:   kernel.func
