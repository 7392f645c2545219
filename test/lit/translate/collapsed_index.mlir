// RUN: dpl-translate --to-cuda %s | filecheck %s
// Two adjacent dims indexed by one collapsed index, `[.., %r floordiv 8, %r mod 8]` of a buffer
// whose last dim is 8 (a LayerNorm over (64, 8) read as one row of 512), have the flat offset
// `(%r floordiv 8) * 8 + %r mod 8`, which is `%r`: printed so, no division per access. A pair
// whose divisor is not the inner dim's size keeps both terms.

kernel.func @k_rows(%x: memref<16x64x8xf32>, %y: memref<16x64x8xf32>, %z: memref<16x64x4xf32>) grid [16, 1, 1] block [256, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %v = kernel.load %x[%b, %t floordiv 8, %t mod 8] : memref<16x64x8xf32>
  kernel.store %v, %y[%b, (%t + 256) floordiv 8, (%t + 256) mod 8] : memref<16x64x8xf32>
  %w = kernel.load %z[%b, %t floordiv 8, %t mod 4] : memref<16x64x4xf32>
  kernel.store %w, %y[%b, %t floordiv 8, %t mod 8] : memref<16x64x8xf32>
}
// CHECK-LABEL: void k_rows(
// CHECK:         float v = x[b * 512 + t];
// CHECK-NEXT:    y[b * 512 + t + 256] = v;
// CHECK-NEXT:    float w = z[b * 256 + t / 8 * 4 + t % 4];
// CHECK-NEXT:    y[b * 512 + t] = w;
