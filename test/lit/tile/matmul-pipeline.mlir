// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,chunk-matmul-k,register-tile,blockify-launch,cooperative-reduce,stage-inputs,mark-unroll' | filecheck %s
// The matmul schedule end to end from loop IR: chunk-matmul-k splits K into K-outer x 32,
// register-tile gives each thread 4 x 4 cells, blockify-launch makes 16 x 16 threads per block
// with blocks over M/64 and N/64 (here the 16 x 16 seed fits one block of 4 x 4 threads),
// cooperative-reduce leaves the per-thread K reduce alone, stage-inputs stages the A and B tiles
// (and the seeds' bias) once per K-outer step, and the K-inner loop reads the stages. Cases: the
// seeds' relu(matmul(x + bias, w)); torch.nn.Linear(64, 128) on 1x128x64 (x @ W^T + b); an
// attention-output projection with floordiv/mod indices.

func.func @main(%x: memref<16x64xf64>, %bias: memref<64xf64>, %w: memref<64x16xf64>) -> memref<16x16xf64> {
  %relu = memref.alloc() : memref<16x16xf64>
  loop.kernel @k_relu ins(%w, %x, %bias : memref<64x16xf64>, memref<16x64xf64>, memref<64xf64>) outs(%relu : memref<16x16xf64>) {
    %0 = arith.constant 0.000000e+00 : f64
    loop.for free %a0 < 16 {
      loop.for free %a1 < 16 {
        %acc = loop.for reduce %r0 < 64 -> f64 {
          %a = loop.load %x[%a0, %r0] : memref<16x64xf64>
          %in = loop.load %bias[%r0] : memref<64xf64>
          %in_1 = arith.addf %a, %in : f64
          %in_2 = loop.load %w[%r0, %a1] : memref<64x16xf64>
          %in_3 = arith.mulf %in_1, %in_2 : f64
          loop.accumulate add %in_3 : f64
        }
        %1 = arith.maximumf %acc, %0 : f64
        loop.store %1, %relu[%a0, %a1] : memref<16x16xf64>
      }
    }
  }
  func.return %relu : memref<16x16xf64>
}

// CHECK-LABEL: tile.kernel @k_relu
// CHECK:       tile.tile (%a0 : 4 = thread, %a1 : 4 = thread, %a0_c : 4 = cell, %a1_c : 4 = cell) {
// CHECK-NEXT:    %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:      %w_smem = tile.stage %w origin [%ko * 32, 0] slab [ki : 32 at 0, a1 : 4 at 1, cell : 4 at 1] : memref<64x16xf64> -> memref<32x4x4xf64, #tile.smem>
// CHECK-NEXT:      %x_smem = tile.stage %x origin [0, %ko * 32] slab [a0 : 4 at 0, cell : 4 at 0, ki : 32 at 1] : memref<16x64xf64> -> memref<4x4x32xf64, #tile.smem>
// CHECK-NEXT:      %bias_smem = tile.stage %bias origin [%ko * 32] slab [ki : 32 at 0] : memref<64xf64> -> memref<32xf64, #tile.smem>
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 32 -> f64 {
// CHECK-NEXT:        %a = loop.load %x_smem[%a0, %a0_c, %ki] : memref<4x4x32xf64, #tile.smem>
// CHECK-NEXT:        %in = loop.load %bias_smem[%ki] : memref<32xf64, #tile.smem>
// CHECK-NEXT:        %in_1 = arith.addf %a, %in : f64
// CHECK-NEXT:        %in_2 = loop.load %w_smem[%ki, %a1, %a1_c] : memref<32x4x4xf64, #tile.smem>
// CHECK-NEXT:        %in_3 = arith.mulf %in_1, %in_2 : f64
// CHECK-NEXT:        loop.accumulate add %in_3 : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.accumulate add %acc_k : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = arith.maximumf %acc, %0 : f64
// CHECK-NEXT:    loop.store %1, %relu[%a0 * 4 + %a0_c, %a1 * 4 + %a1_c] : memref<16x16xf64>
// CHECK-NOT:   tile.combine

// -----

func.func @main(%x: memref<1x128x64xf64>, %p_weight: memref<128x64xf64>, %p_bias: memref<128xf64>) -> memref<1x128x128xf64> {
  %linear = memref.alloc() : memref<1x128x128xf64>
  loop.kernel @k_linear ins(%p_bias, %x, %p_weight : memref<128xf64>, memref<1x128x64xf64>, memref<128x64xf64>) outs(%linear : memref<1x128x128xf64>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 128 {
        loop.for free %a2 < 128 {
          %acc = loop.for reduce %r0 < 64 -> f64 {
            %in = loop.load %x[%a0, %a1, %r0] : memref<1x128x64xf64>
            %in_1 = loop.load %p_weight[%a2, %r0] : memref<128x64xf64>
            %in_2 = arith.mulf %in, %in_1 : f64
            loop.accumulate add %in_2 : f64
          }
          %in_3 = loop.load %p_bias[%a2] : memref<128xf64>
          %0 = arith.addf %acc, %in_3 : f64
          loop.store %0, %linear[%a0, %a1, %a2] : memref<1x128x128xf64>
        }
      }
    }
  }
  func.return %linear : memref<1x128x128xf64>
}

// CHECK-LABEL: tile.kernel @k_linear
// CHECK:       tile.tile (%a1_b : 2 = block, %a1_t : 16 = thread, %a2_b : 2 = block, %a2_t : 16 = thread, %a1_c : 4 = cell, %a2_c : 4 = cell) {
// CHECK-NEXT:    %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [0, %a1_b * 64, %ko * 32] slab [a1_t : 16 at 1, cell : 4 at 1, ki : 32 at 2] : memref<1x128x64xf64> -> memref<16x4x32xf64, #tile.smem>
// CHECK-NEXT:      %p_weight_smem = tile.stage %p_weight origin [%a2_b * 64, %ko * 32] slab [a2_t : 16 at 0, cell : 4 at 0, ki : 32 at 1] : memref<128x64xf64> -> memref<16x4x32xf64, #tile.smem>
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 32 -> f64 {
// CHECK-NEXT:        %in = loop.load %x_smem[%a1_t, %a1_c, %ki] : memref<16x4x32xf64, #tile.smem>
// CHECK-NEXT:        %in_1 = loop.load %p_weight_smem[%a2_t, %a2_c, %ki] : memref<16x4x32xf64, #tile.smem>
// CHECK-NEXT:        %in_2 = arith.mulf %in, %in_1 : f64
// CHECK-NEXT:        loop.accumulate add %in_2 : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.accumulate add %acc_k : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %in_3 = loop.load %p_bias[%a2_b * 64 + %a2_t * 4 + %a2_c] : memref<128xf64>
// CHECK-NEXT:    %0 = arith.addf %acc, %in_3 : f64
// CHECK-NEXT:    loop.store %0, %linear[0, %a1_b * 64 + %a1_t * 4 + %a1_c, %a2_b * 64 + %a2_t * 4 + %a2_c] : memref<1x128x128xf64>
// CHECK-NOT:   tile.combine

// -----

// The attention-output projection reads its A operand through floordiv/mod indices (heads x
// head_dim flattened into K): still a matmul, chunked and register-tiled. Its head_dim of 16 is
// below the k-tile of 32, so the index stays non-linear in %ki (`%ko * 2 + %ki floordiv 16`)
// and A stays global; B is staged. (A head_dim that the k-tile divides is staged:
// stage-inputs-head-major.mlir.)
func.func @main(%attn: memref<4x4x16xf64>, %wo: memref<16x64xf64>) -> memref<4x16xf64> {
  %out = memref.alloc() : memref<4x16xf64>
  loop.kernel @k_o_proj ins(%attn, %wo : memref<4x4x16xf64>, memref<16x64xf64>) outs(%out : memref<4x16xf64>) {
    loop.for free %m < 4 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 64 -> f64 {
          %a = loop.load %attn[%k floordiv 16, %m, %k mod 16] : memref<4x4x16xf64>
          %b = loop.load %wo[%n, %k] : memref<16x64xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %out[%m, %n] : memref<4x16xf64>
      }
    }
  }
  func.return %out : memref<4x16xf64>
}

// CHECK-LABEL: tile.kernel @k_o_proj
// CHECK-NEXT:    tile.tile (%m : 1 = thread, %n : 4 = thread, %m_c : 4 = cell, %n_c : 4 = cell) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:        %wo_smem = tile.stage %wo origin [0, %ko * 32] slab [n : 4 at 0, cell : 4 at 0, ki : 32 at 1] : memref<16x64xf64> -> memref<4x4x32xf64, #tile.smem>
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 32 -> f64 {
// CHECK-NEXT:          %a = loop.load %attn[%ko * 2 + %ki floordiv 16, %m * 4 + %m_c, %ki mod 16] : memref<4x4x16xf64>
// CHECK-NEXT:          %b = loop.load %wo_smem[%n, %n_c, %ki] : memref<4x4x32xf64, #tile.smem>
