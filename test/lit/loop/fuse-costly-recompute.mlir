// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-loops' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='fuse-loops{max-costly-recompute=2}' | filecheck %s --check-prefix=LOW
// A fusion into a consumer that is no contraction adds at most max-costly-recompute (32)
// transcendentals and divisions per output of the consumer. @k_scan, a cumulative sum of 4 per
// row written as a masked sum (each output sums its row's first o + 1 values), reads each exp 4
// times: fused, 3 more exps per output. By default the exp fuses into its reduce body; with
// max-costly-recompute=2 it declines and @k_exp stays a kernel. Second, a gate
// `x * exp(g)[:, None]` fuses whatever the limit: its exp is hoisted beside the row loop, no
// more exps than apart.

func.func @main(%x: memref<3x4xf32>) -> memref<3x4xf32> {
  %e = memref.alloc() : memref<3x4xf32>
  loop.kernel @k_exp ins(%x : memref<3x4xf32>) outs(%e : memref<3x4xf32>) {
    loop.for free %n < 3 {
      loop.for free %i < 4 {
        %v = loop.load %x[%n, %i] : memref<3x4xf32>
        %w = math.exp %v : f32
        loop.store %w, %e[%n, %i] : memref<3x4xf32>
      }
    }
  }
  %y = memref.alloc() : memref<3x4xf32>
  loop.kernel @k_scan ins(%e : memref<3x4xf32>) outs(%y : memref<3x4xf32>) {
    %zero = arith.constant 0.0 : f32
    loop.for free %n < 3 {
      loop.for free %o < 4 {
        %acc = loop.for reduce %k < 4 -> f32 {
          %u = loop.load %e[%n, %k] : memref<3x4xf32>
          %in = arith.cmpi ule, %k, %o : index
          %s = arith.select %in, %u, %zero : f32
          loop.accumulate add %s : f32
        }
        loop.store %acc, %y[%n, %o] : memref<3x4xf32>
      }
    }
  }
  func.return %y : memref<3x4xf32>
}
// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.kernel @k_exp
// CHECK:         loop.kernel @k_scan ins(%x : memref<3x4xf32>) outs(%y : memref<3x4xf32>)
// CHECK:           loop.for reduce
// CHECK:             math.exp

// LOW-LABEL: func.func @main
// LOW:         loop.kernel @k_exp ins(%x : memref<3x4xf32>) outs(%e : memref<3x4xf32>)
// LOW:         loop.kernel @k_scan ins(%e : memref<3x4xf32>) outs(%y : memref<3x4xf32>)
// LOW-NOT:       math.exp

// -----

func.func @main(%x: memref<3x64xf32>, %g: memref<3xf32>) -> memref<3x64xf32> {
  %e = memref.alloc() : memref<3xf32>
  loop.kernel @k_exp ins(%g : memref<3xf32>) outs(%e : memref<3xf32>) {
    loop.for free %n < 3 {
      %v = loop.load %g[%n] : memref<3xf32>
      %w = math.exp %v : f32
      loop.store %w, %e[%n] : memref<3xf32>
    }
  }
  %y = memref.alloc() : memref<3x64xf32>
  loop.kernel @k_gate ins(%x, %e : memref<3x64xf32>, memref<3xf32>) outs(%y : memref<3x64xf32>) {
    loop.for free %n < 3 {
      loop.for free %i < 64 {
        %u = loop.load %x[%n, %i] : memref<3x64xf32>
        %s = loop.load %e[%n] : memref<3xf32>
        %p = arith.mulf %u, %s : f32
        loop.store %p, %y[%n, %i] : memref<3x64xf32>
      }
    }
  }
  func.return %y : memref<3x64xf32>
}
// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.kernel @k_exp
// CHECK:         loop.kernel @k_gate ins(%x, %g : memref<3x64xf32>, memref<3xf32>)
// CHECK:           math.exp

// LOW-LABEL: func.func @main
// LOW-NOT:       loop.kernel @k_exp
// LOW:           loop.kernel @k_gate ins(%x, %g : memref<3x64xf32>, memref<3xf32>)
