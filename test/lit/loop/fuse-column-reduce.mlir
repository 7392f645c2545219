// RUN: dpl-opt %s --pass-pipeline='fuse-loops' --split-input-file | filecheck %s
// A reduction over a dim that is not the innermost (RMSNorm over the channels of (N, C, W)) is
// read by its consumer inside a loop over the reduced dim (c here), which the statistic does not
// depend on. fuse-loops first moves that loop innermost (free loops run in any order), so the
// inlined reduction is hoisted to run once per (n, w), beside a loop over c that normalizes:
// one kernel, no recomputed reduction, the statistic never in memory.

func.func @main(%x: memref<2x40x5xf32>, %w: memref<40xf32>) -> memref<2x40x5xf32> {
  %red = memref.alloc() : memref<2x1x5xf32>
  loop.kernel @k_red ins(%x : memref<2x40x5xf32>) outs(%red : memref<2x1x5xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 1 {
        loop.for free %a2 < 5 {
          %acc = loop.for reduce %r < 40 -> f32 {
            %v = loop.load %x[%a0, %r, %a2] : memref<2x40x5xf32>
            %sq = arith.mulf %v, %v : f32
            loop.accumulate add %sq : f32
          }
          loop.store %acc, %red[%a0, %a1, %a2] : memref<2x1x5xf32>
        }
      }
    }
  }
  %out = memref.alloc() : memref<2x40x5xf32>
  loop.kernel @k_mul ins(%x, %w, %red : memref<2x40x5xf32>, memref<40xf32>, memref<2x1x5xf32>) outs(%out : memref<2x40x5xf32>) {
    loop.for free %b0 < 2 {
      loop.for free %b1 < 40 {
        loop.for free %b2 < 5 {
          %v = loop.load %x[%b0, %b1, %b2] : memref<2x40x5xf32>
          %s = loop.load %red[%b0, 0, %b2] : memref<2x1x5xf32>
          %r = math.rsqrt %s : f32
          %n = arith.mulf %v, %r : f32
          %g = loop.load %w[%b1] : memref<40xf32>
          %o = arith.mulf %n, %g : f32
          loop.store %o, %out[%b0, %b1, %b2] : memref<2x40x5xf32>
        }
      }
    }
  }
  func.return %out : memref<2x40x5xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<2x40x5xf32>, %w: memref<40xf32>)
// CHECK-NOT:     loop.kernel @k_red
// CHECK:         loop.kernel @k_mul ins(%x, %w : memref<2x40x5xf32>, memref<40xf32>) outs(%out : memref<2x40x5xf32>) {
// CHECK-NEXT:      loop.for free %b0 < 2 {
// CHECK-NEXT:        loop.for free %b2 < 5 {
// CHECK-NEXT:          %[[ACC:.*]] = loop.for reduce %[[R:.*]] < 40 -> f32 {
// CHECK-NEXT:            %[[V:.*]] = loop.load %x[%b0, %[[R]], %b2] : memref<2x40x5xf32>
// CHECK-NEXT:            %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:            loop.accumulate add %[[SQ]] : f32
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[RS:.*]] = math.rsqrt %[[ACC]] : f32
// CHECK-NEXT:          loop.for free %b1 < 40 {
// CHECK-NEXT:            %[[X:.*]] = loop.load %x[%b0, %b1, %b2] : memref<2x40x5xf32>
// CHECK-NEXT:            %[[N:.*]] = arith.mulf %[[X]], %[[RS]] : f32
// CHECK-NEXT:            %[[G:.*]] = loop.load %w[%b1] : memref<40xf32>
// CHECK-NEXT:            %[[O:.*]] = arith.mulf %[[N]], %[[G]] : f32
// CHECK-NEXT:            loop.store %[[O]], %out[%b0, %b1, %b2] : memref<2x40x5xf32>

// -----

// Declined: a reduction longer than max-column-reduce (1024) per value keeps its own kernel (a
// column of 1200 is more than 32 lanes' registers hold; split statistics fill the GPU better).

func.func @main(%x: memref<2x1200x5xf32>) -> memref<2x1200x5xf32> {
  %red = memref.alloc() : memref<2x1x5xf32>
  loop.kernel @k_red ins(%x : memref<2x1200x5xf32>) outs(%red : memref<2x1x5xf32>) {
    loop.for free %a0 < 2 {
      loop.for free %a1 < 1 {
        loop.for free %a2 < 5 {
          %acc = loop.for reduce %r < 1200 -> f32 {
            %v = loop.load %x[%a0, %r, %a2] : memref<2x1200x5xf32>
            loop.accumulate add %v : f32
          }
          loop.store %acc, %red[%a0, %a1, %a2] : memref<2x1x5xf32>
        }
      }
    }
  }
  %out = memref.alloc() : memref<2x1200x5xf32>
  loop.kernel @k_div ins(%x, %red : memref<2x1200x5xf32>, memref<2x1x5xf32>) outs(%out : memref<2x1200x5xf32>) {
    loop.for free %b0 < 2 {
      loop.for free %b1 < 1200 {
        loop.for free %b2 < 5 {
          %v = loop.load %x[%b0, %b1, %b2] : memref<2x1200x5xf32>
          %s = loop.load %red[%b0, 0, %b2] : memref<2x1x5xf32>
          %o = arith.divf %v, %s : f32
          loop.store %o, %out[%b0, %b1, %b2] : memref<2x1200x5xf32>
        }
      }
    }
  }
  func.return %out : memref<2x1200x5xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<2x1200x5xf32>)
// CHECK:         loop.kernel @k_red
// CHECK:         loop.kernel @k_div ins(%x, %red : memref<2x1200x5xf32>, memref<2x1x5xf32>)
// CHECK-NEXT:      loop.for free %b0 < 2 {
// CHECK-NEXT:        loop.for free %b1 < 1200 {
