// RUN: dpl-opt %s --split-input-file --pass-pipeline='tile-attention{rows=32 tile=8 wide=2}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tile-attention{rows=32 tile=8 qsplit=1}' | filecheck %s --check-prefix=QSPLIT
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tile-attention{rows=32 tile=8 qsplit=1 precision=ieee}' | filecheck %s --check-prefix=IEEE
// tile-attention{wide=2}: where the depth and value depth are multiples of 32 and the chains
// (4 k-steps by default) hold whole groups of 4 k-steps, the attn.flash records `wide 2`
// (materialize-attention loads the scores' and P @ V's fragments 128 bits wide); else it declines
// to (no `wide`). `qsplit=1` records `qsplit` (the query tile split into TF32 parts once), except
// on SIMT fp32 (ieee). tests/test_attention.py runs the wide kernels against the loop level.

// Causal SDPA, depth 32: wide 2.
func.func @main(%x: memref<1x2x13x32xf32>, %y: memref<1x2x13x32xf32>, %z: memref<1x2x13x32xf32>) -> memref<1x2x13x32xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x32xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x32xf32>, memref<1x2x13x32xf32>, memref<1x2x13x32xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x32xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 13 {
          loop.for free %a3 < 32 {
            %acc = attn.softmax_reduce < 13 -> f32 score {
            ^bb0(%s: index):
              %0 = arith.constant 0xff800000 : f32
              %1 = arith.constant 0.353553385 : f32
              %acc_1 = loop.for reduce %r0 < 32 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x13x32xf32>
                %in_1 = loop.load %y[%a0, %a1, %s, %r0] : memref<1x2x13x32xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              %2 = arith.cmpi ugt, %s, %a2 : index
              %3 = arith.mulf %acc_1, %1 : f32
              %a = arith.select %2, %0, %3 : f32
              attn.yield %a : f32
            } value {
            ^bb0(%s_1: index):
              %in_3 = loop.load %z[%a0, %a1, %s_1, %a3] : memref<1x2x13x32xf32>
              attn.yield %in_3 : f32
            }
            loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3] : memref<1x2x13x32xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x32xf32>
}

// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention
// CHECK:         attn.flash %l0 rows 32 queries 13 keys 13 tile 8 depth 32 x 32 chain 4 precision "3xtf32" wide 2 causal query {
// QSPLIT-LABEL: tile.kernel @k_scaled_dot_product_attention
// QSPLIT:         attn.flash %l0 rows 32 queries 13 keys 13 tile 8 depth 32 x 32 chain 4 precision "3xtf32" wide 1 qsplit causal query {
// IEEE-LABEL:   tile.kernel @k_scaled_dot_product_attention
// IEEE:           attn.flash %l0 rows 32 queries 13 keys 13 tile 8 depth 32 x 32 chain 4 precision "ieee" causal query {

// -----

// Depth 8 (no whole group of 4 k-steps): declined, no `wide`.
func.func @main(%x: memref<1x2x13x8xf32>, %y: memref<1x2x13x8xf32>, %z: memref<1x2x13x8xf32>) -> memref<1x2x13x8xf32> {
  %scaled_dot_product_attention = memref.alloc() : memref<1x2x13x8xf32>
  loop.kernel @k_scaled_dot_product_attention ins(%x, %y, %z : memref<1x2x13x8xf32>, memref<1x2x13x8xf32>, memref<1x2x13x8xf32>) outs(%scaled_dot_product_attention : memref<1x2x13x8xf32>) {
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 13 {
          loop.for free %a3 < 8 {
            %acc = attn.softmax_reduce < 13 -> f32 score {
            ^bb0(%s: index):
              %0 = arith.constant 0xff800000 : f32
              %1 = arith.constant 0.353553385 : f32
              %acc_1 = loop.for reduce %r0 < 8 -> f32 {
                %in = loop.load %x[%a0, %a1, %a2, %r0] : memref<1x2x13x8xf32>
                %in_1 = loop.load %y[%a0, %a1, %s, %r0] : memref<1x2x13x8xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              %2 = arith.cmpi ugt, %s, %a2 : index
              %3 = arith.mulf %acc_1, %1 : f32
              %a = arith.select %2, %0, %3 : f32
              attn.yield %a : f32
            } value {
            ^bb0(%s_1: index):
              %in_3 = loop.load %z[%a0, %a1, %s_1, %a3] : memref<1x2x13x8xf32>
              attn.yield %in_3 : f32
            }
            loop.store %acc, %scaled_dot_product_attention[%a0, %a1, %a2, %a3] : memref<1x2x13x8xf32>
          }
        }
      }
    }
  }
  func.return %scaled_dot_product_attention : memref<1x2x13x8xf32>
}

// CHECK-LABEL: tile.kernel @k_scaled_dot_product_attention
// CHECK:         attn.flash %l0 rows 32 queries 13 keys 13 tile 8 depth 8 x 8 chain 4 precision "3xtf32" causal query {
