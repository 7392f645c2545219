// RUN: not dpl-translate --to-cuda %s 2>&1 | filecheck %s
// An op with no CUDA form ends in one located line naming it, not a traceback.

kernel.func @k(%x: memref<32xi32>, %y: memref<32xi32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xi32>
  %n = math.ctpop %v : i32
  kernel.store %n, %y[%t] : memref<32xi32>
}

// CHECK: dpl-translate: {{.*}}errors.mlir:7:3: error: 'math.ctpop' has no CUDA lowering
// CHECK-NOT: Traceback
