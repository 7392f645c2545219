// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-epilogue' | filecheck %s
// split-epilogue: a contraction kernel's epilogue (the ops between its reduce and its store)
// moves to a kernel of its own, reading the contraction's result from a new buffer; the
// contraction kernel stores it plainly (so split-matmul-k can split its K).

// SwiGLU's up projection with silu(gate) * up fused: the silu and the product move out.
func.func @main(%g: memref<4x8xf64>, %x: memref<4x16xf64>, %w: memref<8x16xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_mul ins(%g, %x, %w : memref<4x8xf64>, memref<4x16xf64>, memref<8x16xf64>) outs(%out : memref<4x8xf64>) {
    %one = arith.constant 1.000000e+00 : f64
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %gv = loop.load %g[%i, %j] : memref<4x8xf64>
        %n = arith.negf %gv : f64
        %e = math.exp %n : f64
        %d = arith.addf %one, %e : f64
        %s = arith.divf %gv, %d : f64
        %acc = loop.for reduce %r < 16 -> f64 {
          %a = loop.load %x[%i, %r] : memref<4x16xf64>
          %b = loop.load %w[%j, %r] : memref<8x16xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        %v = arith.mulf %s, %acc : f64
        loop.store %v, %out[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %out : memref<4x8xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         %out = memref.alloc() : memref<4x8xf64>
// CHECK-NEXT:    %mul_acc = memref.alloc() : memref<4x8xf64>
// CHECK-NEXT:    loop.kernel @k_mul_acc ins(%x, %w : memref<4x16xf64>, memref<8x16xf64>) outs(%mul_acc : memref<4x8xf64>) {
// CHECK-NEXT:      loop.for free %i < 4 {
// CHECK-NEXT:        loop.for free %j < 8 {
// CHECK-NEXT:          %acc = loop.for reduce %r < 16 -> f64 {
// CHECK:                 loop.accumulate add %p : f64
// CHECK-NEXT:          }
// CHECK-NEXT:          loop.store %acc, %mul_acc[%i, %j] : memref<4x8xf64>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.kernel @k_mul ins(%g, %mul_acc : memref<4x8xf64>, memref<4x8xf64>) outs(%out : memref<4x8xf64>) {
// CHECK-NEXT:      %one = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      loop.for free %i{{.*}} < 4 {
// CHECK-NEXT:        loop.for free %j{{.*}} < 8 {
// CHECK-NEXT:          %gv = loop.load %g[%i{{.*}}, %j{{.*}}] : memref<4x8xf64>
// CHECK:               %s = arith.divf %gv, %d : f64
// CHECK-NEXT:          %acc{{.*}} = loop.load %mul_acc[%i{{.*}}, %j{{.*}}] : memref<4x8xf64>
// CHECK-NEXT:          %v = arith.mulf %s, %acc{{.*}} : f64
// CHECK-NEXT:          loop.store %v, %out[%i{{.*}}, %j{{.*}}] : memref<4x8xf64>
// CHECK-NOT:     loop.for reduce

// -----

// Declined: the contraction's result is stored as it is (nothing to split off).
func.func @main(%x: memref<4x16xf64>, %w: memref<8x16xf64>) -> memref<4x8xf64> {
  %out = memref.alloc() : memref<4x8xf64>
  loop.kernel @k_plain ins(%x, %w : memref<4x16xf64>, memref<8x16xf64>) outs(%out : memref<4x8xf64>) {
    loop.for free %i < 4 {
      loop.for free %j < 8 {
        %acc = loop.for reduce %r < 16 -> f64 {
          %a = loop.load %x[%i, %r] : memref<4x16xf64>
          %b = loop.load %w[%j, %r] : memref<8x16xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.store %acc, %out[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %out : memref<4x8xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         %out = memref.alloc() : memref<4x8xf64>
// CHECK-NEXT:    loop.kernel @k_plain ins(%x, %w
// CHECK-NOT:     loop.kernel
