// RUN: dpl-opt %s --split-input-file --pass-pipeline='chunk-matmul-k,stage-inputs' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='chunk-matmul-k' | filecheck %s --check-prefix=CHUNK
// The attention-output projection reads attention's head-major output: K = heads x head_dim, and
// `attn[k floordiv 64, m, k mod 64]` (2 heads of 64). chunk-matmul-k (k = %ko * 32 + %ki, %ki < 32,
// 64 a multiple of 32) simplifies the index to `[%ko floordiv 2, m, %ko mod 2 * 32 + %ki]`: block-
// uniform per K-outer step plus %ki, so stage-inputs stages a [4 x 32] slab of attn per K step
// like the weight's. Cases: `mod` spelled as mod; spelled `k + (k floordiv 64) * -64` (as the
// frontend writes it); already chunked with the unsimplified index (stage-inputs simplifies it
// itself). Declined: a head_dim of 48, not a multiple of the k-tile 32 (the index stays as it is,
// attn stays global).

func.func @main(%attn: memref<2x4x64xf64>, %wo: memref<8x128xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  tile.kernel @k_o_proj ins(%attn, %wo : memref<2x4x64xf64>, memref<8x128xf64>) outs(%out : memref<4x8xf64>) {
    tile.tile (%m : 4 = thread, %n : 8 = thread) {
      %acc = loop.for reduce %k < 128 -> f64 {
        %a = loop.load %attn[%k floordiv 64, %m, %k mod 64] : memref<2x4x64xf64>
        %b = loop.load %wo[%n, %k] : memref<8x128xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m, %n] : memref<4x8xf64>
    }
  }
  func.return %out : memref<4x8xf64>
}

// CHUNK-LABEL: tile.kernel @k_o_proj
// CHUNK:         %acc = loop.for reduce %ko < 4 -> f64 {
// CHUNK-NEXT:      %acc_k = loop.for reduce %ki < 32 -> f64 {
// CHUNK-NEXT:        %a = loop.load %attn[%ko floordiv 2, %m, %ko mod 2 * 32 + %ki] : memref<2x4x64xf64>
// CHUNK-NEXT:        %b = loop.load %wo[%n, %ko * 32 + %ki] : memref<8x128xf64>

// CHECK-LABEL: tile.kernel @k_o_proj
// CHECK:         %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK-NEXT:      %attn_smem = tile.stage %attn origin [%ko floordiv 2, 0, %ko mod 2 * 32] slab [m : 4 at 1, ki : 32 at 2] : memref<2x4x64xf64> -> memref<4x32xf64, #tile.smem>
// CHECK-NEXT:      %wo_smem = tile.stage %wo origin [0, %ko * 32] slab [n : 8 at 0, ki : 32 at 1] : memref<8x128xf64> -> memref<8x32xf64, #tile.smem>
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 32 -> f64 {
// CHECK-NEXT:        %a = loop.load %attn_smem[%m, %ki] : memref<4x32xf64, #tile.smem>
// CHECK-NEXT:        %b = loop.load %wo_smem[%n, %ki] : memref<8x32xf64, #tile.smem>

// -----

func.func @main(%attn: memref<1x2x4x1x64xf64>, %wo: memref<8x128xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  tile.kernel @k_o_proj_frontend ins(%attn, %wo : memref<1x2x4x1x64xf64>, memref<8x128xf64>) outs(%out : memref<4x8xf64>) {
    tile.tile (%m : 4 = thread, %n : 8 = thread) {
      %acc = loop.for reduce %k < 128 -> f64 {
        %a = loop.load %attn[0, %k floordiv 64, %m, 0, %k + %k floordiv 64 * -64] : memref<1x2x4x1x64xf64>
        %b = loop.load %wo[%n, %k] : memref<8x128xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m, %n] : memref<4x8xf64>
    }
  }
  func.return %out : memref<4x8xf64>
}

// CHUNK-LABEL: tile.kernel @k_o_proj_frontend
// CHUNK:             %a = loop.load %attn[0, %ko floordiv 2, %m, 0, %ko mod 2 * 32 + %ki] : memref<1x2x4x1x64xf64>

// CHECK-LABEL: tile.kernel @k_o_proj_frontend
// CHECK:         %attn_smem = tile.stage %attn origin [0, %ko floordiv 2, 0, 0, %ko mod 2 * 32] slab [m : 4 at 2, ki : 32 at 4] : memref<1x2x4x1x64xf64> -> memref<4x32xf64, #tile.smem>
// CHECK:           %a = loop.load %attn_smem[%m, %ki] : memref<4x32xf64, #tile.smem>

// -----

func.func @main(%attn: memref<2x4x64xf64>, %wo: memref<8x128xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  tile.kernel @k_o_proj_chunked ins(%attn, %wo : memref<2x4x64xf64>, memref<8x128xf64>) outs(%out : memref<4x8xf64>) {
    tile.tile (%m : 4 = thread, %n : 8 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 32 -> f64 {
          %a = loop.load %attn[(%ko * 32 + %ki) floordiv 64, %m, (%ko * 32 + %ki) mod 64] : memref<2x4x64xf64>
          %b = loop.load %wo[%n, %ko * 32 + %ki] : memref<8x128xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%m, %n] : memref<4x8xf64>
    }
  }
  func.return %out : memref<4x8xf64>
}

// CHUNK-LABEL: tile.kernel @k_o_proj_chunked
// CHUNK:             %a = loop.load %attn[(%ko * 32 + %ki) floordiv 64, %m, (%ko * 32 + %ki) mod 64] : memref<2x4x64xf64>

// CHECK-LABEL: tile.kernel @k_o_proj_chunked
// CHECK:         %attn_smem = tile.stage %attn origin [%ko floordiv 2, 0, %ko mod 2 * 32] slab [m : 4 at 1, ki : 32 at 2] : memref<2x4x64xf64> -> memref<4x32xf64, #tile.smem>
// CHECK:           %a = loop.load %attn_smem[%m, %ki] : memref<4x32xf64, #tile.smem>

// -----

func.func @main(%attn: memref<2x4x48xf64>, %wo: memref<8x96xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  tile.kernel @k_o_proj_48 ins(%attn, %wo : memref<2x4x48xf64>, memref<8x96xf64>) outs(%out : memref<4x8xf64>) {
    tile.tile (%m : 4 = thread, %n : 8 = thread) {
      %acc = loop.for reduce %k < 96 -> f64 {
        %a = loop.load %attn[%k floordiv 48, %m, %k mod 48] : memref<2x4x48xf64>
        %b = loop.load %wo[%n, %k] : memref<8x96xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m, %n] : memref<4x8xf64>
    }
  }
  func.return %out : memref<4x8xf64>
}

// CHUNK-LABEL: tile.kernel @k_o_proj_48
// CHUNK:             %a = loop.load %attn[(%ko * 32 + %ki) floordiv 48, %m, (%ko * 32 + %ki) mod 48] : memref<2x4x48xf64>

// CHECK-LABEL: tile.kernel @k_o_proj_48
// CHECK-NOT:     tile.stage %attn
// CHECK:         %wo_smem = tile.stage %wo
// CHECK-NOT:     tile.stage %attn
// CHECK:           %a = loop.load %attn[(%ko * 32 + %ki) floordiv 48, %m, (%ko * 32 + %ki) mod 48] : memref<2x4x48xf64>

// -----

// Declined: a per-channel bias read in the K loop at `%k floordiv 64` (a conv's bias folded into
// its input, as fuse-loops leaves it) is one element per K step, the same for every thread:
// it stays global (no stage of no dims), while attn and wo are staged.
func.func @main(%attn: memref<2x4x64xf64>, %wo: memref<8x128xf64>, %bias: memref<2xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  tile.kernel @k_o_proj_bias ins(%attn, %wo, %bias : memref<2x4x64xf64>, memref<8x128xf64>, memref<2xf64>) outs(%out : memref<4x8xf64>) {
    tile.tile (%m : 4 = thread, %n : 8 = thread) {
      %acc = loop.for reduce %k < 128 -> f64 {
        %a = loop.load %attn[%k floordiv 64, %m, %k mod 64] : memref<2x4x64xf64>
        %c = loop.load %bias[%k floordiv 64] : memref<2xf64>
        %ac = arith.addf %a, %c : f64
        %b = loop.load %wo[%n, %k] : memref<8x128xf64>
        %p = arith.mulf %ac, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%m, %n] : memref<4x8xf64>
    }
  }
  func.return %out : memref<4x8xf64>
}

// CHECK-LABEL: tile.kernel @k_o_proj_bias
// CHECK:         %attn_smem = tile.stage %attn
// CHECK-NOT:     tile.stage %bias
// CHECK:         %wo_smem = tile.stage %wo
// CHECK:         loop.load %bias[%ko floordiv 2] : memref<2xf64>
