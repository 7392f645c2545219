// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(widen-indices)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(widen-indices)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// RUN: not dpl-translate --to-cuda %s 2>&1 | filecheck %s --check-prefix=REFUSED
// widen-indices: a kernel whose index arithmetic can pass 2^31 - 1 is marked `index_bits 64`
// and prints its indices as `long long`; the others keep 32-bit `int`.

// 2^31 + 256 elements, 4 per thread: the last block's offset %b * 256 passes 2^31 - 1.
kernel.func @k_big(%x: memref<2147483904xf32>, %y: memref<2147483904xf32>) grid [8388609, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %v = kernel.load %x[%b * 256 + %t * 4] vector 4 : memref<2147483904xf32>
  kernel.store %v, %y[%b * 256 + %t * 4] vector 4 : memref<2147483904xf32>
}
// CHECK-LABEL: kernel.func @k_big(
// CHECK-SAME:    grid [8388609, 1, 1] block [64, 1, 1] smem 0 index_bits 64 {
// CUDA-LABEL:  void k_big(
// CUDA:          long long b = blockIdx.x;
// CUDA-NEXT:     long long t = threadIdx.x;
// CUDA-NEXT:     float4 v = *reinterpret_cast<const float4*>(&x[b * 256 + t * 4]);
// REFUSED: dpl-translate: {{.*}}widen-indices.mlir:{{[0-9]+}}:{{[0-9]+}}: error: kernel @k_big: buffer %x has 2147483904 elements, too many for 32-bit indices

// -----

// The first 2^31 of 2^31 + 1 floats as float4s: the indices reach 2^31 - 1 only, but the
// buffer holds more elements than 32 bits count, which the CUDA printer refuses at 32 bits:
// 64-bit too (collapse-pointwise leaves the last float to a tail kernel).
kernel.func @k_ragged(%x: memref<2147483649xf32>, %y: memref<2147483649xf32>) grid [8388608, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %v = kernel.load %x[%b * 256 + %t * 4] vector 4 : memref<2147483649xf32>
  kernel.store %v, %y[%b * 256 + %t * 4] vector 4 : memref<2147483649xf32>
}
// CHECK-LABEL: kernel.func @k_ragged(
// CHECK-SAME:    grid [8388608, 1, 1] block [64, 1, 1] smem 0 index_bits 64 {

// -----

// Small buffers, but a grid-stride loop whose increment passes 2^31 - 1 before it ends:
// `i += 1048576` from i near 2^31 - 2^20 would wrap a 32-bit int.
kernel.func @k_stride(%x: memref<64xf32>) grid [4096, 1, 1] block [256, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %c256 = arith.constant 256 : index
  %g = arith.muli %b, %c256 : index
  %start = arith.addi %g, %t : index
  kernel.for %i = %start to 2147483000 step 1048576 {
    %v = kernel.load %x[%i mod 64] : memref<64xf32>
    kernel.store %v, %x[%i mod 64] : memref<64xf32>
  }
}
// CHECK-LABEL: kernel.func @k_stride(
// CHECK-SAME:    smem 0 index_bits 64 {
// CUDA-LABEL:  void k_stride(
// CUDA:          for (long long i = start; i < 2147483000; i += 1048576) {

// -----

// Declined: an embedding gather whose row index comes from data; it is taken to be a row of
// %w (at most 32000), so the offsets stay below 32000 * 2048 and 32-bit math is kept.
kernel.func @k_gather(%w: memref<32000x2048xf32>, %ids: memref<16xi64>, %out: memref<16x2048xf32>) grid [16, 1, 1] block [256, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %id = kernel.load %ids[%b] : memref<16xi64>
  %row = arith.index_cast %id : i64 to index
  kernel.for %f = %t to 2048 step 256 {
    %v = kernel.load %w[%row, %f] : memref<32000x2048xf32>
    kernel.store %v, %out[%b, %f] : memref<16x2048xf32>
  }
}
// CHECK-LABEL: kernel.func @k_gather(
// CHECK-SAME:    grid [16, 1, 1] block [256, 1, 1] smem 0 {
// CUDA-LABEL:  void k_gather(
// CUDA:          int row = (int)id;
// CUDA-NEXT:     for (int f = t; f < 2048; f += 256) {

// -----

// Declined: exactly 2^31 - 1 elements, the largest a 32-bit index reaches.
kernel.func @k_edge(%x: memref<2147483647xf32>, %y: memref<2147483647xf32>) grid [2147483647, 1, 1] block [1, 1, 1] smem 0 {
  %b = kernel.block_id x
  %v = kernel.load %x[%b] : memref<2147483647xf32>
  kernel.store %v, %y[%b] : memref<2147483647xf32>
}
// CHECK-LABEL: kernel.func @k_edge(
// CHECK-SAME:    grid [2147483647, 1, 1] block [1, 1, 1] smem 0 {
// CUDA-LABEL:  void k_edge(
// CUDA:          int b = blockIdx.x;
