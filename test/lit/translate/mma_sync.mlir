// RUN: dpl-translate --to-cuda %s | filecheck %s
// sm_80+: one warp computes C (16x8) = A (16x8) * B (8x8)^T in 3xTF32 on mma.sync m16n8k8: each
// lane loads its fragment elements (a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (n=g,
// k=t), b1 (n=g, k=t+4)), splits them into tf32 hi and lo, and accumulates lo*hi, hi*lo, hi*hi.

kernel.func @k_mma_sync(%a: memref<16x8xf32>, %b: memref<8x8xf32>, %c: memref<16x8xf32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %zero = arith.constant 0.0 : f32
  %lane = kernel.lane_id
  %x0 = kernel.load %a[%lane floordiv 4, %lane mod 4] : memref<16x8xf32>
  %x1 = kernel.load %a[%lane floordiv 4 + 8, %lane mod 4] : memref<16x8xf32>
  %x2 = kernel.load %a[%lane floordiv 4, %lane mod 4 + 4] : memref<16x8xf32>
  %x3 = kernel.load %a[%lane floordiv 4 + 8, %lane mod 4 + 4] : memref<16x8xf32>
  %y0 = kernel.load %b[%lane floordiv 4, %lane mod 4] : memref<8x8xf32>
  %y1 = kernel.load %b[%lane floordiv 4, %lane mod 4 + 4] : memref<8x8xf32>
  %ah0 = mma.tf32 %x0 : f32
  %ah1 = mma.tf32 %x1 : f32
  %ah2 = mma.tf32 %x2 : f32
  %ah3 = mma.tf32 %x3 : f32
  %bh0 = mma.tf32 %y0 : f32
  %bh1 = mma.tf32 %y1 : f32
  %ar0 = arith.subf %x0, %ah0 : f32
  %ar1 = arith.subf %x1, %ah1 : f32
  %ar2 = arith.subf %x2, %ah2 : f32
  %ar3 = arith.subf %x3, %ah3 : f32
  %br0 = arith.subf %y0, %bh0 : f32
  %br1 = arith.subf %y1, %bh1 : f32
  %al0 = mma.tf32 %ar0 : f32
  %al1 = mma.tf32 %ar1 : f32
  %al2 = mma.tf32 %ar2 : f32
  %al3 = mma.tf32 %ar3 : f32
  %bl0 = mma.tf32 %br0 : f32
  %bl1 = mma.tf32 %br1 : f32
  %p0, %p1, %p2, %p3 = mma.sync m16n8k8 a(%al0, %al1, %al2, %al3) b(%bh0, %bh1) c(%zero, %zero, %zero, %zero) : f32
  %q0, %q1, %q2, %q3 = mma.sync m16n8k8 a(%ah0, %ah1, %ah2, %ah3) b(%bl0, %bl1) c(%p0, %p1, %p2, %p3) : f32
  %d0, %d1, %d2, %d3 = mma.sync m16n8k8 a(%ah0, %ah1, %ah2, %ah3) b(%bh0, %bh1) c(%q0, %q1, %q2, %q3) : f32
  kernel.store %d0, %c[%lane floordiv 4, %lane mod 4 * 2] : memref<16x8xf32>
  kernel.store %d1, %c[%lane floordiv 4, %lane mod 4 * 2 + 1] : memref<16x8xf32>
  kernel.store %d2, %c[%lane floordiv 4 + 8, %lane mod 4 * 2] : memref<16x8xf32>
  kernel.store %d3, %c[%lane floordiv 4 + 8, %lane mod 4 * 2 + 1] : memref<16x8xf32>
}

// CHECK:      __launch_bounds__(32) void k_mma_sync(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
// CHECK:          float ah0 = dpl_tf32(x0);
// CHECK:          float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f, p3 = 0.0f;
// CHECK-NEXT:     asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n" : "+f"(p0), "+f"(p1), "+f"(p2), "+f"(p3) : "r"(__float_as_uint(al0)), "r"(__float_as_uint(al1)), "r"(__float_as_uint(al2)), "r"(__float_as_uint(al3)), "r"(__float_as_uint(bh0)), "r"(__float_as_uint(bh1)));
// CHECK:          float d0 = q0, d1 = q1, d2 = q2, d3 = q3;
// CHECK:          c[lane / 4 * 8 + lane % 4 * 2] = d0;
