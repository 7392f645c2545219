// RUN: not dpl-opt %s --pass-pipeline=materialize 2>&1 | filecheck %s
// An op with no kernel-level lowering inside a tile kernel is a one-line error naming the op
// and the kernel.

func.func @main(%x: memref<32xf64>) -> memref<32xf64> {
  %y = memref.alloc() : memref<32xf64>
  tile.kernel @k_scratch ins(%x : memref<32xf64>) outs(%y : memref<32xf64>) {
    tile.tile (%t : 32 = thread) {
      %s = memref.alloca() : memref<4xf64>
      %v = loop.load %x[%t] : memref<32xf64>
      loop.store %v, %y[%t] : memref<32xf64>
    }
  }
  func.return %y : memref<32xf64>
}

// CHECK: materialize: @k_scratch: 'memref.alloca' is not supported inside a tile kernel
// CHECK-NOT: Traceback
