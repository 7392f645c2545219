// RUN: dpl-opt %s | filecheck %s
// RUN: dpl-opt %s | dpl-opt | filecheck %s
// RUN: dpl-opt %s --print-op-generic | dpl-opt | filecheck %s
// The seeds' tile-level kernels survive parse -> print -> parse: RMSNorm after stage-inputs,
// relu(matmul(x + bias, w)) fully scheduled, and the smaller ops (tma, swizzle, atomic, pipeline).

func.func @rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>, %out: memref<1x32x2048xf32>) {
  tile.kernel @k_rms_norm_reduce ins(%x, %p_weight : memref<1x32x2048xf32>, memref<2048xf32>) outs(%out : memref<1x32x2048xf32>) {
    %v0 = arith.constant 4.8828125e-04 : f32
    %eps = arith.constant 1.0e-06 : f32
    tile.tile (%a0 : 256 = thread, %a1 : 32 = block) {
      %x_smem = tile.stage %x origin [0, %a1, 0] slab [a2 : 2048 at 2] : memref<1x32x2048xf32> -> memref<2048xf32, #tile.smem>
      %part = tile.strided_for reduce %a2 = %a0 to 2048 step 256 -> f32 {
        %in2 = loop.load %x_smem[%a2] : memref<2048xf32, #tile.smem>
        %v1 = arith.mulf %in2, %in2 : f32
        loop.accumulate add %v1 : f32
      }
      %acc0 = tile.combine add %part across [%a0] warp_shuffle : f32
      %v2 = arith.mulf %acc0, %v0 : f32
      %v3 = arith.addf %v2, %eps : f32
      %v4 = math.rsqrt %v3 : f32
      tile.strided_for free %a3 = %a0 to 2048 step 256 {
        %in3 = loop.load %x_smem[%a3] : memref<2048xf32, #tile.smem>
        %in4 = loop.load %p_weight[%a3] : memref<2048xf32>
        %v5 = arith.mulf %in3, %v4 : f32
        %v6 = arith.mulf %v5, %in4 : f32
        loop.store %v6, %out[0, %a1, %a3] : memref<1x32x2048xf32>
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @rms_norm
// CHECK:       tile.kernel @k_rms_norm_reduce ins(%x, %p_weight : memref<1x32x2048xf32>, memref<2048xf32>) outs(%out : memref<1x32x2048xf32>) {
// CHECK:         tile.tile (%a0 : 256 = thread, %a1 : 32 = block) {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [0, %a1, 0] slab [a2 : 2048 at 2] : memref<1x32x2048xf32> -> memref<2048xf32, #tile.smem>
// CHECK-NEXT:      %part = tile.strided_for reduce %a2 = %a0 to 2048 step 256 -> f32 {
// CHECK-NEXT:        %in2 = loop.load %x_smem[%a2] : memref<2048xf32, #tile.smem>
// CHECK-NEXT:        %v1 = arith.mulf %in2, %in2 : f32
// CHECK-NEXT:        loop.accumulate add %v1 : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %acc0 = tile.combine add %part across [%a0] warp_shuffle : f32
// CHECK:           tile.strided_for free %a3 = %a0 to 2048 step 256 {
// CHECK-NEXT:        %in3 = loop.load %x_smem[%a3] : memref<2048xf32, #tile.smem>
// CHECK-NEXT:        %in4 = loop.load %p_weight[%a3] : memref<2048xf32>
// CHECK:             loop.store %v6, %out[0, %a1, %a3] : memref<1x32x2048xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// relu(matmul(x + bias, w)), 16x64x16: 8x8 threads, each owning a 2x2 register tile (cell axes),
// K split into 2 tiles of 32 with double-buffered stages; x padded and both x and w copied by
// cp.async; the K-tile loop is pipelined and the inner K loop unrolled.
func.func @relu_matmul(%x: memref<16x64xf32>, %bias: memref<64xf32>, %w: memref<64x16xf32>, %relu: memref<16x16xf32>) {
  tile.kernel @k_relu_reduce ins(%bias, %x, %w : memref<64xf32>, memref<16x64xf32>, memref<64x16xf32>) outs(%relu : memref<16x16xf32>) {
    %zero = arith.constant 0.0 : f32
    tile.tile (%a0 : 8 = thread, %a1 : 8 = thread, %c0 : 2 = cell, %c1 : 2 = cell) {
      %acc = loop.for reduce %a2 < 2 -> f32 {
        %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 : memref<64xf32> -> memref<2x32xf32, #tile.smem>
        %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 8 at 0, a3 : 32 at 1, cell : 2 at 0] buffers 2 at %a2 pad [0, 1, 0] async : memref<16x64xf32> -> memref<2x8x32x2xf32, #tile.smem>
        %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 8 at 1, cell : 2 at 1] buffers 2 at %a2 async : memref<64x16xf32> -> memref<2x32x8x2xf32, #tile.smem>
        %part = loop.for reduce %a3 < 32 -> f32 {
          %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf32, #tile.smem>
          %in1 = loop.load %x_smem[%a2 mod 2, %a0, %a3, %c0] : memref<2x8x32x2xf32, #tile.smem>
          %in3 = loop.load %w_smem[%a2 mod 2, %a3, %a1, %c1] : memref<2x32x8x2xf32, #tile.smem>
          %v0 = arith.addf %in1, %in0 : f32
          %v1 = arith.mulf %v0, %in3 : f32
          loop.accumulate add %v1 : f32
        } {tile.unroll}
        loop.accumulate add %part : f32
      } {tile.pipeline = 2 : i64}
      %v2 = arith.maximumf %acc, %zero : f32
      loop.store %v2, %relu[%a0 * 2 + %c0, %a1 * 2 + %c1] : memref<16x16xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @relu_matmul
// CHECK:       tile.tile (%a0 : 8 = thread, %a1 : 8 = thread, %c0 : 2 = cell, %c1 : 2 = cell) {
// CHECK-NEXT:    %acc = loop.for reduce %a2 < 2 -> f32 {
// CHECK-NEXT:      %bias_smem = tile.stage %bias origin [%a2 * 32] slab [a3 : 32 at 0] buffers 2 at %a2 : memref<64xf32> -> memref<2x32xf32, #tile.smem>
// CHECK-NEXT:      %x_smem = tile.stage %x origin [0, %a2 * 32] slab [a0 : 8 at 0, a3 : 32 at 1, cell : 2 at 0] buffers 2 at %a2 pad [0, 1, 0] async : memref<16x64xf32> -> memref<2x8x32x2xf32, #tile.smem>
// CHECK-NEXT:      %w_smem = tile.stage %w origin [%a2 * 32, 0] slab [a3 : 32 at 0, a1 : 8 at 1, cell : 2 at 1] buffers 2 at %a2 async : memref<64x16xf32> -> memref<2x32x8x2xf32, #tile.smem>
// CHECK-NEXT:      %part = loop.for reduce %a3 < 32 -> f32 {
// CHECK-NEXT:        %in0 = loop.load %bias_smem[%a2 mod 2, %a3] : memref<2x32xf32, #tile.smem>
// CHECK-NEXT:        %in1 = loop.load %x_smem[%a2 mod 2, %a0, %a3, %c0] : memref<2x8x32x2xf32, #tile.smem>
// CHECK-NEXT:        %in3 = loop.load %w_smem[%a2 mod 2, %a3, %a1, %c1] : memref<2x32x8x2xf32, #tile.smem>
// CHECK:             loop.accumulate add %v1 : f32
// CHECK-NEXT:      } {tile.unroll}
// CHECK-NEXT:      loop.accumulate add %part : f32
// CHECK-NEXT:    } {tile.pipeline = 2 : i64}
// CHECK-NEXT:    %v2 = arith.maximumf %acc, %zero : f32
// CHECK-NEXT:    loop.store %v2, %relu[%a0 * 2 + %c0, %a1 * 2 + %c1] : memref<16x16xf32>

// Split-K: the K tile is a block axis and partials are folded into the output atomically; the
// x slab is copied by TMA with a 128-byte swizzle.
func.func @split_k(%x: memref<64x256xf32>, %w: memref<256x64xf32>, %y: memref<64x64xf32>) {
  tile.kernel @k_split_k ins(%x, %w : memref<64x256xf32>, memref<256x64xf32>) outs(%y : memref<64x64xf32>) {
    tile.tile (%a0 : 16 = thread, %a1 : 16 = thread, %k : 4 = block, %b0 : 4 = block, %b1 : 4 = block) {
      %x_smem = tile.stage %x origin [%b0 * 16, %k * 64] slab [m : 16 at 0, kk : 64 at 1] tma swizzle 128 : memref<64x256xf32> -> memref<16x64xf32, #tile.smem>
      %part = loop.for reduce %kk < 64 -> f32 {
        %xv = loop.load %x_smem[%a0, %kk] : memref<16x64xf32, #tile.smem>
        %wv = loop.load %w[%k * 64 + %kk, %b1 * 16 + %a1] : memref<256x64xf32>
        %p = arith.mulf %xv, %wv : f32
        loop.accumulate add %p : f32
      } {tile.unroll}
      tile.atomic add %part, %y[%b0 * 16 + %a0, %b1 * 16 + %a1] : memref<64x64xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @split_k
// CHECK:       %x_smem = tile.stage %x origin [%b0 * 16, %k * 64] slab [m : 16 at 0, kk : 64 at 1] tma swizzle 128 : memref<64x256xf32> -> memref<16x64xf32, #tile.smem>
// CHECK:       } {tile.unroll}
// CHECK-NEXT:  tile.atomic add %part, %y[%b0 * 16 + %a0, %b1 * 16 + %a1] : memref<64x64xf32>

// A row max over a 2-D thread block: each (a0, a1) thread strides over a 32-column chunk, then a
// tree combine across both thread axes (unnamed slab dims, unrolled strided loop).
func.func @block_max(%x: memref<8x1024xf32>, %y: memref<8xf32>) {
  tile.kernel @k_block_max ins(%x : memref<8x1024xf32>) outs(%y : memref<8xf32>) {
    tile.tile (%a0 : 4 = thread, %a1 : 8 = thread, %r : 8 = block) {
      %x_smem = tile.stage %x origin [%r, 0] slab [1024 at 1] : memref<8x1024xf32> -> memref<1024xf32, #tile.smem>
      %part = tile.strided_for reduce %j = %a1 to 256 step 8 -> f32 {
        %v = loop.load %x_smem[%a0 * 256 + %j] : memref<1024xf32, #tile.smem>
        loop.accumulate max %v : f32
      } {tile.unroll}
      %m = tile.combine max %part across [%a0, %a1] tree : f32
      loop.store %m, %y[%r] : memref<8xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @block_max
// CHECK:       %x_smem = tile.stage %x origin [%r, 0] slab [1024 at 1] : memref<8x1024xf32> -> memref<1024xf32, #tile.smem>
// CHECK-NEXT:  %part = tile.strided_for reduce %j = %a1 to 256 step 8 -> f32 {
// CHECK:       } {tile.unroll}
// CHECK-NEXT:  %m = tile.combine max %part across [%a0, %a1] tree : f32

// Mixed tile/kernel IR, between materialize's outline-kernels and lower-axes: a tile bound to
// the block/thread indices of its kernel.func, and a combine of two partials at once (the
// per-cell copies unroll-cells makes).
kernel.func @k_bound(%x: memref<4x64xf32>, %y: memref<4x2xf32>) grid [4, 1, 1] block [32, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ba : 4 = block at %b, %ta : 32 = thread at %t) thread_id %t {
    %v0 = loop.load %x[%ba, %ta] : memref<4x64xf32>
    %v1 = loop.load %x[%ba, %ta + 32] : memref<4x64xf32>
    %s0, %s1 = tile.combine add %v0, %v1 across [%ta] warp_shuffle : f32, f32
    loop.store %s0, %y[%ba, 0] : memref<4x2xf32>
    loop.store %s1, %y[%ba, 1] : memref<4x2xf32>
  }
}

// CHECK-LABEL: kernel.func @k_bound
// CHECK:       tile.tile (%ba : 4 = block at %b, %ta : 32 = thread at %t) thread_id %t {
// CHECK:       %s0, %s1 = tile.combine add %v0, %v1 across [%ta] warp_shuffle : f32, f32

// A ragged matmul row (pad-matmul): a stage, a load and a store past a 1000 x 1000 buffer,
// masked along the dims they may leave (the stage's slab wider than its source along dim 0).
func.func @masked(%x: memref<1000x1000xf32>, %w: memref<1000xf32>, %y: memref<1000x1000xf32>) {
  tile.kernel @k_masked ins(%x, %w : memref<1000x1000xf32>, memref<1000xf32>) outs(%y : memref<1000x1000xf32>) {
    tile.tile (%a0 : 256 = thread, %b : 16 = block) {
      %x_smem = tile.stage %x origin [%b * 64, 0] slab [1024 at 0] async {tile.masked = [0 : i64]} : memref<1000x1000xf32> -> memref<1024xf32, #tile.smem>
      %v = loop.load %x_smem[%a0] : memref<1024xf32, #tile.smem>
      %s = loop.load %w[%b * 64 + %a0] {tile.masked = [0 : i64]} : memref<1000xf32>
      %p = arith.mulf %v, %s : f32
      loop.store %p, %y[%b * 64 + %a0, 0] {tile.masked = [0 : i64]} : memref<1000x1000xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @masked
// CHECK:       %x_smem = tile.stage %x origin [%b * 64, 0] slab [1024 at 0] async {tile.masked = [0 : i64]} : memref<1000x1000xf32> -> memref<1024xf32, #tile.smem>
// CHECK:       %s = loop.load %w[%b * 64 + %a0] {tile.masked = [0 : i64]} : memref<1000xf32>
// CHECK:       loop.store %p, %y[%b * 64 + %a0, 0] {tile.masked = [0 : i64]} : memref<1000x1000xf32>

// A warp's row held in registers (hold-rows): 23 elements of 733 per lane; a column of 64 held
// along dim 0 (`at 0`), 2 elements per lane.
func.func @held_row(%x: memref<64x733xf32>, %o: memref<64xf32>) {
  tile.kernel @k_hold ins(%x : memref<64x733xf32>) outs(%o : memref<64xf32>) {
    tile.tile (%b : 8 = block, %w : 8 = thread, %lane : 32 = thread) {
      %x_reg = tile.hold %x[%b * 8 + %w, %lane] step 32 : memref<64x733xf32> -> memref<23xf32>
      %x_col = tile.hold %x[%lane, %b * 8 + %w] step 32 at 0 : memref<64x733xf32> -> memref<2xf32>
      %p = loop.for reduce %j < 23 -> f32 {
        %v = loop.load %x_reg[%j] : memref<23xf32>
        loop.accumulate add %v : f32
      } {tile.unroll}
      %s = tile.combine add %p across [%lane] warp_shuffle : f32
      loop.store %s, %o[%b * 8 + %w] : memref<64xf32>
    }
  }
  func.return
}
// CHECK-LABEL: func.func @held_row
// CHECK:      %x_reg = tile.hold %x[%b * 8 + %w, %lane] step 32 : memref<64x733xf32> -> memref<23xf32>
// CHECK-NEXT: %x_col = tile.hold %x[%lane, %b * 8 + %w] step 32 at 0 : memref<64x733xf32> -> memref<2xf32>
// CHECK-NEXT: %p = loop.for reduce %j < 23 -> f32 {
// CHECK-NEXT:   %v = loop.load %x_reg[%j] : memref<23xf32>
