// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// The schedule tries each matmul with 64 x 64 block tiles (4 x 4 registers, 3 blocks per SM),
// 128 x 128 (8 x 8, 1 block per SM) and 32 x 32 (2 x 2, 5 blocks per SM), each as split-matmul-k
// splits K and, where it did, unsplit too, and keeps the one of least modeled time: K trips per
// block x the trip time of the busiest SM (ceil(blocks / 132) blocks: full rounds at 2.62 / 3.2 /
// 6.5 us, a part-filled one at its share but no less than a lone block's 2.62 / 3.2 / 1.3 us;
// 32 x 32 blocks sharing an SM do not overlap; in full rounds a block pays 0.75 of a trip more,
// schedule_classes.BLOCK_TRIPS), plus a split's atomics and the launch zeroing its output:
// - 2048 x 2048 (K 256: 8 trips): 64 x 64 is 1024 blocks, 8 per SM (69 us); 128 x 128 is
//   256 blocks, 2 per SM (56 us): 128 x 128.
// - 128 x 512: 64 x 64 is 16 blocks, 116 SMs idle (21 us; 12 us split 4 ways); 32 x 32 is 64
//   blocks (10 us; split 4 ways, 256 blocks of 2 trips, two an SM: 12 us): 32 x 32, unsplit.
// - a matmul with an epilogue is also tried with the epilogue split off (split-epilogue), when
//   the split contraction plus a pointwise kernel beat the fused one.
// - 21 x 8192 (K 2048, f64): M = 21 shrinks 64 x 64 to 32 x 64 (8 x 16 threads), so an SM runs
//   twice as many (6) at a 256-thread block's trip time: split 4, 512 blocks, one round (51 us),
//   against 32 x 32 unsplit (166 us). Counted as whole blocks it was 95 us and lost.
// - 64 x 32 (4 x 2, 4 blocks per SM, 2.45 / 1.88 us) is tried only where the 64 x 64 grid is at
//   most a tenth of the SMs: 64 x 64 x 256 (one 64 x 64 block) tries it (10 us, split 4); 128 x 512
//   (16 blocks) does not.
// - 640 x 512 (K 64): 64 x 64 is 80 blocks (5 us); 32 x 32 is 320 blocks, 3 an SM (8 us):
//   64 x 64 (at the 32 x 32 tile's old full-SM trip of 2.18 us it modeled 32 x 32 faster,
//   which measured slower on such shapes). 5120 x 16 (K 192) shrinks 64 x 64 to 64 x 16 (64
//   threads), 80 blocks of a quarter: 32 x 32 (32 x 16, 160 blocks) still wins there (10 us).

func.func @main(%x: memref<2048x256xf64>, %w: memref<2048x256xf64>) -> memref<2048x2048xf64> {
  %y = memref.alloc() : memref<2048x2048xf64>
  loop.kernel @k_big ins(%x, %w : memref<2048x256xf64>, memref<2048x256xf64>) outs(%y : memref<2048x2048xf64>) {
    loop.for free %a0 < 2048 {
      loop.for free %a1 < 2048 {
        %acc = loop.for reduce %r0 < 256 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<2048x256xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<2048x256xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<2048x2048xf64>
      }
    }
  }
  func.return %y : memref<2048x2048xf64>
}
// CHECK-LABEL: tile.kernel @k_big
// CHECK:         tile.tile (%a0_b : 16 = block, %a0_t : 16 = thread, %a1_b : 16 = block, %a1_t : 16 = thread, %a0_c : 8 = cell, %a1_c : 8 = cell)
// CHECK:       } {tile.schedule = "tileify,pad-matmul{rows=8 cols=8 whole-k=124 sms=132},chunk-matmul-k,split-matmul-k{sms=132 blocks-per-sm=1 short-k-splits=4 sparse-tile=4096 tile-elements=16384},register-tile{rows=8 cols=8},blockify-launch,permute-register-tile,cooperative-reduce,stage-inputs{smem-bytes=232448},mark-unroll{max-extent=128},double-buffer,async-copy{target=sm_90},pad-smem{pad=4},pipeline-k-outer"}

// -----

func.func @main(%x: memref<128x256xf64>, %w: memref<512x256xf64>) -> memref<128x512xf64> {
  %y = memref.alloc() : memref<128x512xf64>
  loop.kernel @k_small ins(%x, %w : memref<128x256xf64>, memref<512x256xf64>) outs(%y : memref<128x512xf64>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 512 {
        %acc = loop.for reduce %r0 < 256 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<128x256xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<512x256xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x512xf64>
      }
    }
  }
  func.return %y : memref<128x512xf64>
}
// CHECK-LABEL: tile.kernel @k_small
// CHECK:         tile.tile (%a0_b : 4 = block, %a0_t : 16 = thread, %a1_b : 16 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)

// -----

// silu(g) * (x @ w^T), 128 x 5632 x 2048 (TinyLlama's up projection): fused, the silu epilogue
// rules out split-K and 176 blocks of 64 x 64 take one round of 64 trips (168 us); with the
// epilogue split off the contraction splits K (93 us) and the epilogue is a pointwise kernel.
func.func @main(%g: memref<128x5632xf64>, %x: memref<128x2048xf64>, %w: memref<5632x2048xf64>) -> memref<128x5632xf64> {
  %out = memref.alloc() : memref<128x5632xf64>
  loop.kernel @k_mul ins(%g, %x, %w : memref<128x5632xf64>, memref<128x2048xf64>, memref<5632x2048xf64>) outs(%out : memref<128x5632xf64>) {
    %one = arith.constant 1.000000e+00 : f64
    loop.for free %i < 128 {
      loop.for free %j < 5632 {
        %gv = loop.load %g[%i, %j] : memref<128x5632xf64>
        %n = arith.negf %gv : f64
        %e = math.exp %n : f64
        %d = arith.addf %one, %e : f64
        %s = arith.divf %gv, %d : f64
        %acc = loop.for reduce %r < 2048 -> f64 {
          %a = loop.load %x[%i, %r] : memref<128x2048xf64>
          %b = loop.load %w[%j, %r] : memref<5632x2048xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        %v = arith.mulf %s, %acc : f64
        loop.store %v, %out[%i, %j] : memref<128x5632xf64>
      }
    }
  }
  func.return %out : memref<128x5632xf64>
}
// CHECK-LABEL: tile.kernel @k_mul_acc
// CHECK:         tile.tile (%ks : 2 = block,
// CHECK:         tile.atomic add
// CHECK:       } {tile.zero_init = [0 : i64], tile.schedule = "tileify,pad-matmul{rows=4 cols=4 whole-k=124 sms=132},chunk-matmul-k,split-matmul-k{{.*}},register-tile{rows=4 cols=4},{{.*}}"}
// CHECK-NEXT:  tile.kernel @k_mul ins(%g, %mul_acc
// CHECK-NOT:     loop.for reduce
// CHECK:       } {tile.schedule = "tileify,collapse-pointwise,vectorize-pointwise,blockify-launch,order-blocks,mark-unroll"}
// CHECK:         func.return

// -----

func.func @main(%x: memref<21x2048xf64>, %w: memref<8192x2048xf64>) -> memref<21x8192xf64> {
  %y = memref.alloc() : memref<21x8192xf64>
  loop.kernel @k_skinny ins(%x, %w : memref<21x2048xf64>, memref<8192x2048xf64>) outs(%y : memref<21x8192xf64>) {
    loop.for free %a0 < 21 {
      loop.for free %a1 < 8192 {
        %acc = loop.for reduce %r0 < 2048 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<21x2048xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<8192x2048xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<21x8192xf64>
      }
    }
  }
  func.return %y : memref<21x8192xf64>
}
// CHECK-LABEL: tile.kernel @k_skinny
// CHECK:         tile.tile (%ks : 4 = block, %a0 : 8 = thread, %a1_b : 128 = block, %a1_t : 16 = thread, %a0_c : 4 = cell, %a1_c : 4 = cell)

// -----

// 64 x 64 x 256: one 64 x 64 block (a small grid: at most a tenth of the SMs), so 64 x 32
// (4 x 2 registers) is tried too (10 us split 4, against 64 x 64's 12 and wgmma 64 x 64's 13);
// the tensor cores do not win, so 32 x 32 is weighed as well and takes it, split 4 (8 us).
func.func @main(%x: memref<64x256xf32>, %w: memref<64x256xf32>) -> memref<64x64xf32> {
  %y = memref.alloc() : memref<64x64xf32>
  loop.kernel @k_tiny ins(%x, %w : memref<64x256xf32>, memref<64x256xf32>) outs(%y : memref<64x64xf32>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 64 {
        %acc = loop.for reduce %r0 < 256 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<64x256xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<64x256xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x64xf32>
      }
    }
  }
  func.return %y : memref<64x64xf32>
}

// CHECK-LABEL: tile.kernel @k_tiny
// CHECK:         tile.tile (%ks : 4 = block, %a0_b : 2 = block, %a0_t : 16 = thread, %a1_b : 2 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK:       } {tile.zero_init = [0 : i64], tile.schedule = "tileify,pad-matmul{rows=2 cols=2 whole-k=124 sms=132},chunk-matmul-k,split-matmul-k{sms=132 blocks-per-sm=5 {{.*}}},register-tile{rows=2 cols=2},{{.*}}"}

// -----

func.func @main(%x: memref<640x64xf64>, %w: memref<512x64xf64>) -> memref<640x512xf64> {
  %y = memref.alloc() : memref<640x512xf64>
  loop.kernel @k_mid ins(%x, %w : memref<640x64xf64>, memref<512x64xf64>) outs(%y : memref<640x512xf64>) {
    loop.for free %a0 < 640 {
      loop.for free %a1 < 512 {
        %acc = loop.for reduce %r0 < 64 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<640x64xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<512x64xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<640x512xf64>
      }
    }
  }
  func.return %y : memref<640x512xf64>
}
// CHECK-LABEL: tile.kernel @k_mid
// CHECK:         tile.tile (%a0_b : 10 = block, %a0_t : 16 = thread, %a1_b : 8 = block, %a1_t : 16 = thread, %a0_c : 4 = cell, %a1_c : 4 = cell)

// -----

func.func @main(%x: memref<5120x192xf64>, %w: memref<16x192xf64>) -> memref<5120x16xf64> {
  %y = memref.alloc() : memref<5120x16xf64>
  loop.kernel @k_narrow ins(%x, %w : memref<5120x192xf64>, memref<16x192xf64>) outs(%y : memref<5120x16xf64>) {
    loop.for free %a0 < 5120 {
      loop.for free %a1 < 16 {
        %acc = loop.for reduce %r0 < 192 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<5120x192xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<16x192xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<5120x16xf64>
      }
    }
  }
  func.return %y : memref<5120x16xf64>
}
// CHECK-LABEL: tile.kernel @k_narrow
// CHECK:         tile.tile (%a0_b : 160 = block, %a0_t : 16 = thread, %a1 : 8 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
