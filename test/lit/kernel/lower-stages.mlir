// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(lower-stages)' | filecheck %s
// lower-stages: each tile.stage of a bound tile becomes a kernel.smem and its fill. Cases: a
// group of three stages (sync: a float4 copy; async: cp.async of 16 bytes, then commit and
// wait; tma: an mbarrier set up in the prologue, thread 0 issuing the bulk copy, every thread
// waiting on the barrier's phase), one barrier after the group; a K loop marked
// {tile.pipeline = 2} whose stage is double-buffered along it: iteration 0 filled before the
// loop, each iteration filling k+1 while computing on slot k mod 2 (the buffer allocated once at
// the top of the tile); masked stages (rows past a 37-row source): each copy under
// `kernel.if %inside`, zeros stored otherwise, and the `tma` one filled by guarded cp.async; a
// tile without stages, left alone; ragged fills (unrolled, or a loop past 16 trips); rows not a
// power of two long, each thread's index split once (in one loop, or once per turn).

kernel.func @k_stages(%x: memref<4x128xf32>, %w: memref<128xf32>, %z: memref<4x128xf32>, %y: memref<4x128xf32>) grid [4, 1, 1] block [32, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t, %ba : 4 = block at %b) thread_id %t {
    %x_smem = tile.stage %x origin [%ba, 0] slab [128 at 1] : memref<4x128xf32> -> memref<128xf32, #tile.smem>
    %w_smem = tile.stage %w origin [0] slab [128 at 0] async : memref<128xf32> -> memref<128xf32, #tile.smem>
    %z_smem = tile.stage %z origin [%ba, 0] slab [128 at 1] tma : memref<4x128xf32> -> memref<128xf32, #tile.smem>
    tile.strided_for free %i = %ta to 128 step 32 {
      %a = loop.load %x_smem[%i] : memref<128xf32, #tile.smem>
      %c = loop.load %w_smem[%i] : memref<128xf32, #tile.smem>
      %e = loop.load %z_smem[%i] : memref<128xf32, #tile.smem>
      %p = arith.mulf %a, %c : f32
      %q = arith.addf %p, %e : f32
      loop.store %q, %y[%ba, %i] : memref<4x128xf32>
    }
  }
}
func.func @main(%x: memref<4x128xf32>, %w: memref<128xf32>, %z: memref<4x128xf32>) -> memref<4x128xf32> {
  %y = memref.alloc() : memref<4x128xf32>
  kernel.launch @k_stages(%x, %w, %z, %y) : memref<4x128xf32>, memref<128xf32>, memref<4x128xf32>, memref<4x128xf32>
  func.return %y : memref<4x128xf32>
}

// CHECK-LABEL: kernel.func @k_stages
// CHECK:         %b = kernel.block_id x
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    %z_smem_bar = kernel.smem : memref<1xi64, #kernel.smem>
// CHECK-NEXT:    %is_t0 = arith.cmpi eq, %t, %{{.*}} : index
// CHECK-NEXT:    kernel.if %is_t0 {
// CHECK-NEXT:      kernel.mbarrier_init %z_smem_bar[0] count 1 : memref<1xi64, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    tile.tile (%ta : 32 = thread at %t, %ba : 4 = block at %b) thread_id %t {
// CHECK-NEXT:      %x_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:      %w_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:      %z_smem = kernel.smem : memref<128xf32, #kernel.smem>
// CHECK-NEXT:      %x_smem_v = kernel.load %x[%b, %t * 4] vector 4 : memref<4x128xf32>
// CHECK-NEXT:      kernel.store %x_smem_v, %x_smem[%t * 4] vector 4 : memref<128xf32, #kernel.smem>
// CHECK-NEXT:      kernel.cp_async %w_smem[%t * 4], %w[%t * 4] bytes 16 : memref<128xf32, #kernel.smem>, memref<128xf32>
// CHECK-NEXT:      kernel.if %is_t0 {
// CHECK-NEXT:        kernel.mbarrier_arrive_expect_tx %z_smem_bar[0] bytes 512 : memref<1xi64, #kernel.smem>
// CHECK-NEXT:        kernel.tma_load %z_smem[0], %z[%b, 0] bytes 512 barrier %z_smem_bar[0] : memref<128xf32, #kernel.smem>, memref<4x128xf32>, memref<1xi64, #kernel.smem>
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.cp_async_commit
// CHECK-NEXT:      kernel.cp_async_wait 0
// CHECK-NEXT:      kernel.mbarrier_wait %z_smem_bar[0] phase %{{.*}} : memref<1xi64, #kernel.smem>
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      tile.strided_for free %i = %ta to 128 step 32 {
// CHECK-NEXT:        %a = loop.load %x_smem[%i] : memref<128xf32, #kernel.smem>
// CHECK-NEXT:        %c = loop.load %w_smem[%i] : memref<128xf32, #kernel.smem>
// CHECK-NEXT:        %e = loop.load %z_smem[%i] : memref<128xf32, #kernel.smem>

// -----

kernel.func @k_rowsum(%x: memref<4x128xf32>, %y: memref<4x32xf32>) grid [4, 1, 1] block [32, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t, %ba : 4 = block at %b) thread_id %t {
    %acc = loop.for reduce %k < 4 -> f32 {
      %x_smem = tile.stage %x origin [%ba, %k * 32] slab [32 at 1] buffers 2 at %k async : memref<4x128xf32> -> memref<2x32xf32, #tile.smem>
      %v = loop.load %x_smem[%k mod 2, %ta] : memref<2x32xf32, #tile.smem>
      loop.accumulate add %v : f32
    } {tile.pipeline = 2 : i64}
    loop.store %acc, %y[%ba, %ta] : memref<4x32xf32>
  }
}
func.func @main(%x: memref<4x128xf32>) -> memref<4x32xf32> {
  %y = memref.alloc() : memref<4x32xf32>
  kernel.launch @k_rowsum(%x, %y) : memref<4x128xf32>, memref<4x32xf32>
  func.return %y : memref<4x32xf32>
}

// CHECK-LABEL: kernel.func @k_rowsum
// CHECK:         tile.tile (%ta : 32 = thread at %t, %ba : 4 = block at %b) thread_id %t {
// CHECK-NEXT:      %x_smem = kernel.smem : memref<2x32xf32, #kernel.smem>
// CHECK-NEXT:      %[[P:.*]] = arith.cmpi ult, %t, %{{.*}} : index
// CHECK-NEXT:      kernel.if %[[P]] {
// CHECK-NEXT:        kernel.cp_async %x_smem[0, %t * 4], %x[%b, %t * 4] bytes 16 : memref<2x32xf32, #kernel.smem>, memref<4x128xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.cp_async_commit
// CHECK-NEXT:      %acc = kernel.for %k = 0 to 4 step 1 -> f32 {
// CHECK-NEXT:        %k_next = arith.addi %k, %{{.*}} : index
// CHECK-NEXT:        %[[MORE:.*]] = arith.cmpi ult, %k_next, %{{.*}} : index
// CHECK-NEXT:        kernel.if %[[MORE]] {
// CHECK-NEXT:          %[[Q:.*]] = arith.cmpi ult, %t, %{{.*}} : index
// CHECK-NEXT:          kernel.if %[[Q]] {
// CHECK-NEXT:            kernel.cp_async %x_smem[%k_next mod 2, %t * 4], %x[%b, %k_next * 32 + %t * 4] bytes 16 : memref<2x32xf32, #kernel.smem>, memref<4x128xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        kernel.cp_async_commit
// CHECK-NEXT:        kernel.cp_async_wait 1
// CHECK-NEXT:        kernel.barrier
// CHECK-NEXT:        %v = loop.load %x_smem[%k mod 2, %ta] : memref<2x32xf32, #kernel.smem>
// CHECK-NEXT:        kernel.barrier
// CHECK-NEXT:        kernel.accumulate add %v : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.store %acc, %y[%ba, %ta] : memref<4x32xf32>

// -----

kernel.func @k_masked(%x: memref<37x8xf32>, %z: memref<37x8xf32>, %y: memref<37x8xf32>) grid [5, 1, 1] block [8, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 8 = thread at %t, %ba : 5 = block at %b) thread_id %t {
    %x_smem = tile.stage %x origin [%ba * 8, 0] slab [8 at 0, 8 at 1] {tile.masked = [0 : i64]} : memref<37x8xf32> -> memref<8x8xf32, #tile.smem>
    %z_smem = tile.stage %z origin [%ba * 8, 0] slab [8 at 0, 8 at 1] tma {tile.masked = [0 : i64]} : memref<37x8xf32> -> memref<8x8xf32, #tile.smem>
    tile.strided_for free %i = %ta to 8 step 8 {
      %a = loop.load %x_smem[%i, 0] : memref<8x8xf32, #tile.smem>
      %c = loop.load %z_smem[%i, 0] : memref<8x8xf32, #tile.smem>
      %p = arith.addf %a, %c : f32
      loop.store %p, %y[%ba * 8 + %i, 0] {tile.masked = [0 : i64]} : memref<37x8xf32>
    }
  }
}

// CHECK-LABEL: kernel.func @k_masked
// CHECK:           %x_smem_flat = arith.addi %t, %{{.*}} : index
// CHECK:           %inside = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      kernel.if %inside {
// CHECK-NEXT:        %x_smem_v = kernel.load %x[%b * 8 + %x_smem_flat floordiv 2, %x_smem_flat mod 2 * 4] vector 4 : memref<37x8xf32>
// CHECK-NEXT:        kernel.store %x_smem_v, %x_smem[%x_smem_flat floordiv 2, %x_smem_flat mod 2 * 4] vector 4 : memref<8x8xf32, #kernel.smem>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        kernel.store %[[ZERO:.*]], %x_smem[%x_smem_flat floordiv 2, %x_smem_flat mod 2 * 4] : memref<8x8xf32, #kernel.smem>
// CHECK-NEXT:        kernel.store %[[ZERO]], %x_smem[%x_smem_flat floordiv 2, %x_smem_flat mod 2 * 4 + 1] : memref<8x8xf32, #kernel.smem>
// CHECK-NEXT:        kernel.store %[[ZERO]], %x_smem[%x_smem_flat floordiv 2, %x_smem_flat mod 2 * 4 + 2] : memref<8x8xf32, #kernel.smem>
// CHECK-NEXT:        kernel.store %[[ZERO]], %x_smem[%x_smem_flat floordiv 2, %x_smem_flat mod 2 * 4 + 3] : memref<8x8xf32, #kernel.smem>
// CHECK-NEXT:      }
// CHECK:           %inside_1 = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      kernel.if %inside_1 {
// CHECK-NEXT:        kernel.cp_async %z_smem[%z_smem_flat floordiv 2, %z_smem_flat mod 2 * 4], %z[%b * 8 + %z_smem_flat floordiv 2, %z_smem_flat mod 2 * 4] bytes 16
// CHECK-NEXT:      } else {
// CHECK-COUNT-4:     kernel.store %[[ZERO]], %z_smem
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.cp_async_commit
// CHECK-NEXT:    kernel.cp_async_wait 0
// CHECK-NEXT:    kernel.barrier
// CHECK-NOT:     kernel.tma_load

// -----

kernel.func @k_copy(%x: memref<32xf32>, %y: memref<32xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 32 = thread at %t) thread_id %t {
    %v = loop.load %x[%ta] : memref<32xf32>
    loop.store %v, %y[%ta] : memref<32xf32>
  }
}

// CHECK-LABEL: kernel.func @k_copy
// CHECK-NEXT:    %t = kernel.thread_id x
// CHECK-NEXT:    tile.tile (%ta : 32 = thread at %t) thread_id %t {
// CHECK-NEXT:      %v = loop.load %x[%ta] : memref<32xf32>
// CHECK-NEXT:      loop.store %v, %y[%ta] : memref<32xf32>

// -----

// A fill whose copies the threads do not divide evenly (a row of 37 f32 on 8 threads: 5 trips,
// the last for 5 of them) is a counted, unrolled loop with each copy under `kernel.if`, so a
// thread's loads issue together; past FILL_UNROLL_TRIPS (16) trips (a row of 137: 18) it stays a
// loop from the thread's index.

kernel.func @k_ragged(%x: memref<4x37xf32>, %u: memref<4x137xf32>, %y: memref<4x37xf32>) grid [4, 1, 1] block [8, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 8 = thread at %t, %ba : 4 = block at %b) thread_id %t {
    %x_smem = tile.stage %x origin [%ba, 0] slab [37 at 1] : memref<4x37xf32> -> memref<37xf32, #tile.smem>
    %u_smem = tile.stage %u origin [%ba, 0] slab [137 at 1] : memref<4x137xf32> -> memref<137xf32, #tile.smem>
    tile.strided_for free %i = %ta to 37 step 8 {
      %a = loop.load %x_smem[%i] : memref<37xf32, #tile.smem>
      %c = loop.load %u_smem[%i] : memref<137xf32, #tile.smem>
      %q = arith.addf %a, %c : f32
      loop.store %q, %y[%ba, %i] : memref<4x37xf32>
    }
  }
}
func.func @main(%x: memref<4x37xf32>, %u: memref<4x137xf32>) -> memref<4x37xf32> {
  %y = memref.alloc() : memref<4x37xf32>
  kernel.launch @k_ragged(%x, %u, %y) : memref<4x37xf32>, memref<4x137xf32>, memref<4x37xf32>
  func.return %y : memref<4x37xf32>
}

// CHECK-LABEL: kernel.func @k_ragged
// CHECK:           kernel.for %x_smem_j = 0 to 5 step 1 unroll {
// CHECK-NEXT:        %[[OFF:.*]] = arith.muli %x_smem_j, %{{.*}} : index
// CHECK-NEXT:        %x_smem_flat = arith.addi %t, %[[OFF]] : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi ult, %x_smem_flat, %{{.*}} : index
// CHECK-NEXT:        kernel.if %[[IN]] {
// CHECK-NEXT:          %x_smem_v = kernel.load %x[%b, %x_smem_flat] : memref<4x37xf32>
// CHECK-NEXT:          kernel.store %x_smem_v, %x_smem[%x_smem_flat] : memref<37xf32, #kernel.smem>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.for %u_smem_flat = %t to 137 step 8 {
// CHECK-NEXT:        %u_smem_v = kernel.load %u[%b, %u_smem_flat] : memref<4x137xf32>

// -----

// Fills of rows whose length is not a power of two (fill_plan), on 64 threads:
// - %x, 6 rows of 37 out of rows of 40: each thread's index split into a row and a column once
//   (`_r0`, `_c0`); trip j steps them by the constants of j * 64 = 1 * 37 + 27 (a column past
//   the row wraps into the next row, `_wrap`), never a division per copy; the last trip is under
//   `_r < 6` (by rows would take 6 copies a thread where the flat order takes 4);
// - %z, the same rows masked (rows past the 11-row source read as zeros): the guard per copy;
// - %v, 8 rows of 29 out of rows of 30: by rows, a warp along each row (`_c0 = t mod 32`, lanes
//   past 29 idle), 2 rows a step (`_r0 = t / 32`), 4 copies a thread as in the flat order;
// - %u, 6 whole rows of 37: one contiguous run, so the flat copy number is the offset (flat).

kernel.func @k_rows(%x: memref<12x40xf32>, %z: memref<11x37xf32>, %v: memref<16x30xf32>, %u: memref<12x37xf32>, %y: memref<12x37xf32>) grid [2, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 64 = thread at %t, %ba : 2 = block at %b) thread_id %t {
    %x_smem = tile.stage %x origin [%ba * 6, 0] slab [6 at 0, 37 at 1] : memref<12x40xf32> -> memref<6x37xf32, #tile.smem>
    %z_smem = tile.stage %z origin [%ba * 6, 0] slab [6 at 0, 37 at 1] async {tile.masked = [0 : i64]} : memref<11x37xf32> -> memref<6x37xf32, #tile.smem>
    %v_smem = tile.stage %v origin [%ba * 8, 0] slab [8 at 0, 29 at 1] : memref<16x30xf32> -> memref<8x29xf32, #tile.smem>
    %u_smem = tile.stage %u origin [%ba * 6, 0] slab [6 at 0, 37 at 1] : memref<12x37xf32> -> memref<6x37xf32, #tile.smem>
    tile.strided_for free %i = %ta to 29 step 64 {
      %a = loop.load %x_smem[0, %i] : memref<6x37xf32, #tile.smem>
      %c = loop.load %z_smem[0, %i] : memref<6x37xf32, #tile.smem>
      %d = loop.load %v_smem[0, %i] : memref<8x29xf32, #tile.smem>
      %e = loop.load %u_smem[0, %i] : memref<6x37xf32, #tile.smem>
      %q = arith.addf %a, %c : f32
      %q2 = arith.addf %q, %d : f32
      %q3 = arith.addf %q2, %e : f32
      loop.store %q3, %y[%ba * 6, %i] : memref<12x37xf32>
    }
  }
}
func.func @main(%x: memref<12x40xf32>, %z: memref<11x37xf32>, %v: memref<16x30xf32>, %u: memref<12x37xf32>) -> memref<12x37xf32> {
  %y = memref.alloc() : memref<12x37xf32>
  kernel.launch @k_rows(%x, %z, %v, %u, %y) : memref<12x40xf32>, memref<11x37xf32>, memref<16x30xf32>, memref<12x37xf32>, memref<12x37xf32>
  func.return %y : memref<12x37xf32>
}

// CHECK-LABEL: kernel.func @k_rows(
// CHECK:           %x_smem_r0 = arith.divui %t, %[[N:.*]] : index
// CHECK-NEXT:      %x_smem_c0 = arith.remui %t, %[[N]] : index
// CHECK-NEXT:      kernel.for %x_smem_j = 0 to 4 step 1 unroll {
// CHECK-NEXT:        %[[JT:.*]] = arith.muli %x_smem_j, %{{.*}} : index
// CHECK-NEXT:        %[[B:.*]] = arith.remui %[[JT]], %[[N]] : index
// CHECK-NEXT:        %[[S:.*]] = arith.addi %x_smem_c0, %[[B]] : index
// CHECK-NEXT:        %x_smem_wrap = arith.cmpi uge, %[[S]], %[[N]] : index
// CHECK-NEXT:        %[[SW:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK-NEXT:        %x_smem_c = arith.select %x_smem_wrap, %[[SW]], %[[S]] : index
// CHECK-NEXT:        %[[JT2:.*]] = arith.muli %x_smem_j, %{{.*}} : index
// CHECK-NEXT:        %[[A:.*]] = arith.divui %[[JT2]], %[[N]] : index
// CHECK-NEXT:        %[[R:.*]] = arith.addi %x_smem_r0, %[[A]] : index
// CHECK-NEXT:        %[[RW:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK-NEXT:        %x_smem_r = arith.select %x_smem_wrap, %[[RW]], %[[R]] : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi ult, %x_smem_r, %{{.*}} : index
// CHECK-NEXT:        kernel.if %[[IN]] {
// CHECK-NEXT:          %x_smem_v = kernel.load %x[%b * 6 + %x_smem_r, %x_smem_c] : memref<12x40xf32>
// CHECK-NEXT:          kernel.store %x_smem_v, %x_smem[%x_smem_r, %x_smem_c] : memref<6x37xf32, #kernel.smem>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK:           kernel.for %z_smem_j = 0 to 4 step 1 unroll {
// CHECK:             %inside = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:        kernel.if %inside {
// CHECK-NEXT:          kernel.cp_async %z_smem[%z_smem_r, %z_smem_c], %z[%b * 6 + %z_smem_r, %z_smem_c] bytes 4
// CHECK-NEXT:        } else {
// CHECK-NEXT:          kernel.store %{{.*}}, %z_smem[%z_smem_r, %z_smem_c] : memref<6x37xf32, #kernel.smem>
// CHECK-NEXT:        }
// CHECK:           %v_smem_c0 = arith.remui %t, %[[W:.*]] : index
// CHECK-NEXT:      %v_smem_r0 = arith.divui %t, %[[W]] : index
// CHECK-NEXT:      kernel.for %v_smem_rj = 0 to 4 step 1 unroll {
// CHECK-NEXT:        %[[ROFF:.*]] = arith.muli %v_smem_rj, %{{.*}} : index
// CHECK-NEXT:        %v_smem_r = arith.addi %v_smem_r0, %[[ROFF]] : index
// CHECK-NEXT:        %[[IN2:.*]] = arith.cmpi ult, %v_smem_c0, %{{.*}} : index
// CHECK-NEXT:        kernel.if %[[IN2]] {
// CHECK-NEXT:          %v_smem_v = kernel.load %v[%b * 8 + %v_smem_r, %v_smem_c0] : memref<16x30xf32>
// CHECK-NEXT:          kernel.store %v_smem_v, %v_smem[%v_smem_r, %v_smem_c0] : memref<8x29xf32, #kernel.smem>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      kernel.for %u_smem_j = 0 to 4 step 1 unroll {
// CHECK:             %u_smem_flat = arith.addi %t, %{{.*}} : index
// CHECK:               %u_smem_v = kernel.load %u[%b * 6 + %u_smem_flat floordiv 37, %u_smem_flat mod 37] : memref<12x37xf32>

// -----

// Past SPLIT_ONCE_TRIPS (32) trips (60 rows of 37 out of rows of 40, on 64 threads: 35), the
// split fill turns a loop of at most FILL_UNROLL_TRIPS unrolled trips (3 turns of 12), splitting
// t + 768 g once per turn.

kernel.func @k_turns(%x: memref<60x40xf32>, %y: memref<37xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  tile.tile (%ta : 64 = thread at %t) thread_id %t {
    %x_smem = tile.stage %x origin [0, 0] slab [60 at 0, 37 at 1] : memref<60x40xf32> -> memref<60x37xf32, #tile.smem>
    tile.strided_for free %i = %ta to 37 step 64 {
      %a = loop.load %x_smem[59, %i] : memref<60x37xf32, #tile.smem>
      loop.store %a, %y[%i] : memref<37xf32>
    }
  }
}
func.func @main(%x: memref<60x40xf32>) -> memref<37xf32> {
  %y = memref.alloc() : memref<37xf32>
  kernel.launch @k_turns(%x, %y) : memref<60x40xf32>, memref<37xf32>
  func.return %y : memref<37xf32>
}

// CHECK-LABEL: kernel.func @k_turns(
// CHECK:           kernel.for %x_smem_g = 0 to 3 step 1 {
// CHECK-NEXT:        %[[OFF:.*]] = arith.muli %x_smem_g, %{{.*}} : index
// CHECK-NEXT:        %x_smem_first = arith.addi %t, %[[OFF]] : index
// CHECK-NEXT:        %x_smem_r0 = arith.divui %x_smem_first, %{{.*}} : index
// CHECK-NEXT:        %x_smem_c0 = arith.remui %x_smem_first, %{{.*}} : index
// CHECK-NEXT:        kernel.for %x_smem_j = 0 to 12 step 1 unroll {
// CHECK:               %x_smem_r = arith.select %x_smem_wrap
// CHECK-NEXT:          %[[IN:.*]] = arith.cmpi ult, %x_smem_r, %{{.*}} : index
// CHECK-NEXT:          kernel.if %[[IN]] {
// CHECK-NEXT:            %x_smem_v = kernel.load %x[%x_smem_r, %x_smem_c] : memref<60x40xf32>
