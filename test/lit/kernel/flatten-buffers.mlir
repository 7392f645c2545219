// RUN: dpl-opt %s --split-input-file --pass-pipeline='flatten-buffers' | filecheck %s
// flatten-buffers makes a kernel take a buffer it indexes only by flat offsets (collapse-pointwise's
// `[e floordiv 7, e mod 7]`) as the 1-D buffer of its elements; the launch passes the same buffer.
// Cases: silu(x) * y over 4 x 7 after collapse-pointwise and vectorize-pointwise (all three
// flattened); declined: %x read at another index too (a column), a kernel with shared memory.

kernel.func @k_mul(%y: memref<4x7xf32>, %x: memref<4x7xf32>, %mul: memref<4x7xf32>) grid [1, 1, 1] block [7, 1, 1] smem 0 {
  %f_v = kernel.thread_id x
  kernel.for %f_l = 0 to 4 step 1 unroll {
    %a = kernel.load %x[(%f_v * 4 + %f_l) floordiv 7, (%f_v * 4 + %f_l) mod 7] : memref<4x7xf32>
    %b = kernel.load %y[(%f_v * 4 + %f_l) floordiv 7, (%f_v * 4 + %f_l) mod 7] : memref<4x7xf32>
    %r = arith.mulf %a, %b : f32
    kernel.store %r, %mul[(%f_v * 4 + %f_l) floordiv 7, (%f_v * 4 + %f_l) mod 7] : memref<4x7xf32>
  }
}
func.func @main(%x: memref<4x7xf32>, %y: memref<4x7xf32>) -> memref<4x7xf32> {
  %mul = memref.alloc() : memref<4x7xf32>
  kernel.launch @k_mul(%y, %x, %mul) : memref<4x7xf32>, memref<4x7xf32>, memref<4x7xf32>
  func.return %mul : memref<4x7xf32>
}
// CHECK-LABEL: kernel.func @k_mul(%y: memref<28xf32>, %x: memref<28xf32>, %mul: memref<28xf32>)
// CHECK:           %a = kernel.load %x[%f_v * 4 + %f_l] : memref<28xf32>
// CHECK-NEXT:      %b = kernel.load %y[%f_v * 4 + %f_l] : memref<28xf32>
// CHECK:           kernel.store %r, %mul[%f_v * 4 + %f_l] : memref<28xf32>
// CHECK:         kernel.launch @k_mul(%y, %x, %mul) : memref<4x7xf32>, memref<4x7xf32>, memref<4x7xf32>

// -----

kernel.func @k_col(%x: memref<4x7xf32>, %out: memref<4x7xf32>) grid [1, 1, 1] block [28, 1, 1] smem 0 {
  %f = kernel.thread_id x
  %a = kernel.load %x[%f floordiv 7, %f mod 7] : memref<4x7xf32>
  %c = kernel.load %x[%f floordiv 7, 0] : memref<4x7xf32>
  %r = arith.subf %a, %c : f32
  kernel.store %r, %out[%f floordiv 7, %f mod 7] : memref<4x7xf32>
}
// CHECK-LABEL: kernel.func @k_col(%x: memref<4x7xf32>, %out: memref<28xf32>)
// CHECK:         %c = kernel.load %x[%f floordiv 7, 0] : memref<4x7xf32>
// CHECK:         kernel.store %r, %out[%f] : memref<28xf32>

// -----

kernel.func @k_smem(%x: memref<4x7xf32>, %out: memref<4x7xf32>) grid [1, 1, 1] block [28, 1, 1] smem 0 {
  %f = kernel.thread_id x
  %s = kernel.smem : memref<28xf32, #kernel.smem>
  %a = kernel.load %x[%f floordiv 7, %f mod 7] : memref<4x7xf32>
  kernel.store %a, %s[%f] : memref<28xf32, #kernel.smem>
  kernel.barrier
  %b = kernel.load %s[27 - %f] : memref<28xf32, #kernel.smem>
  kernel.store %b, %out[%f floordiv 7, %f mod 7] : memref<4x7xf32>
}
// CHECK-LABEL: kernel.func @k_smem(%x: memref<4x7xf32>, %out: memref<4x7xf32>)
