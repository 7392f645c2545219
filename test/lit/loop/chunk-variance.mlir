// RUN: dpl-opt %s --split-input-file --pass-pipeline='chunk-variance{min-chunk=16}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='chunk-variance{min-chunk=16 max-chunk=19}' | filecheck %s --check-prefix=SHORT
// chunk-variance has a row's sum and its sum of squared deviations read the row once, by chunks
// (the shortest of at least min-chunk elements): a kernel stores each chunk's sum, and the sum of
// its deviations from its own mean and of their squares, and the two statistic kernels (what
// split-row-stats leaves of a LayerNorm) read those. Cases: rows of 4 x 6 x 8 in chunks of
// 2 x 8 = 16 (the loop of 6 split 3 x 2); a 1-D row of 40 in chunks of 20 (40 = 2 x 20);
// declined: a variance not directly after a sum of the same row, a row of 12 (one chunk), and
// (max-chunk=19) the row of 40.

func.func @main(%x: memref<2x4x6x8xf32>) -> memref<2xf32> {
  %stat0 = memref.alloc() : memref<2xf32>
  loop.kernel @k_stat0 ins(%x : memref<2x4x6x8xf32>) outs(%stat0 : memref<2xf32>) {
    loop.for free %a0 < 2 {
      %acc = loop.for reduce %r0 < 4 -> f32 {
        %0 = loop.for reduce %r1 < 6 -> f32 {
          %1 = loop.for reduce %r2 < 8 -> f32 {
            %in = loop.load %x[%a0, %r0, %r1, %r2] : memref<2x4x6x8xf32>
            loop.accumulate add %in : f32
          }
          loop.accumulate add %1 : f32
        }
        loop.accumulate add %0 : f32
      }
      loop.store %acc, %stat0[%a0] : memref<2xf32>
    }
  }
  %stat1 = memref.alloc() : memref<2xf32>
  loop.kernel @k_stat1 ins(%x, %stat0 : memref<2x4x6x8xf32>, memref<2xf32>) outs(%stat1 : memref<2xf32>) {
    %inv = arith.constant 0.00520833349 : f32
    loop.for free %a0 < 2 {
      %s = loop.load %stat0[%a0] : memref<2xf32>
      %m = arith.mulf %s, %inv : f32
      %acc = loop.for reduce %r0 < 4 -> f32 {
        %0 = loop.for reduce %r1 < 6 -> f32 {
          %1 = loop.for reduce %r2 < 8 -> f32 {
            %v = loop.load %x[%a0, %r0, %r1, %r2] : memref<2x4x6x8xf32>
            %d = arith.subf %v, %m : f32
            %d2 = arith.mulf %d, %d : f32
            loop.accumulate add %d2 : f32
          }
          loop.accumulate add %1 : f32
        }
        loop.accumulate add %0 : f32
      }
      loop.store %acc, %stat1[%a0] : memref<2xf32>
    }
  }
  func.return %stat1 : memref<2xf32>
}
// CHECK:         %stat0_chunk_sum = memref.alloc() : memref<2x4x3xf32>
// CHECK-NEXT:    %stat0_chunk_dev = memref.alloc() : memref<2x4x3xf32>
// CHECK-NEXT:    %stat0_chunk_sq = memref.alloc() : memref<2x4x3xf32>
// CHECK-NEXT:    loop.kernel @k_stat0_chunks ins(%x : memref<2x4x6x8xf32>) outs(%stat0_chunk_sum, %stat0_chunk_dev, %stat0_chunk_sq : memref<2x4x3xf32>, memref<2x4x3xf32>, memref<2x4x3xf32>) {
// CHECK-NEXT:      %[[INV:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-NEXT:      loop.for free %a0 < 2 {
// CHECK-NEXT:        loop.for free %c0 < 4 {
// CHECK-NEXT:          loop.for free %c1 < 3 {
// CHECK-NEXT:            %sum = loop.for reduce %r0 < 2 -> f32 {
// CHECK-NEXT:              %{{.*}} = loop.for reduce %r1 < 8 -> f32 {
// CHECK-NEXT:                %v = loop.load %x[%a0, %c0, %c1 * 2 + %r0, %r1] : memref<2x4x6x8xf32>
// CHECK:                 %mean = arith.mulf %sum, %[[INV]] : f32
// CHECK-NEXT:            %dev, %sq = loop.for reduce %r0_1 < 2 -> f32, f32 {
// CHECK-NEXT:              %{{.*}}, %{{.*}} = loop.for reduce %r1_1 < 8 -> f32, f32 {
// CHECK-NEXT:                %v_1 = loop.load %x[%a0, %c0, %c1 * 2 + %r0_1, %r1_1] : memref<2x4x6x8xf32>
// CHECK-NEXT:                %[[D:.*]] = arith.subf %v_1, %mean : f32
// CHECK-NEXT:                %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:                loop.accumulate add %[[D]], add %[[D2]] : f32, f32
// CHECK:                 loop.store %sum, %stat0_chunk_sum[%a0, %c0, %c1] : memref<2x4x3xf32>
// CHECK-NEXT:            loop.store %dev, %stat0_chunk_dev[%a0, %c0, %c1] : memref<2x4x3xf32>
// CHECK-NEXT:            loop.store %sq, %stat0_chunk_sq[%a0, %c0, %c1] : memref<2x4x3xf32>
// CHECK:         loop.kernel @k_stat0 ins(%stat0_chunk_sum : memref<2x4x3xf32>) outs(%stat0 : memref<2xf32>) {
// CHECK-NEXT:      loop.for free %a0_1 < 2 {
// CHECK-NEXT:        %acc = loop.for reduce %c0_1 < 4 -> f32 {
// CHECK-NEXT:          %{{.*}} = loop.for reduce %c1_1 < 3 -> f32 {
// CHECK-NEXT:            %{{.*}} = loop.load %stat0_chunk_sum[%a0_1, %c0_1, %c1_1] : memref<2x4x3xf32>
// CHECK:         loop.kernel @k_stat1 ins(%stat0, %stat0_chunk_sum, %stat0_chunk_dev, %stat0_chunk_sq : memref<2xf32>, memref<2x4x3xf32>, memref<2x4x3xf32>, memref<2x4x3xf32>) outs(%stat1 : memref<2xf32>) {
// CHECK:             %m = arith.mulf %s, %inv : f32
// CHECK-NEXT:        %[[INV2:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-NEXT:        %[[L:.*]] = arith.constant 1.600000e+01 : f32
// CHECK-NEXT:        %acc_1 = loop.for reduce %c0_2 < 4 -> f32 {
// CHECK-NEXT:          %{{.*}} = loop.for reduce %c1_2 < 3 -> f32 {
// CHECK-NEXT:            %[[S:.*]] = loop.load %stat0_chunk_sum[%a0_2, %c0_2, %c1_2] : memref<2x4x3xf32>
// CHECK-NEXT:            %[[E:.*]] = loop.load %stat0_chunk_dev[%a0_2, %c0_2, %c1_2] : memref<2x4x3xf32>
// CHECK-NEXT:            %[[Q:.*]] = loop.load %stat0_chunk_sq[%a0_2, %c0_2, %c1_2] : memref<2x4x3xf32>
// CHECK-NEXT:            %[[MC:.*]] = arith.mulf %[[S]], %[[INV2]] : f32
// CHECK-NEXT:            %[[DM:.*]] = arith.subf %[[MC]], %m : f32
// CHECK-NEXT:            %[[LDM:.*]] = arith.mulf %[[DM]], %[[L]] : f32
// CHECK-NEXT:            %[[E2:.*]] = arith.addf %[[E]], %[[E]] : f32
// CHECK-NEXT:            %[[IN:.*]] = arith.addf %[[E2]], %[[LDM]] : f32
// CHECK-NEXT:            %[[T:.*]] = arith.mulf %[[DM]], %[[IN]] : f32
// CHECK-NEXT:            %[[V:.*]] = arith.addf %[[Q]], %[[T]] : f32
// CHECK-NEXT:            loop.accumulate add %[[V]] : f32

// -----

func.func @main(%x: memref<3x40xf32>) -> memref<3xf32> {
  %stat0 = memref.alloc() : memref<3xf32>
  loop.kernel @k_sum ins(%x : memref<3x40xf32>) outs(%stat0 : memref<3xf32>) {
    loop.for free %a0 < 3 {
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %in = loop.load %x[%a0, %r0] : memref<3x40xf32>
        loop.accumulate add %in : f32
      }
      loop.store %acc, %stat0[%a0] : memref<3xf32>
    }
  }
  %stat1 = memref.alloc() : memref<3xf32>
  loop.kernel @k_var ins(%x, %stat0 : memref<3x40xf32>, memref<3xf32>) outs(%stat1 : memref<3xf32>) {
    %inv = arith.constant 0.025 : f32
    loop.for free %a0 < 3 {
      %s = loop.load %stat0[%a0] : memref<3xf32>
      %m = arith.mulf %s, %inv : f32
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<3x40xf32>
        %d = arith.subf %v, %m : f32
        %d2 = arith.mulf %d, %d : f32
        loop.accumulate add %d2 : f32
      }
      loop.store %acc, %stat1[%a0] : memref<3xf32>
    }
  }
  func.return %stat1 : memref<3xf32>
}
// CHECK-LABEL: loop.kernel @k_sum_chunks
// CHECK:         loop.for free %c0 < 2 {
// CHECK-NEXT:      %sum = loop.for reduce %r0 < 20 -> f32 {
// CHECK-NEXT:        %v = loop.load %x[%a0, %c0 * 20 + %r0] : memref<3x40xf32>
// CHECK:         loop.kernel @k_sum ins(%sum_chunk_sum : memref<3x2xf32>)
// CHECK:         loop.kernel @k_var ins(%stat0, %sum_chunk_sum, %sum_chunk_dev, %sum_chunk_sq : memref<3xf32>, memref<3x2xf32>, memref<3x2xf32>, memref<3x2xf32>)
// SHORT-LABEL: func.func @main(%x: memref<3x40xf32>) -> memref<3xf32>
// SHORT-NOT:   _chunks
// SHORT:         loop.kernel @k_var ins(%x, %stat0 : memref<3x40xf32>, memref<3xf32>)

// -----

// Declined: the variance's kernel follows a kernel that sums another buffer.
func.func @main(%x: memref<3x40xf32>, %y: memref<3x40xf32>) -> memref<3xf32> {
  %stat0 = memref.alloc() : memref<3xf32>
  loop.kernel @k_other ins(%y : memref<3x40xf32>) outs(%stat0 : memref<3xf32>) {
    loop.for free %a0 < 3 {
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %in = loop.load %y[%a0, %r0] : memref<3x40xf32>
        loop.accumulate add %in : f32
      }
      loop.store %acc, %stat0[%a0] : memref<3xf32>
    }
  }
  %stat1 = memref.alloc() : memref<3xf32>
  loop.kernel @k_var_alone ins(%x, %stat0 : memref<3x40xf32>, memref<3xf32>) outs(%stat1 : memref<3xf32>) {
    loop.for free %a0 < 3 {
      %m = loop.load %stat0[%a0] : memref<3xf32>
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<3x40xf32>
        %d = arith.subf %v, %m : f32
        %d2 = arith.mulf %d, %d : f32
        loop.accumulate add %d2 : f32
      }
      loop.store %acc, %stat1[%a0] : memref<3xf32>
    }
  }
  func.return %stat1 : memref<3xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<3x40xf32>, %y: memref<3x40xf32>)
// CHECK-NOT:   _chunks
// CHECK:         loop.kernel @k_var_alone ins(%x, %stat0 : memref<3x40xf32>, memref<3xf32>)

// -----

// Declined: a row of 12 is shorter than one chunk of at least 16.
func.func @main(%x: memref<3x12xf32>) -> memref<3xf32> {
  %stat0 = memref.alloc() : memref<3xf32>
  loop.kernel @k_short_sum ins(%x : memref<3x12xf32>) outs(%stat0 : memref<3xf32>) {
    loop.for free %a0 < 3 {
      %acc = loop.for reduce %r0 < 12 -> f32 {
        %in = loop.load %x[%a0, %r0] : memref<3x12xf32>
        loop.accumulate add %in : f32
      }
      loop.store %acc, %stat0[%a0] : memref<3xf32>
    }
  }
  %stat1 = memref.alloc() : memref<3xf32>
  loop.kernel @k_short_var ins(%x, %stat0 : memref<3x12xf32>, memref<3xf32>) outs(%stat1 : memref<3xf32>) {
    loop.for free %a0 < 3 {
      %m = loop.load %stat0[%a0] : memref<3xf32>
      %acc = loop.for reduce %r0 < 12 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<3x12xf32>
        %d = arith.subf %v, %m : f32
        %d2 = arith.mulf %d, %d : f32
        loop.accumulate add %d2 : f32
      }
      loop.store %acc, %stat1[%a0] : memref<3xf32>
    }
  }
  func.return %stat1 : memref<3xf32>
}
// CHECK-LABEL: loop.kernel @k_short_sum ins(%x : memref<3x12xf32>)
// CHECK-NOT:   _chunks
// CHECK:         loop.kernel @k_short_var ins(%x, %stat0 : memref<3x12xf32>, memref<3xf32>)
