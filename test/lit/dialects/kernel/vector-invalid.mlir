// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of the float4 vector forms.

kernel.func @k(%x: memref<64xf64>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4] vector 4 : memref<64xf64>
}
// CHECK: 'kernel.load' vector accesses move vector<4xf32> of an f32 buffer, got vector<4xf64>

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 2] vector 2 : memref<64xf32>
}
// CHECK: 'kernel.load' vector accesses move vector<4xf32> of an f32 buffer, got vector<2xf32>

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4] vector 4 : memref<64xf32>
  %r = kernel.alloca : memref<4xf32>
  kernel.store %v, %r[0] vector 4 : memref<4xf32>
}
// CHECK: 'kernel.store' vector accesses need a global or shared buffer

// -----

kernel.func @k(%x: memref<16x6xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t, 0] vector 4 : memref<16x6xf32>
}
// CHECK: 'kernel.load' vector accesses need a 1-D buffer or an innermost extent that is a multiple of 4

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4] vector 4 : memref<64xf32>
  %e = kernel.extract %v[4] : vector<4xf32>
}
// CHECK: 'kernel.extract' lane must be in [0, 4), got 4

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %c = arith.constant 1.0 : f32
  %p = kernel.pack %c, %c, %c : vector<4xf32>
}
// CHECK: 'kernel.pack' builds a vector<4xf32>, got vector<3xf32>


// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %p = arith.constant dense<1.0> : vector<2xf32>
  %e = kernel.extract %p[0] : vector<2xf32>
}
// CHECK: 'kernel.extract' takes a vector<4xf32>, got vector<2xf32>

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4] vector 4 : memref<64xf32>
  %e = "kernel.extract"(%v) <{lane = #builtin.int<0>}> : (vector<4xf32>) -> f64
}
// CHECK: 'kernel.extract' result type must be the vector's element type

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %c = arith.constant 1.0 : f32
  %p = "kernel.pack"(%c, %c, %c, %c, %c) : (f32, f32, f32, f32, f32) -> vector<4xf32>
}
// CHECK: 'kernel.pack' takes 4 values of the vector's element type

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4] vector 4 gather : memref<64xf32>
}
// CHECK: 'kernel.load' gather reads one element per lane, not a vector
