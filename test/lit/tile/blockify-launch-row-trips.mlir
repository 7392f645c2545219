// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch{row-trips=12}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch' | filecheck %s --check-prefix=BLOCK
// blockify-launch{row-trips=12}: a row of its own block takes the fewest lanes, a power of two
// from 128 to 1024, that pass over it in at most 12 trips: a row of 1117 gets 128 lanes (9
// trips), a row of 4096 gets 512 (8 trips), whatever block-size is; a row shorter than 128 keeps
// its own power of two (40: 64 lanes). Without row-trips the lanes are min(block-size, the
// row's power of two): 256 on both long rows.

func.func @main(%x: memref<8x1117xf32>) -> memref<8xf32> {
  %out = memref.alloc() : memref<8xf32>
  tile.kernel @k_sum ins(%x : memref<8x1117xf32>) outs(%out : memref<8xf32>) {
    tile.tile (%a0 : 8 = thread) {
      %acc = loop.for reduce %r0 < 1117 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<8x1117xf32>
        loop.accumulate add %v : f32
      }
      loop.store %acc, %out[%a0] : memref<8xf32>
    }
  }
  func.return %out : memref<8xf32>
}
// CHECK-LABEL: tile.kernel @k_sum
// CHECK:         tile.tile (%lane : 128 = thread, %a0 : 8 = block) {
// BLOCK-LABEL:   tile.kernel @k_sum
// BLOCK:         tile.tile (%lane : 256 = thread, %a0 : 8 = block) {

// -----

func.func @main(%x: memref<8x4096xf32>) -> memref<8x4096xf32> {
  %out = memref.alloc() : memref<8x4096xf32>
  tile.kernel @k_scale ins(%x : memref<8x4096xf32>) outs(%out : memref<8x4096xf32>) {
    tile.tile (%a0 : 8 = thread) {
      %acc = loop.for reduce %r0 < 4096 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<8x4096xf32>
        loop.accumulate max %v : f32
      }
      loop.for free %a1 < 4096 {
        %w = loop.load %x[%a0, %a1] : memref<8x4096xf32>
        %q = arith.divf %w, %acc : f32
        loop.store %q, %out[%a0, %a1] : memref<8x4096xf32>
      }
    }
  }
  func.return %out : memref<8x4096xf32>
}
// CHECK-LABEL: tile.kernel @k_scale
// CHECK:         tile.tile (%lane : 512 = thread, %a0 : 8 = block) {
// CHECK:           tile.strided_for free %a1 = %lane to 4096 step 512 {
// BLOCK-LABEL:   tile.kernel @k_scale
// BLOCK:         tile.tile (%lane : 256 = thread, %a0 : 8 = block) {
// BLOCK:           tile.strided_for free %a1 = %lane to 4096 step 256 {

// -----

func.func @main(%x: memref<8x40xf32>) -> memref<8xf32> {
  %out = memref.alloc() : memref<8xf32>
  tile.kernel @k_short ins(%x : memref<8x40xf32>) outs(%out : memref<8xf32>) {
    tile.tile (%a0 : 8 = thread) {
      %acc = loop.for reduce %r0 < 40 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<8x40xf32>
        loop.accumulate add %v : f32
      }
      loop.store %acc, %out[%a0] : memref<8xf32>
    }
  }
  func.return %out : memref<8xf32>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%lane : 64 = thread, %a0 : 8 = block) {
// BLOCK-LABEL:   tile.kernel @k_short
// BLOCK:         tile.tile (%lane : 64 = thread, %a0 : 8 = block) {
