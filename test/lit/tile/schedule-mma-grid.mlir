// RUN: dpl-opt %s --pass-pipeline='schedule' | filecheck %s
// RUN: dpl-opt %s --pass-pipeline='schedule,materialize-mma,materialize' | filecheck %s --check-prefix=KERNEL
// The schedule takes a tensor-core candidate only where its tile's block axes can be laid on a
// grid as materialize-mma lays them (common.grid_fits: at most three of extent > 1, all but the
// last at most 65535). The scores q @ k^T of Gemma-2's soft-capped attention over 4 x 8 heads of
// 1024 x 128, its batch not collapsed (collapse-matmul-axes makes it one loop of 32): wgmma
// 64 x 64 tiles would have four block axes (4, 8, 16, 16), unsplit too, which materialize-mma
// rejected ("has more than three block axes"); so the tensor-core candidates are not tried
// (logged) and the kernel takes its SIMT schedule, which blockify-launch lays on the grid.
func.func @main(%q: memref<4x8x1024x128xf32>, %k: memref<4x8x1024x128xf32>) -> memref<4x8x1024x1x1024xf32> {
  %s = memref.alloc() : memref<4x8x1024x1x1024xf32>
  loop.kernel @k_scores ins(%q, %k : memref<4x8x1024x128xf32>, memref<4x8x1024x128xf32>) outs(%s : memref<4x8x1024x1x1024xf32>) {
    loop.for free %a0 < 4 {
      loop.for free %a1 < 8 {
        loop.for free %a2 < 1024 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 1024 {
              %acc = loop.for reduce %r0 < 128 -> f32 {
                %in = loop.load %q[%a0, %a1, %a2, %r0] : memref<4x8x1024x128xf32>
                %in_1 = loop.load %k[%a0, %a1, %a4, %r0] : memref<4x8x1024x128xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %s[%a0, %a1, %a2, %a3, %a4] : memref<4x8x1024x1x1024xf32>
            }
          }
        }
      }
    }
  }
  func.return %s : memref<4x8x1024x1x1024xf32>
}
// CHECK-LABEL: tile.kernel @k_scores
// CHECK:         tile.tile (%a0 : 4 = block, %a1 : 8 = block,
// CHECK-NOT:     mma.dot
// CHECK:         tile.schedule = "tileify,pad-matmul{rows=
// KERNEL:        kernel.func @k_scores(
// KERNEL-NOT:    wgmma
// KERNEL:        kernel.launch @k_scores
