// RUN: not dpl-opt %s -p schedule 2>&1 | filecheck %s
// An option the class's passes do not have is an error naming those they have.
func.func @main(%x: memref<8x256xf64>) -> memref<8x256xf64> {
  %relu = memref.alloc() : memref<8x256xf64>
  loop.kernel @k_unknown ins(%x : memref<8x256xf64>) outs(%relu : memref<8x256xf64>) {
    loop.for free %a0 < 8 {
      loop.for free %a1 < 256 {
        %a = loop.load %x[%a0, %a1] : memref<8x256xf64>
        loop.store %a, %relu[%a0, %a1] : memref<8x256xf64>
      }
    }
  } {tile.point = {rows = 8 : i64}}
  func.return %relu : memref<8x256xf64>
}
// CHECK: error: schedule: @k_unknown: tile.point: 'rows' is not a tunable option of a pointwise kernel (those are: width, block_size, max_extent)
