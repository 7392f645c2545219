// RUN: dpl-opt %s --pass-pipeline='fuse-loops' | filecheck %s
// RUN: dpl-opt %s --pass-pipeline='fuse-loops{max-copied-ops=1}' | filecheck %s --check-prefix=LOW
// A kernel holds at most max-copied-ops (32) op executions per iteration copied from shared
// producers (producers other kernels still read, which stay), summed over its copies. A
// recurrence a2 = exp(a1), a1 = exp(x), each step also read by a matmul that keeps it apart
// (no exp in its reduce body): @k_y copies a2, then a1 through it (2 per iteration). With
// max-copied-ops=1 it declines the second copy and reads %a1; @k_a2 still copies a1 (1).

func.func @main(%x: memref<4x4xf32>, %w: memref<4x4xf32>) -> (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) {
  %a1 = memref.alloc() : memref<4x4xf32>
  loop.kernel @k_a1 ins(%x : memref<4x4xf32>) outs(%a1 : memref<4x4xf32>) {
    loop.for free %n < 4 {
      loop.for free %i < 4 {
        %v = loop.load %x[%n, %i] : memref<4x4xf32>
        %e = math.exp %v : f32
        loop.store %e, %a1[%n, %i] : memref<4x4xf32>
      }
    }
  }
  %m1 = memref.alloc() : memref<4x4xf32>
  loop.kernel @k_m1 ins(%a1, %w : memref<4x4xf32>, memref<4x4xf32>) outs(%m1 : memref<4x4xf32>) {
    loop.for free %n < 4 {
      loop.for free %j < 4 {
        %acc = loop.for reduce %k < 4 -> f32 {
          %u = loop.load %a1[%n, %k] : memref<4x4xf32>
          %v = loop.load %w[%k, %j] : memref<4x4xf32>
          %p = arith.mulf %u, %v : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %m1[%n, %j] : memref<4x4xf32>
      }
    }
  }
  %a2 = memref.alloc() : memref<4x4xf32>
  loop.kernel @k_a2 ins(%a1 : memref<4x4xf32>) outs(%a2 : memref<4x4xf32>) {
    loop.for free %n < 4 {
      loop.for free %i < 4 {
        %v = loop.load %a1[%n, %i] : memref<4x4xf32>
        %e = math.exp %v : f32
        loop.store %e, %a2[%n, %i] : memref<4x4xf32>
      }
    }
  }
  %m2 = memref.alloc() : memref<4x4xf32>
  loop.kernel @k_m2 ins(%a2, %w : memref<4x4xf32>, memref<4x4xf32>) outs(%m2 : memref<4x4xf32>) {
    loop.for free %n < 4 {
      loop.for free %j < 4 {
        %acc = loop.for reduce %k < 4 -> f32 {
          %u = loop.load %a2[%n, %k] : memref<4x4xf32>
          %v = loop.load %w[%k, %j] : memref<4x4xf32>
          %p = arith.mulf %u, %v : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %m2[%n, %j] : memref<4x4xf32>
      }
    }
  }
  %y = memref.alloc() : memref<4x4xf32>
  loop.kernel @k_y ins(%a2 : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
    loop.for free %n < 4 {
      loop.for free %i < 4 {
        %v = loop.load %a2[%n, %i] : memref<4x4xf32>
        %e = math.exp %v : f32
        loop.store %e, %y[%n, %i] : memref<4x4xf32>
      }
    }
  }
  func.return %m1, %m2, %y : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_a1 ins(%x : memref<4x4xf32>) outs(%a1 : memref<4x4xf32>)
// CHECK:         loop.kernel @k_m1 ins(%a1, %w : memref<4x4xf32>, memref<4x4xf32>)
// CHECK:         loop.kernel @k_a2 ins(%x : memref<4x4xf32>) outs(%a2 : memref<4x4xf32>)
// CHECK:         loop.kernel @k_m2 ins(%a2, %w : memref<4x4xf32>, memref<4x4xf32>)
// CHECK:         loop.kernel @k_y ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>)
// CHECK-COUNT-3:   math.exp
// CHECK-NOT:       math.exp

// LOW-LABEL: func.func @main
// LOW:         loop.kernel @k_a1 ins(%x : memref<4x4xf32>) outs(%a1 : memref<4x4xf32>)
// LOW:         loop.kernel @k_a2 ins(%x : memref<4x4xf32>) outs(%a2 : memref<4x4xf32>)
// LOW:         loop.kernel @k_y ins(%a1 : memref<4x4xf32>) outs(%y : memref<4x4xf32>)
// LOW:           loop.load %a1
// LOW-COUNT-2:   math.exp
// LOW-NOT:       math.exp
