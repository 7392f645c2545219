// RUN: dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir tile | filecheck %s
// The seeds' RMSNorm scheduled at the tile level: one row per block, 256 lanes, x staged once in
// shared memory, the row sum shared by the lanes and combined by warp shuffles.

// CHECK:       tile.kernel @k_rms_norm
// CHECK:       tile.tile (%lane : 256 = thread, %a1 : 32 = block) {
// CHECK-NEXT:    %x_smem = tile.stage %x origin [0, %a1, 0] slab [r0 : 2048 at 2] : memref<1x32x2048xf32> -> memref<2048xf32, #tile.smem>
// CHECK-NEXT:    %acc_part = tile.strided_for reduce %r0 = %lane to 2048 step 256 -> f32 {
// CHECK-NEXT:      %a = loop.load %x_smem[%r0] : memref<2048xf32, #tile.smem>
// CHECK:         %acc = tile.combine add %acc_part across [%lane] warp_shuffle : f32
// CHECK:         tile.strided_for free %a2 = %lane to 2048 step 256 {
// CHECK-NEXT:      %a_1 = loop.load %x_smem[%a2] : memref<2048xf32, #tile.smem>
// CHECK:           loop.store %4, %rms_norm[0, %a1, %a2] : memref<1x32x2048xf32>
