// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-nests' | filecheck %s
// A concat kernel (one nest per operand) becomes one kernel per nest; a one-nest kernel stays.

func.func @main(%x: memref<4x3xf32>, %y: memref<4x5xf32>) -> memref<4x8xf32> {
  %cat = memref.alloc() : memref<4x8xf32>
  loop.kernel @k_cat ins(%x, %y : memref<4x3xf32>, memref<4x5xf32>) outs(%cat : memref<4x8xf32>) {
    loop.for free %a0 < 4 {
      loop.for free %a1 < 3 {
        %in = loop.load %x[%a0, %a1] : memref<4x3xf32>
        loop.store %in, %cat[%a0, %a1] : memref<4x8xf32>
      }
    }
    loop.for free %a0_1 < 4 {
      loop.for free %a1_1 < 5 {
        %a = loop.load %y[%a0_1, %a1_1] : memref<4x5xf32>
        %in_1 = arith.negf %a : f32
        loop.store %in_1, %cat[%a0_1, %a1_1 + 3] : memref<4x8xf32>
      }
    }
  }
  func.return %cat : memref<4x8xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<4x3xf32>, %y: memref<4x5xf32>)
// CHECK:         loop.kernel @k_cat ins(%x : memref<4x3xf32>) outs(%cat : memref<4x8xf32>) {
// CHECK-NEXT:      loop.for free %a0 < 4 {
// CHECK-NEXT:        loop.for free %a1 < 3 {
// CHECK-NEXT:          %in = loop.load %x[%a0, %a1] : memref<4x3xf32>
// CHECK-NEXT:          loop.store %in, %cat[%a0, %a1] : memref<4x8xf32>
// CHECK:         loop.kernel @k_cat_part1 ins(%y : memref<4x5xf32>) outs(%cat : memref<4x8xf32>) {
// CHECK-NEXT:      loop.for free %a0_1 < 4 {
// CHECK-NEXT:        loop.for free %a1_1 < 5 {
// CHECK-NEXT:          %a = loop.load %y[%a0_1, %a1_1] : memref<4x5xf32>
// CHECK-NEXT:          %in_1 = arith.negf %a : f32
// CHECK-NEXT:          loop.store %in_1, %cat[%a0_1, %a1_1 + 3] : memref<4x8xf32>
// CHECK:         func.return %cat

// -----

func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  loop.kernel @k_one ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    loop.for free %i < 4 {
      %v = loop.load %x[%i] : memref<4xf32>
      loop.store %v, %y[%i] : memref<4xf32>
    }
  }
  func.return %y : memref<4xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<4xf32>)
// CHECK:         loop.kernel @k_one ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
// CHECK-NOT:     loop.kernel
