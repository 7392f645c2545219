// RUN: dpl-opt %s --pass-pipeline='dedup-loads' | filecheck %s
// A repeated reduce loop whose own body repeats a load: the second loop is replaced by the
// first, and only the first's body is merged (the replaced loop's blocks are gone with it, not
// visited: visiting them was "Cannot replace an operation without a parent", session 45).

func.func @main(%x: memref<4x8xf64>) -> memref<4xf64> {
  %o = memref.alloc() : memref<4xf64>
  loop.kernel @k ins(%x : memref<4x8xf64>) outs(%o : memref<4xf64>) {
    loop.for free %i < 4 {
      %s1 = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %x[%i, %k] : memref<4x8xf64>
        %b = loop.load %x[%i, %k] : memref<4x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      %s2 = loop.for reduce %k2 < 8 -> f64 {
        %a2 = loop.load %x[%i, %k2] : memref<4x8xf64>
        %b2 = loop.load %x[%i, %k2] : memref<4x8xf64>
        %p2 = arith.mulf %a2, %b2 : f64
        loop.accumulate add %p2 : f64
      }
      %t = arith.addf %s1, %s2 : f64
      loop.store %t, %o[%i] : memref<4xf64>
    }
  }
  func.return %o : memref<4xf64>
}

// CHECK:      loop.for free %i < 4 {
// CHECK-NEXT:   %s1 = loop.for reduce %k < 8 -> f64 {
// CHECK-NEXT:     %a = loop.load %x[%i, %k] : memref<4x8xf64>
// CHECK-NEXT:     %p = arith.mulf %a, %a : f64
// CHECK-NEXT:     loop.accumulate add %p : f64
// CHECK-NEXT:   }
// CHECK-NEXT:   %t = arith.addf %s1, %s1 : f64
// CHECK-NEXT:   loop.store %t, %o[%i] : memref<4xf64>
// CHECK-NOT:  loop.for reduce
