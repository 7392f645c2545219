// RUN: dpl-opt %s --pass-pipeline='drop-dead-buffers' | filecheck %s
// A kernel writing an intermediate nobody reads goes, with its allocation; the kernel writing the
// returned buffer stays.

func.func @main(%x: memref<8xf64>) -> memref<8xf64> {
  %dead = memref.alloc() : memref<8xf64>
  loop.kernel @k_dead ins(%x : memref<8xf64>) outs(%dead : memref<8xf64>) {
    loop.for free %i < 8 {
      %v = loop.load %x[%i] : memref<8xf64>
      loop.store %v, %dead[%i] : memref<8xf64>
    }
  }
  %o = memref.alloc() : memref<8xf64>
  loop.kernel @k_live ins(%x : memref<8xf64>) outs(%o : memref<8xf64>) {
    loop.for free %i < 8 {
      %v = loop.load %x[%i] : memref<8xf64>
      %w = math.exp %v : f64
      loop.store %w, %o[%i] : memref<8xf64>
    }
  }
  func.return %o : memref<8xf64>
}

// CHECK-LABEL: func.func @main
// CHECK-NOT:   @k_dead
// CHECK-NOT:   %dead
// CHECK:       %o = memref.alloc() : memref<8xf64>
// CHECK-NEXT:  loop.kernel @k_live
