// RUN: dpl-opt %s --split-input-file --pass-pipeline=materialize | filecheck %s
// materialize: tile kernels become kernel.funcs (placed before @main) launched from @main.
// Cases: pointwise over 2-D threads; a strided reduce combined across one axis of a 2-D thread
// tile (xor shuffles inside the group, the store guarded to the group's first thread); sync,
// async and tma stages; double-buffered async stages on a pipelined K loop; a 2x2 register tile
// (one K loop with 4 accumulators); split-K atomics with their zero-fill kernel.

func.func @main(%x: memref<4x64xf64>) -> memref<4x64xf64> {
  %y = memref.alloc() : memref<4x64xf64>
  tile.kernel @k_pointwise ins(%x : memref<4x64xf64>) outs(%y : memref<4x64xf64>) {
    %zero = arith.constant 0.0 : f64
    tile.tile (%a0 : 4 = block, %a1 : 2 = thread, %a2 : 32 = thread) {
      %v = loop.load %x[%a0, %a1 * 32 + %a2] : memref<4x64xf64>
      %r = arith.maximumf %v, %zero : f64
      loop.store %r, %y[%a0, %a1 * 32 + %a2] : memref<4x64xf64>
    }
  }
  func.return %y : memref<4x64xf64>
}

// CHECK-LABEL: kernel.func @k_pointwise(%x: memref<4x64xf64>, %y: memref<4x64xf64>) grid [4, 1, 1] block [64, 1, 1] smem 0 {
// CHECK:         %a0 = kernel.block_id x
// CHECK-NEXT:    %tid = kernel.thread_id x
// CHECK-NEXT:    %a1 = arith.divui %tid, %{{.*}} : index
// CHECK-NEXT:    %a2 = arith.remui %tid, %{{.*}} : index
// CHECK-NEXT:    %v = kernel.load %x[%a0, %a1 * 32 + %a2] : memref<4x64xf64>
// CHECK:         kernel.store %{{.*}}, %y[%a0, %a1 * 32 + %a2] : memref<4x64xf64>
// CHECK-LABEL: func.func @main
// CHECK:         kernel.launch @k_pointwise(%x, %y) : memref<4x64xf64>, memref<4x64xf64>

// -----

func.func @main(%x: memref<8x256xf64>) -> memref<8xf64> {
  %y = memref.alloc() : memref<8xf64>
  tile.kernel @k_rowmax ins(%x : memref<8x256xf64>) outs(%y : memref<8xf64>) {
    tile.tile (%r : 8 = thread, %l : 16 = thread) {
      %part = tile.strided_for reduce %j = %l to 256 step 16 -> f64 {
        %v = loop.load %x[%r, %j] : memref<8x256xf64>
        loop.accumulate max %v : f64
      }
      %m = tile.combine max %part across [%l] warp_shuffle : f64
      loop.store %m, %y[%r] : memref<8xf64>
    }
  }
  func.return %y : memref<8xf64>
}

// CHECK-LABEL: kernel.func @k_rowmax
// CHECK-SAME:    grid [1, 1, 1] block [128, 1, 1]
// CHECK:         %is_l0 = arith.cmpi eq, %l, %{{.*}} : index
// CHECK:         %part = kernel.for %j = %l to 256 step 16 -> f64 {
// CHECK-NEXT:      %v = kernel.load %x[%r, %j] : memref<8x256xf64>
// CHECK-NEXT:      kernel.accumulate max %v : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %m_sh8 = kernel.shuffle_xor %part, 8 : f64
// CHECK:         %m_sh1 = kernel.shuffle_xor %{{.*}}, 1 : f64
// CHECK-NEXT:    %m = arith.maximumf
// CHECK-NEXT:    kernel.if %is_l0 {
// CHECK-NEXT:      kernel.store %m, %y[%r] : memref<8xf64>
// CHECK-NEXT:    }

// -----

func.func @main(%x: memref<4x128xf32>, %w: memref<128xf32>, %z: memref<4x128xf32>) -> memref<4x128xf32> {
  %y = memref.alloc() : memref<4x128xf32>
  tile.kernel @k_stages ins(%x, %w, %z : memref<4x128xf32>, memref<128xf32>, memref<4x128xf32>) outs(%y : memref<4x128xf32>) {
    tile.tile (%t : 32 = thread, %b : 4 = block) {
      %x_smem = tile.stage %x origin [%b, 0] slab [128 at 1] : memref<4x128xf32> -> memref<128xf32, #tile.smem>
      %w_smem = tile.stage %w origin [0] slab [128 at 0] async : memref<128xf32> -> memref<128xf32, #tile.smem>
      %z_smem = tile.stage %z origin [%b, 0] slab [128 at 1] tma : memref<4x128xf32> -> memref<128xf32, #tile.smem>
      tile.strided_for free %i = %t to 128 step 32 {
        %a = loop.load %x_smem[127 - %i] : memref<128xf32, #tile.smem>
        %c = loop.load %w_smem[%i] : memref<128xf32, #tile.smem>
        %e = loop.load %z_smem[%i] : memref<128xf32, #tile.smem>
        %p = arith.mulf %a, %c : f32
        %q = arith.addf %p, %e : f32
        loop.store %q, %y[%b, %i] : memref<4x128xf32>
      }
    }
  }
  func.return %y : memref<4x128xf32>
}

// CHECK-LABEL: kernel.func @k_stages
// CHECK:         %z_smem_bar = kernel.smem : memref<1xi64, #kernel.smem>
// CHECK-NEXT:    %is_t0 = arith.cmpi eq, %t, %{{.*}} : index
// CHECK-NEXT:    kernel.if %is_t0 {
// CHECK-NEXT:      kernel.mbarrier_init %z_smem_bar[0] count 1 : memref<1xi64, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %x_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    %w_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    %z_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    %x_smem_v = kernel.load %x[%b, %t * 4] vector 4 : memref<4x128xf32>
// CHECK-NEXT:    kernel.store %x_smem_v, %x_smem[%t * 4] vector 4 : memref<128xf32, #kernel.smem>
// CHECK-NEXT:    kernel.cp_async %w_smem[%t * 4], %w[%t * 4] bytes 16 : memref<128xf32, #kernel.smem>, memref<128xf32>
// CHECK-NEXT:    kernel.if %is_t0 {
// CHECK-NEXT:      kernel.mbarrier_arrive_expect_tx %z_smem_bar[0] bytes 512 : memref<1xi64, #kernel.smem>
// CHECK-NEXT:      kernel.tma_load %z_smem[0], %z[%b, 0] bytes 512 barrier %z_smem_bar[0] : memref<128xf32, #kernel.smem>, memref<4x128xf32>, memref<1xi64, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.cp_async_commit
// CHECK-NEXT:    kernel.cp_async_wait 0
// CHECK-NEXT:    kernel.mbarrier_wait %z_smem_bar[0] phase %{{.*}} : memref<1xi64, #kernel.smem>
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    kernel.for %i = %t to 128 step 32 {
// CHECK-NEXT:      %a = kernel.load %x_smem[%i * -1 + 127] : memref<128xf32, #kernel.smem>

// -----

func.func @main(%x: memref<16x64xf32>, %w: memref<64x16xf32>) -> memref<16x16xf32> {
  %y = memref.alloc() : memref<16x16xf32>
  tile.kernel @k_matmul ins(%x, %w : memref<16x64xf32>, memref<64x16xf32>) outs(%y : memref<16x16xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 8 = thread, %c0 : 2 = cell, %c1 : 2 = cell) {
      %acc = loop.for reduce %k < 4 -> f32 {
        %x_smem = tile.stage %x origin [0, %k * 16] slab [a0 : 8 at 0, kk : 16 at 1, cell : 2 at 0] buffers 2 at %k pad [0, 1, 0] async : memref<16x64xf32> -> memref<2x8x16x2xf32, #tile.smem>
        %w_smem = tile.stage %w origin [%k * 16, 0] slab [kk : 16 at 0, a1 : 8 at 1, cell : 2 at 1] buffers 2 at %k async : memref<64x16xf32> -> memref<2x16x8x2xf32, #tile.smem>
        %part = loop.for reduce %kk < 16 -> f32 {
          %xv = loop.load %x_smem[%k mod 2, %a0, %kk, %c0] : memref<2x8x16x2xf32, #tile.smem>
          %wv = loop.load %w_smem[%k mod 2, %kk, %a1, %c1] : memref<2x16x8x2xf32, #tile.smem>
          %p = arith.mulf %xv, %wv : f32
          loop.accumulate add %p : f32
        } {tile.unroll}
        loop.accumulate add %part : f32
      } {tile.pipeline = 2 : i64}
      loop.store %acc, %y[%a0 * 2 + %c0, %a1 * 2 + %c1] : memref<16x16xf32>
    }
  }
  func.return %y : memref<16x16xf32>
}

// CHECK-LABEL: kernel.func @k_matmul
// CHECK-SAME:    grid [1, 1, 1] block [64, 1, 1] smem 0 {
// CHECK:         %x_smem = kernel.smem : memref<2x8x17x2xf32, #kernel.smem>
// CHECK-NEXT:    %w_smem = kernel.smem : memref<2x16x8x2xf32, #kernel.smem>
// CHECK:         kernel.cp_async %x_smem
// CHECK:         kernel.cp_async_commit
// CHECK-NEXT:    %acc_c00, %acc_c01, %acc_c10, %acc_c11 = kernel.for %k = 0 to 4 step 1 -> f32, f32, f32, f32 {
// CHECK-NEXT:      %k_next = arith.addi %k, %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = arith.cmpi ult, %k_next, %{{.*}} : index
// CHECK-NEXT:      kernel.if
// CHECK:           kernel.cp_async_commit
// CHECK-NEXT:      kernel.cp_async_wait 1
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      %part_c00, %part_c01, %part_c10, %part_c11 = kernel.for %kk = 0 to 16 step 1 unroll -> f32, f32, f32, f32 {
// CHECK-NEXT:        %xv_c0 = kernel.load %x_smem[%k mod 2, %a0, %kk, 0] : memref<2x8x17x2xf32, #kernel.smem>
// CHECK-NEXT:        %xv_c1 = kernel.load %x_smem[%k mod 2, %a0, %kk, 1] : memref<2x8x17x2xf32, #kernel.smem>
// CHECK-NEXT:        %wv_c0 = kernel.load %w_smem[%k mod 2, %kk, %a1, 0] : memref<2x16x8x2xf32, #kernel.smem>
// CHECK-NEXT:        %wv_c1 = kernel.load %w_smem[%k mod 2, %kk, %a1, 1] : memref<2x16x8x2xf32, #kernel.smem>
// CHECK-NEXT:        %p_c00 = arith.mulf %xv_c0, %wv_c0 : f32
// CHECK:             kernel.accumulate add %p_c00, add %p_c01, add %p_c10, add %p_c11 : f32, f32, f32, f32
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      kernel.accumulate add %part_c00, add %part_c01, add %part_c10, add %part_c11 : f32, f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.store %acc_c00, %y[%a0 * 2, %a1 * 2] : memref<16x16xf32>
// CHECK-NEXT:    kernel.store %acc_c01, %y[%a0 * 2, %a1 * 2 + 1] : memref<16x16xf32>

// -----

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>) -> memref<8x8xf64> {
  %y = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_split_k ins(%x, %w : memref<8x64xf64>, memref<64x8xf64>) outs(%y : memref<8x8xf64>) {
    tile.tile (%k : 4 = block, %a0 : 8 = thread, %a1 : 8 = thread) {
      %part = loop.for reduce %kk < 16 -> f64 {
        %xv = loop.load %x[%a0, %k * 16 + %kk] : memref<8x64xf64>
        %wv = loop.load %w[%k * 16 + %kk, %a1] : memref<64x8xf64>
        %p = arith.mulf %xv, %wv : f64
        loop.accumulate add %p : f64
      }
      tile.atomic add %part, %y[%a0, %a1] : memref<8x8xf64>
    }
  }
  func.return %y : memref<8x8xf64>
}

// CHECK-LABEL: kernel.func @k_split_k_init(%y: memref<8x8xf64>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
// CHECK:         kernel.store %{{.*}}, %y[%flat floordiv 8, %flat mod 8] : memref<8x8xf64>
// CHECK-LABEL: kernel.func @k_split_k(
// CHECK-SAME:    grid [4, 1, 1] block [64, 1, 1]
// CHECK:         kernel.atomic add %part, %y[%a0, %a1] : memref<8x8xf64>
// CHECK-LABEL: func.func @main
// CHECK:         kernel.launch @k_split_k_init(%y) : memref<8x8xf64>
// CHECK-NEXT:    kernel.launch @k_split_k(%x, %w, %y)

// -----

// A padded sync stage of f32 rows: float4 global loads, four scalar stores into 33-float rows.
func.func @main(%x: memref<16x64xf32>) -> memref<64x16xf32> {
  %y = memref.alloc() : memref<64x16xf32>
  tile.kernel @k_transpose ins(%x : memref<16x64xf32>) outs(%y : memref<64x16xf32>) {
    tile.tile (%i : 16 = thread, %j : 32 = thread, %h : 2 = block) {
      %x_smem = tile.stage %x origin [0, %h * 32] slab [16 at 0, 32 at 1] pad [0, 1] : memref<16x64xf32> -> memref<16x32xf32, #tile.smem>
      %v = loop.load %x_smem[%i, %j] : memref<16x32xf32, #tile.smem>
      loop.store %v, %y[%h * 32 + %j, %i] : memref<64x16xf32>
    }
  }
  func.return %y : memref<64x16xf32>
}

// CHECK-LABEL: kernel.func @k_transpose
// CHECK:         %x_smem = kernel.smem : memref<16x33xf32, #kernel.smem>
// CHECK-NEXT:    %{{.*}} = arith.cmpi ult, %tid, %{{.*}} : index
// CHECK-NEXT:    kernel.if
// CHECK-NEXT:      %x_smem_v = kernel.load %x[%tid floordiv 8, %h * 32 + %tid mod 8 * 4] vector 4 : memref<16x64xf32>
// CHECK-NEXT:      %x_smem_x = kernel.extract %x_smem_v[0] : vector<4xf32>
// CHECK-NEXT:      kernel.store %x_smem_x, %x_smem[%tid floordiv 8, %tid mod 8 * 4] : memref<16x33xf32, #kernel.smem>
// CHECK:           kernel.store %x_smem_w, %x_smem[%tid floordiv 8, %tid mod 8 * 4 + 3] : memref<16x33xf32, #kernel.smem>
