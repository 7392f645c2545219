// RUN: dpl-opt %s --pass-pipeline='dedup-loads' | filecheck %s
// Two loads of the same element and two identical reductions become one each; a load of a
// different element stays.

func.func @main(%x: memref<4x8xf64>) -> memref<4x8xf64> {
  %o = memref.alloc() : memref<4x8xf64>
  loop.kernel @k ins(%x : memref<4x8xf64>) outs(%o : memref<4x8xf64>) {
    loop.for free %i < 4 {
      %s1 = loop.for reduce %k < 8 -> f64 {
        %v = loop.load %x[%i, %k] : memref<4x8xf64>
        loop.accumulate max %v : f64
      }
      %s2 = loop.for reduce %k2 < 8 -> f64 {
        %v2 = loop.load %x[%i, %k2] : memref<4x8xf64>
        loop.accumulate max %v2 : f64
      }
      loop.for free %j < 8 {
        %a = loop.load %x[%i, %j] : memref<4x8xf64>
        %b = loop.load %x[%i, %j] : memref<4x8xf64>
        %c = loop.load %x[%i, 0] : memref<4x8xf64>
        %t = arith.addf %a, %b : f64
        %u = arith.addf %t, %c : f64
        %w = arith.subf %u, %s2 : f64
        %z = arith.subf %w, %s1 : f64
        loop.store %z, %o[%i, %j] : memref<4x8xf64>
      }
    }
  }
  func.return %o : memref<4x8xf64>
}

// CHECK:      %s1 = loop.for reduce %k < 8 -> f64 {
// CHECK-NOT:  loop.for reduce
// CHECK:      %a = loop.load %x[%i, %j] : memref<4x8xf64>
// CHECK-NEXT: %c = loop.load %x[%i, 0] : memref<4x8xf64>
// CHECK-NEXT: %t = arith.addf %a, %a : f64
// CHECK-NEXT: %u = arith.addf %t, %c : f64
// CHECK-NEXT: %w = arith.subf %u, %s1 : f64
// CHECK-NEXT: %z = arith.subf %w, %s1 : f64
