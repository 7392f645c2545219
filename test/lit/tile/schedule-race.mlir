// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// The tensor cores' pick and SIMT's race at their wave models (schedule.race_waves; f32, sm_90,
// 132 SMs), where the old models rank small tensor-core launches 2-3x slow:
// - 397 x 128 x 2741, A stored [K, M], B [N, K] (matmul_tt of sweep seed 61): the old models keep
//   SIMT 64 x 64 split 10; the wave models give wgmma 64 x 64 split 8 20 us against SIMT's 27,
//   and take it (H200, session 26: 24.7 -> 16.1 us, 0.74 -> 1.13x eager);
// - declined: 6115 x 67 x 557, 3 K steps (fewer than RACE_MIN_STEPS, each block's fixed cost,
//   which neither model sees): SIMT 128 x 128 stays (raced, wgmma 128 x 128 would take it: H200,
//   session 26, 29.8 -> 37.7 us).
// - 1472 x 1201 x 64, A stored [K, M]: 2 K steps (at most SIMT_MAX_STEPS): the tensor cores drop
//   out whatever the models say (the old one ranks wgmma 128 x 128 first, 12 us against 14), SIMT
//   128 x 128 takes it (H200, session 26: 18.8 -> 12.7 us, 0.58 -> 0.85x eager).
// (SIMT over the tensor cores: 128 x 2048 x 192 in schedule-mma.mlir.)

func.func @main(%x: memref<2741x397xf32>, %y: memref<128x2741xf32>) -> memref<397x128xf32> {
  %matmul = memref.alloc() : memref<397x128xf32>
  loop.kernel @k_tt ins(%x, %y : memref<2741x397xf32>, memref<128x2741xf32>) outs(%matmul : memref<397x128xf32>) {
    loop.for free %a0 < 397 {
      loop.for free %a1 < 128 {
        %acc = loop.for reduce %r0 < 2741 -> f32 {
          %in = loop.load %x[%r0, %a0] : memref<2741x397xf32>
          %in_1 = loop.load %y[%a1, %r0] : memref<128x2741xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<397x128xf32>
      }
    }
  }
  func.return %matmul : memref<397x128xf32>
}
// CHECK-LABEL: tile.kernel @k_tt
// CHECK:         tile.tile (%ks : 8 = block, %bm : 7 = block, %bn : 2 = block, %wg : 1 = thread
// CHECK:         mma.dot
// CHECK:       } {{{.*}}tile.schedule = "{{.*}}tensorize-matmul{layout=wgmma bm=64 bn=64 precision=3xtf32{{.*}}"}

// -----

func.func @main(%x: memref<6115x67xf32>, %y: memref<67x557xf32>) -> memref<6115x557xf32> {
  %matmul = memref.alloc() : memref<6115x557xf32>
  loop.kernel @k_short_k ins(%x, %y : memref<6115x67xf32>, memref<67x557xf32>) outs(%matmul : memref<6115x557xf32>) {
    loop.for free %a0 < 6115 {
      loop.for free %a1 < 557 {
        %acc = loop.for reduce %r0 < 67 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<6115x67xf32>
          %in_1 = loop.load %y[%r0, %a1] : memref<67x557xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<6115x557xf32>
      }
    }
  }
  func.return %matmul : memref<6115x557xf32>
}
// CHECK-LABEL: tile.kernel @k_short_k
// CHECK-NOT:     mma.dot
// CHECK:       } {tile.schedule = "tileify,pad-matmul{rows=8 cols=8 {{.*}}"}

// -----

func.func @main(%x: memref<64x1472xf32>, %y: memref<64x1201xf32>) -> memref<1472x1201xf32> {
  %matmul = memref.alloc() : memref<1472x1201xf32>
  loop.kernel @k_two_steps ins(%x, %y : memref<64x1472xf32>, memref<64x1201xf32>) outs(%matmul : memref<1472x1201xf32>) {
    loop.for free %a0 < 1472 {
      loop.for free %a1 < 1201 {
        %acc = loop.for reduce %r0 < 64 -> f32 {
          %in = loop.load %x[%r0, %a0] : memref<64x1472xf32>
          %in_1 = loop.load %y[%r0, %a1] : memref<64x1201xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %matmul[%a0, %a1] : memref<1472x1201xf32>
      }
    }
  }
  func.return %matmul : memref<1472x1201xf32>
}
// CHECK-LABEL: tile.kernel @k_two_steps
// CHECK-NOT:     mma.dot
// CHECK:       } {tile.schedule = "tileify,pad-matmul{rows=8 cols=8 {{.*}}"}
