// RUN: dpl-opt %s | dpl-opt | filecheck %s
// A host program: @main allocates the intermediate and launches the kernels in order.

kernel.func @k_copy(%x: memref<4xf32>, %y: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<4xf32>
  kernel.store %v, %y[%t] : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %t = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  kernel.launch @k_copy(%x, %t) : memref<4xf32>, memref<4xf32>
  kernel.launch @k_copy(%t, %y) : memref<4xf32>, memref<4xf32>
  func.return %y : memref<4xf32>
}

// CHECK:      func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
// CHECK:        kernel.launch @k_copy(%x, %t) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:   kernel.launch @k_copy(%t, %y) : memref<4xf32>, memref<4xf32>

// A kernel may take a buffer as its flat view: memref<12xf32> for memref<3x4xf32> (flatten-buffers).
kernel.func @k_flat(%x: memref<12xf32>) grid [1, 1, 1] block [12, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<12xf32>
  kernel.store %v, %x[%t] : memref<12xf32>
}
func.func @flat(%x: memref<3x4xf32>) {
  kernel.launch @k_flat(%x) : memref<3x4xf32>
  func.return
}
// CHECK:      func.func @flat(%x: memref<3x4xf32>) {
// CHECK-NEXT:   kernel.launch @k_flat(%x) : memref<3x4xf32>

// Or as any row-major view of it: memref<2x12xf32> for memref<2x3x4xf32> (merge-dims).
kernel.func @k_rows(%x: memref<2x12xf32>) grid [2, 1, 1] block [12, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %v = kernel.load %x[%b, %t] : memref<2x12xf32>
  kernel.store %v, %x[%b, %t] : memref<2x12xf32>
}
func.func @rows(%x: memref<2x3x4xf32>) {
  kernel.launch @k_rows(%x) : memref<2x3x4xf32>
  func.return
}
// CHECK:      func.func @rows(%x: memref<2x3x4xf32>) {
// CHECK-NEXT:   kernel.launch @k_rows(%x) : memref<2x3x4xf32>
