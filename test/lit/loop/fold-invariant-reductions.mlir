// RUN: dpl-opt %s --split-input-file --pass-pipeline='fold-invariant-reductions' | filecheck %s
// fold-invariant-reductions: a reduce loop holding only its accumulate of values defined outside
// it is their closed form (add: v * n + 0.0, integers v * n; max / min: v). Cases: a float sum,
// a max and an integer sum in one kernel (the kernel left pointwise); declined: a product over 8,
// a sum of what the loop loads, a loop that computes its value inside.

func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    %c = arith.constant -0.5 : f32
    %n = arith.constant 3 : i64
    %s, %m = loop.for reduce %r < 8 -> f32, f32 {
      loop.accumulate add %c, max %c : f32, f32
    }
    %i = loop.for reduce %r < 8 -> i64 {
      loop.accumulate add %n : i64
    }
    %f = arith.sitofp %i : i64 to f32
    loop.for free %a < 4 {
      %v = loop.load %x[%a] : memref<4xf32>
      %w = arith.addf %v, %s : f32
      %w2 = arith.mulf %w, %m : f32
      %w3 = arith.addf %w2, %f : f32
      loop.store %w3, %y[%a] : memref<4xf32>
    }
  }
  func.return %y : memref<4xf32>
}
// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.for reduce
// CHECK:         %[[C:.*]] = arith.constant -5.000000e-01 : f32
// CHECK:         %[[N:.*]] = arith.constant 3 : i64
// CHECK:         %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[C]], %[[EIGHT]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[P]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[EIGHTI:.*]] = arith.constant 8 : i64
// CHECK-NEXT:    %[[I:.*]] = arith.muli %[[N]], %[[EIGHTI]] : i64
// CHECK-NEXT:    %f = arith.sitofp %[[I]] : i64 to f32
// CHECK:           %w = arith.addf %v, %[[S]] : f32
// CHECK-NEXT:      %w2 = arith.mulf %w, %[[C]] : f32

// -----

func.func @main(%x: memref<4x8xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
    %c = arith.constant 1.5 : f32
    %p = loop.for reduce %r < 8 -> f32 {
      loop.accumulate mul %c : f32
    }
    loop.for free %a < 4 {
      %s = loop.for reduce %r < 8 -> f32 {
        %v = loop.load %x[%a, %r] : memref<4x8xf32>
        loop.accumulate add %v : f32
      }
      %t = loop.for reduce %r < 8 -> f32 {
        %d = arith.mulf %c, %c : f32
        loop.accumulate add %d : f32
      }
      %u = arith.addf %s, %t : f32
      %w = arith.addf %u, %p : f32
      loop.store %w, %y[%a] : memref<4xf32>
    }
  }
  func.return %y : memref<4xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         %p = loop.for reduce %r < 8 -> f32 {
// CHECK-NEXT:      loop.accumulate mul %c : f32
// CHECK:           %s = loop.for reduce %r{{.*}} < 8 -> f32 {
// CHECK:           %t = loop.for reduce %r{{.*}} < 8 -> f32 {
// CHECK-NEXT:        %d = arith.mulf %c, %c : f32
