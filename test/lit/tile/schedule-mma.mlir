// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{smem-bytes=65536},schedule' | filecheck %s --check-prefix=SMEM64
// The schedule's tensor-core candidates (schedule_mma.py) next to the SIMT ones, the least
// modeled time kept (f32, sm_90, 132 SMs):
// - 128 x 3584 x 3584 (a projection at seq 128): the 28 blocks of 128 x 128 would leave 104 SMs
//   idle, so split-matmul-k spreads K over 4 (wgmma 128 x 128, split 4: 54 us against 176 us
//   unsplit and SIMT's 91 us); not over 14 (3 rounds of 8 K steps), where about 5 splits of
//   each tile would add into the same outputs at once (their atomics wait on each other:
//   schedule_mma.contention_trips);
// - 2048 x 2048 x 512: 256 blocks of 128 x 128 fill the GPU, no split (128 x 256 is no
//   candidate: its accumulators and promoted chain fragment would spill);
// - 128 x 2048 x 192: 16 blocks of 128 x 128 would each run alone on an SM (measured 18.3 us);
//   64 blocks of 64 x 64 run 6 K steps at a lone block's rate (schedule_mma.LONE_STEP) plus the
//   launch's fixed cost (BLOCK_US): 11 us against 20 (measured 11.3). That tile then races SIMT
//   64 x 64 split 3 at the wave models (schedule.race_waves: 15 us against 13), which takes it
//   (H200, session 26: 8.4 us against wgmma's 7.9, the models' error);
// - declined: a product whose factors mix M and N (x[i, k] * w[j, k] * s[i, j], 128 x 256 x 128) is not an MMA
//   (tensorize-matmul declines it on a copy), so the SIMT schedule takes it (32 x 32 tiles: the
//   8 blocks of 64 x 64 would leave 124 SMs idle);
// - 1024 x 1024 x 1024: wgmma 128 x 128 (128 KiB of stages, one block per SM) on sm_90's 227 KiB;
//   on a #kernel.target of 64 KiB per block (SMEM64) neither it nor 64 x 128 (96 KiB) fits, so
//   64 x 64 (64 KiB);
// - ragged, 1000 x 1000 x 1000 (w stored [K, N]): pad-matmul rounds M, N up to the 128 x 128
//   tile and K to 1024, the accesses masked (A's float4s, w's elements); a padded tile's masked
//   stages and fixed cost per block (schedule_mma.MASKED_STEP, PADDED_BLOCK_STEPS) still leave it
//   the fastest since masked loads are predicated (measured on the H100: 0.044 against SIMT's
//   0.069 ms), so wgmma 128 x 128, split 2;
// - ragged and transposed, A stored [K, M] (M = 4723, N = 128, K = 2048): M padded to 37 blocks
//   of 128, only A's M masked, K split over 2 (74 us against SIMT's 78; measured 0.074 against
//   0.098 ms);
// - 192 x 96 x 256: of the MMA's granularity, but no tile divides N = 96; the padded tiles
//   (20 us with their masking costs) lose to the SIMT tiles, so the estimated 32 x 32 tile is
//   weighed too (schedule.tensor_cores_win) and takes it, split 4 (8 us; 64 x 32, tried as a
//   64 x 64 grid of 6 blocks is a small grid, 10 us);
// - ragged and small (67 x 45 x 100): the padded tiles are tried (K >= 32) and lose (14 us
//   against SIMT 32 x 32's 5);
// - a short K, 4096 x 4096 x 96 (w stored [K, N]): three K steps a block, so each block's fixed
//   cost (schedule_mma.FULL_BLOCK_STEPS, schedule_classes.BLOCK_TRIPS) decides: wgmma 64 x 64
//   (87 us) over 128 x 128 (99 us: one block an SM pays 4.1 steps more) and SIMT 128 x 128 (96
//   us); measured on the H200 0.082 ms against SIMT's 0.133 (eager 0.092);
// - declined: K = 20 (67 x 45 x 20, below K >= 32) stays SIMT.

func.func @main(%x: memref<128x3584xf32>, %w: memref<3584x3584xf32>) -> memref<128x3584xf32> {
  %y = memref.alloc() : memref<128x3584xf32>
  loop.kernel @k_short ins(%x, %w : memref<128x3584xf32>, memref<3584x3584xf32>) outs(%y : memref<128x3584xf32>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 3584 {
        %acc = loop.for reduce %r0 < 3584 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<128x3584xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<3584x3584xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x3584xf32>
      }
    }
  }
  func.return %y : memref<128x3584xf32>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%ks : 4 = block, %bm : 1 = block, %bn : 28 = block, %wg : 2 = thread
// CHECK:         mma.dot {{.*}} precision "3xtf32" layout wgmma promote 4 : memref<128x32xf32, #tile.smem>, memref<128x32xf32, #tile.smem>

// -----

func.func @main(%x: memref<2048x512xf32>, %w: memref<2048x512xf32>) -> memref<2048x2048xf32> {
  %y = memref.alloc() : memref<2048x2048xf32>
  loop.kernel @k_big ins(%x, %w : memref<2048x512xf32>, memref<2048x512xf32>) outs(%y : memref<2048x2048xf32>) {
    loop.for free %a0 < 2048 {
      loop.for free %a1 < 2048 {
        %acc = loop.for reduce %r0 < 512 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<2048x512xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<2048x512xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<2048x2048xf32>
      }
    }
  }
  func.return %y : memref<2048x2048xf32>
}
// CHECK-LABEL: tile.kernel @k_big
// CHECK:         tile.tile (%bm : 16 = block, %bn : 16 = block, %wg : 2 = thread
// CHECK:         mma.dot {{.*}} memref<128x32xf32, #tile.smem>, memref<128x32xf32, #tile.smem>

// -----

func.func @main(%x: memref<128x192xf32>, %w: memref<2048x192xf32>) -> memref<128x2048xf32> {
  %y = memref.alloc() : memref<128x2048xf32>
  loop.kernel @k_few ins(%x, %w : memref<128x192xf32>, memref<2048x192xf32>) outs(%y : memref<128x2048xf32>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 2048 {
        %acc = loop.for reduce %r0 < 192 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<128x192xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<2048x192xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x2048xf32>
      }
    }
  }
  func.return %y : memref<128x2048xf32>
}
// CHECK-LABEL: tile.kernel @k_few
// CHECK:         tile.tile (%ks : 3 = block, %a0_b : 2 = block, %a0_t : 16 = thread, %a1_b : 32 = block, %a1_t : 16 = thread, %a0_c : 4 = cell, %a1_c : 4 = cell)
// CHECK-NOT:     mma.dot
// CHECK:       } {tile.zero_init = [0 : i64], tile.schedule = "tileify,pad-matmul{rows=4 cols=4 {{.*}}"}

// -----

func.func @main(%x: memref<128x128xf32>, %w: memref<256x128xf32>, %s: memref<128x256xf32>) -> memref<128x256xf32> {
  %y = memref.alloc() : memref<128x256xf32>
  loop.kernel @k_mixed ins(%x, %w, %s : memref<128x128xf32>, memref<256x128xf32>, memref<128x256xf32>) outs(%y : memref<128x256xf32>) {
    loop.for free %a0 < 128 {
      loop.for free %a1 < 256 {
        %acc = loop.for reduce %r0 < 128 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<128x128xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<256x128xf32>
          %sv = loop.load %s[%a0, %a1] : memref<128x256xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          %in_3 = arith.mulf %in_2, %sv : f32
          loop.accumulate add %in_3 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<128x256xf32>
      }
    }
  }
  func.return %y : memref<128x256xf32>
}
// CHECK-LABEL: tile.kernel @k_mixed
// CHECK-NOT:     mma.dot
// CHECK:         tile.tile (%a0_b : 4 = block, %a0_t : 16 = thread, %a1_b : 8 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK-NOT:     mma.dot

// -----

func.func @main(%x: memref<1000x1000xf32>, %w: memref<1000x1000xf32>) -> memref<1000x1000xf32> {
  %y = memref.alloc() : memref<1000x1000xf32>
  loop.kernel @k_ragged ins(%x, %w : memref<1000x1000xf32>, memref<1000x1000xf32>) outs(%y : memref<1000x1000xf32>) {
    loop.for free %a0 < 1000 {
      loop.for free %a1 < 1000 {
        %acc = loop.for reduce %r0 < 1000 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<1000x1000xf32>
          %in_1 = loop.load %w[%r0, %a1] : memref<1000x1000xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<1000x1000xf32>
      }
    }
  }
  func.return %y : memref<1000x1000xf32>
}
// CHECK-LABEL: tile.kernel @k_ragged
// CHECK:         tile.tile (%ks : 2 = block, %bm : 8 = block, %bn : 8 = block, %wg : 2 = thread
// CHECK:         mma.dot
// CHECK:         tile.schedule = "tileify,pad-matmul{rows=128 cols=128 threads=1 k-tile=32},chunk-matmul-k{k-tile=32},split-matmul-k

// -----

func.func @main(%x: memref<2048x4723xf32>, %w: memref<2048x128xf32>) -> memref<4723x128xf32> {
  %y = memref.alloc() : memref<4723x128xf32>
  loop.kernel @k_ragged_tn ins(%x, %w : memref<2048x4723xf32>, memref<2048x128xf32>) outs(%y : memref<4723x128xf32>) {
    loop.for free %a0 < 4723 {
      loop.for free %a1 < 128 {
        %acc = loop.for reduce %r0 < 2048 -> f32 {
          %in = loop.load %x[%r0, %a0] : memref<2048x4723xf32>
          %in_1 = loop.load %w[%r0, %a1] : memref<2048x128xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<4723x128xf32>
      }
    }
  }
  func.return %y : memref<4723x128xf32>
}
// CHECK-LABEL: tile.kernel @k_ragged_tn
// CHECK:         tile.tile (%ks : 2 = block, %bm : 37 = block, %bn : 1 = block, %wg : 2 = thread
// CHECK:           loop.load %x[%ks * 1024 + %ko * 32 + %c, %bm * 128 + %r] {tile.masked = [1 : i64]} : memref<2048x4723xf32>
// CHECK:           loop.load %w[%ks * 1024 + %ko * 32 + %c_1, %bn * 128 + %r_1] : memref<2048x128xf32>
// CHECK:           mma.dot

// -----

func.func @main(%x: memref<67x100xf32>, %w: memref<45x100xf32>) -> memref<67x45xf32> {
  %y = memref.alloc() : memref<67x45xf32>
  loop.kernel @k_ragged_small ins(%x, %w : memref<67x100xf32>, memref<45x100xf32>) outs(%y : memref<67x45xf32>) {
    loop.for free %a0 < 67 {
      loop.for free %a1 < 45 {
        %acc = loop.for reduce %r0 < 100 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<67x100xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<45x100xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<67x45xf32>
      }
    }
  }
  func.return %y : memref<67x45xf32>
}
// CHECK-LABEL: tile.kernel @k_ragged_small
// CHECK-NOT:     mma.dot
// CHECK:         tile.tile (%a0_b : 3 = block, %a0_t : 16 = thread, %a1_b : 2 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK-NOT:     mma.dot

// -----

func.func @main(%x: memref<192x256xf32>, %w: memref<96x256xf32>) -> memref<192x96xf32> {
  %y = memref.alloc() : memref<192x96xf32>
  loop.kernel @k_undivided ins(%x, %w : memref<192x256xf32>, memref<96x256xf32>) outs(%y : memref<192x96xf32>) {
    loop.for free %a0 < 192 {
      loop.for free %a1 < 96 {
        %acc = loop.for reduce %r0 < 256 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<192x256xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<96x256xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<192x96xf32>
      }
    }
  }
  func.return %y : memref<192x96xf32>
}
// CHECK-LABEL: tile.kernel @k_undivided
// CHECK-NOT:     mma.dot
// CHECK:         tile.tile (%ks : 4 = block, %a0_b : 6 = block, %a0_t : 16 = thread, %a1_b : 3 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK-NOT:     mma.dot

// -----

func.func @main(%x: memref<1024x1024xf32>, %w: memref<1024x1024xf32>) -> memref<1024x1024xf32> {
  %y = memref.alloc() : memref<1024x1024xf32>
  loop.kernel @k_square ins(%x, %w : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%y : memref<1024x1024xf32>) {
    loop.for free %a0 < 1024 {
      loop.for free %a1 < 1024 {
        %acc = loop.for reduce %r0 < 1024 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<1024x1024xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<1024x1024xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<1024x1024xf32>
      }
    }
  }
  func.return %y : memref<1024x1024xf32>
}
// CHECK-LABEL: tile.kernel @k_square
// CHECK:         tile.schedule = "tileify,pad-matmul{rows=128 cols=128 threads=1 k-tile=32},chunk-matmul-k{k-tile=32},split-matmul-k{sms=132 blocks-per-sm=1 contention-trips=1.59 tile-elements=16384},tensorize-matmul{layout=wgmma bm=128 bn=128 precision=3xtf32 promote=4}"
// SMEM64-LABEL: tile.kernel @k_square
// SMEM64:        tile.schedule = "tileify,pad-matmul{rows=64 cols=64 threads=1 k-tile=32},chunk-matmul-k{k-tile=32},split-matmul-k{sms=132 blocks-per-sm=1 contention-trips=1.15 tile-elements=4096},tensorize-matmul{layout=wgmma bm=64 bn=64 precision=3xtf32 promote=4}"

// -----

func.func @main(%x: memref<4096x96xf32>, %w: memref<96x4096xf32>) -> memref<4096x4096xf32> {
  %y = memref.alloc() : memref<4096x4096xf32>
  loop.kernel @k_short_k ins(%x, %w : memref<4096x96xf32>, memref<96x4096xf32>) outs(%y : memref<4096x4096xf32>) {
    loop.for free %a0 < 4096 {
      loop.for free %a1 < 4096 {
        %acc = loop.for reduce %r0 < 96 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<4096x96xf32>
          %in_1 = loop.load %w[%r0, %a1] : memref<96x4096xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<4096x4096xf32>
      }
    }
  }
  func.return %y : memref<4096x4096xf32>
}
// CHECK-LABEL: tile.kernel @k_short_k
// CHECK:         tile.tile (%bm : 64 = block, %bn : 64 = block, %wg : 1 = thread
// CHECK:         mma.dot {{.*}} precision "3xtf32" layout wgmma promote 4 : memref<64x32xf32, #tile.smem>, memref<64x32xf32, #tile.smem>

// -----

func.func @main(%x: memref<67x20xf32>, %w: memref<45x20xf32>) -> memref<67x45xf32> {
  %y = memref.alloc() : memref<67x45xf32>
  loop.kernel @k_tiny_k ins(%x, %w : memref<67x20xf32>, memref<45x20xf32>) outs(%y : memref<67x45xf32>) {
    loop.for free %a0 < 67 {
      loop.for free %a1 < 45 {
        %acc = loop.for reduce %r0 < 20 -> f32 {
          %in = loop.load %x[%a0, %r0] : memref<67x20xf32>
          %in_1 = loop.load %w[%a1, %r0] : memref<45x20xf32>
          %in_2 = arith.mulf %in, %in_1 : f32
          loop.accumulate add %in_2 : f32
        }
        loop.store %acc, %y[%a0, %a1] : memref<67x45xf32>
      }
    }
  }
  func.return %y : memref<67x45xf32>
}
// CHECK-LABEL: tile.kernel @k_tiny_k
// CHECK-NOT:     mma.dot
// CHECK:         tile.tile (%a0_b : 3 = block, %a0_t : 16 = thread, %a1_b : 2 = block, %a1_t : 16 = thread, %a0_c : 2 = cell, %a1_c : 2 = cell)
// CHECK-NOT:     mma.dot
