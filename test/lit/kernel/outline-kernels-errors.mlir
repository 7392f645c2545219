// RUN: not dpl-opt %s --split-input-file --pass-pipeline='builtin.module(outline-kernels)' 2>&1 | filecheck %s
// outline-kernels refuses a kernel that takes one buffer twice, the second time through a
// loop.view (the launch would pass it twice, and the CUDA says no two buffers overlap).

func.func @main(%x: memref<4x8xf32>) -> memref<32xf32> {
  %xv = loop.view %x : memref<4x8xf32> -> memref<32xf32>
  %y = memref.alloc() : memref<32xf32>
  tile.kernel @k_twice ins(%x, %xv : memref<4x8xf32>, memref<32xf32>) outs(%y : memref<32xf32>) {
    tile.tile (%t : 32 = thread) {
      %v = loop.load %xv[%t] : memref<32xf32>
      loop.store %v, %y[%t] : memref<32xf32>
    }
  }
  func.return %y : memref<32xf32>
}
// CHECK: dpl-opt: error: materialize: @k_twice: 'tile.kernel' passes one buffer twice
// CHECK-NOT: Traceback
