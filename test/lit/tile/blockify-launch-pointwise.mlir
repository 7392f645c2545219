// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch' | filecheck %s
// blockify-launch on a pointwise tile whose fastest axis the 256 threads of a block do not
// divide: 4736 = 37 x 128, so 128 threads go to it (a warp or more), 37 blocks, and the other
// 2 threads to the next axis. A fastest axis that shares fewer than a warp's threads with the
// budget (4100 = 4 x 1025: gcd 4) would leave a warp walking the slower axis (uncoalesced), and
// a size the block does not divide (a prime) a part-filled block: such tiles stay as they are,
// their threads flat (materialize spreads them over blocks of 256).

func.func @main(%x: memref<4x4736xf32>) -> memref<4x4736xf32> {
  %y = memref.alloc() : memref<4x4736xf32>
  tile.kernel @k_neg ins(%x : memref<4x4736xf32>) outs(%y : memref<4x4736xf32>) {
    tile.tile (%a0 : 4 = thread, %a1 : 4736 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<4x4736xf32>
      %n = arith.negf %v : f32
      loop.store %n, %y[%a0, %a1] : memref<4x4736xf32>
    }
  }
  func.return %y : memref<4x4736xf32>
}
// CHECK-LABEL: tile.kernel @k_neg
// CHECK:         tile.tile (%a0_b : 2 = block, %a0_t : 2 = thread, %a1_b : 37 = block, %a1_t : 128 = thread) {

// -----

func.func @main(%x: memref<64x4100xf32>) -> memref<64x4100xf32> {
  %y = memref.alloc() : memref<64x4100xf32>
  tile.kernel @k_odd ins(%x : memref<64x4100xf32>) outs(%y : memref<64x4100xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 4100 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<64x4100xf32>
      %n = arith.negf %v : f32
      loop.store %n, %y[%a0, %a1] : memref<64x4100xf32>
    }
  }
  func.return %y : memref<64x4100xf32>
}
// CHECK-LABEL: tile.kernel @k_odd
// CHECK:         tile.tile (%a0 : 64 = thread, %a1 : 4100 = thread) {

// -----

func.func @main(%x: memref<512x256x3xf32>) -> memref<512x256x3xf32> {
  %y = memref.alloc() : memref<512x256x3xf32>
  tile.kernel @k_three ins(%x : memref<512x256x3xf32>) outs(%y : memref<512x256x3xf32>) {
    tile.tile (%a0 : 512 = thread, %a1 : 256 = thread, %a2 : 3 = thread) {
      %v = loop.load %x[%a0, %a1, %a2] : memref<512x256x3xf32>
      %n = arith.negf %v : f32
      loop.store %n, %y[%a0, %a1, %a2] : memref<512x256x3xf32>
    }
  }
  func.return %y : memref<512x256x3xf32>
}
// CHECK-LABEL: tile.kernel @k_three
// CHECK:         tile.tile (%a0 : 512 = thread, %a1 : 256 = thread, %a2 : 3 = thread) {
