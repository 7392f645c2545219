// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per tile-dialect verifier rule.

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile () {

    }
  }
  func.return
}
// CHECK: 'tile.tile' needs at least one axis

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    "tile.tile"() <{extents = [#builtin.int<4>], kinds = [#tile<axis_kind thread>, #tile<axis_kind block>], operandSegmentSizes = array<i32: 0, 0>}> ({
    ^bb0(%a : index):
    }) : () -> ()
  }
  func.return
}
// CHECK: 'tile.tile' has 1 extents for 2 axis kinds

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    "tile.tile"() <{extents = [#builtin.int<4>], kinds = [#tile<axis_kind thread>], operandSegmentSizes = array<i32: 0, 0>}> ({
    ^bb0(%a : f32):
    }) : () -> ()
  }
  func.return
}
// CHECK: 'tile.tile' body must take one index argument per axis

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 0 = thread) {

    }
  }
  func.return
}
// CHECK: 'tile.tile' axis extent must be positive, got 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %c0 : 32 = cell, %c1 : 16 = cell) {

    }
  }
  func.return
}
// CHECK: 'tile.tile' cell axes give each thread 512 registers, more than 256

// -----

func.func @f() {
  tile.tile (%a0 : 64 = thread) {
  }
  func.return
}
// CHECK: 'tile.tile' must be directly inside a 'tile.kernel'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      tile.strided_for free %j = %a0 to 0 step 64 {
      }
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' bound must be positive, got 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      tile.strided_for free %j = %a0 to 64 step 0 {
      }
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' step must be positive, got 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      "tile.strided_for"(%a0) <{kind = #loop<iter_kind free>, bound = #builtin.int<64>, step = #builtin.int<64>}> ({
      ^bb0(%j : f32):
        loop.yield
      }) : (index) -> ()
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' body must take one index induction variable

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.strided_for reduce %j = %a0 to 64 step 64 -> f32 {
        loop.yield
      }
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' reduce body must end in 'loop.accumulate'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.strided_for reduce %j = %a0 to 64 step 64 -> f64 {
        %v = loop.load %x[%a1, %j] : memref<8x64xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' reduce results must match the types of the accumulated values

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.strided_for reduce %j = %a0 to 64 step 64 -> f32 {
        %v = loop.load %x[%a1, %j] : memref<8x64xf32>
        loop.store %v, %o[%a1, %j] : memref<8x64xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'loop.store' inside a reduce loop: reduce loops only accumulate

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.strided_for free %j = %a0 to 64 step 64 -> f32 {
      }
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' free loops have no results

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      tile.strided_for free %j = %a0 to 64 step 64 {
        %v = loop.load %x[%a1, %j] : memref<8x64xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'loop.accumulate' must terminate a reduce loop

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [r : 64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
      %t = tile.stage %s origin [0] slab [64 at 0] : memref<64xf32, #tile.smem> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' source is already in shared memory

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' origin has 1 entries for a rank-2 source

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a0 mod 8, 0] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' origin must be uniform across the block: it uses a thread axis

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      tile.strided_for free %j = %a0 to 8 step 64 {
        %s = tile.stage %x origin [%j, 0] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
      }
    }
  }
  func.return
}
// CHECK: 'tile.stage' origin must be uniform across the block: it uses a strided loop's induction variable

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [] : memref<8x64xf32> -> memref<f32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' slab needs at least one dim

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [0 at 1] : memref<8x64xf32> -> memref<0xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' slab extent must be positive, got 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 2] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' slab dim refers to source dim 2 of a rank-2 source

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [2 at 1, 64 at 1] : memref<8x64xf32> -> memref<2x64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' slab spans 128 elements of source dim 1, which has 64

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      loop.for free %k < 2 {
        %s = tile.stage %x origin [%a1, 0] slab [64 at 1] buffers 0 at %k : memref<8x64xf32> -> memref<0x64xf32, #tile.smem>
      }
    }
  }
  func.return
}
// CHECK: 'tile.stage' buffers must be at least 1, got 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] buffers 2 at %a1 : memref<8x64xf32> -> memref<2x64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' buffers must name the induction variable of an enclosing loop

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] pad [0, 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' pad has 2 entries for 1 slab dims

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] pad [-1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' pad entries must be non-negative

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] async swizzle 128 : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' swizzle needs a tma copy

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] tma swizzle 16 : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' swizzle must be one of 32, 64, 128 bytes, got 16

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.stage' result type must be memref<64xf32, #tile.smem>, got memref<64xf32>

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    %s = tile.stage %x origin [0, 0] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {

    }
  }
  func.return
}
// CHECK: 'tile.stage' must be inside a 'tile.tile'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a2 : 32 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [r : 64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' needs the tile's threads in one block, but its thread axes hold 2048 > 1024

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = "tile.stage"(%x, %a1) <{origin = affine_map<(d0, d1) -> (d0, d1)>, slab = [#tile.slab_dim<64 at 1>], copy = #tile<copy sync>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<8x64xf32>, index) -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' origin map takes 2 values but 1 were given

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = "tile.stage"(%x, %a1) <{origin = affine_map<()[s0] -> (s0, 0)>, slab = [#tile.slab_dim<64 at 1>], copy = #tile<copy sync>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<8x64xf32>, index) -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' origin map must not have symbols

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      %s = tile.combine add %c across [] tree : f32
    }
  }
  func.return
}
// CHECK: 'tile.combine' needs at least one axis to combine across

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      %s = tile.combine add %c across [%a0, %a0] tree : f32
    }
  }
  func.return
}
// CHECK: 'tile.combine' lists an axis twice

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      %s = tile.combine add %c across [%a1] tree : f32
    }
  }
  func.return
}
// CHECK: 'tile.combine' combines across thread axes of the enclosing 'tile.tile' only

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a2 : 32 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      %s = tile.combine add %c across [%a0, %a2] tree : f32
    }
  }
  func.return
}
// CHECK: 'tile.combine' combines 2048 threads, more than the 1024 of one block

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      tile.strided_for free %j = %a0 to 64 step 64 {
        %c = arith.constant 1.0 : f32
        %s = tile.combine add %c across [%a0] tree : f32
      }
    }
  }
  func.return
}
// CHECK: 'tile.combine' must not be inside a 'tile.strided_for': every thread must reach it

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      %s = "tile.combine"(%c, %a0) <{kind = #loop<combine add>, operandSegmentSizes = array<i32: 1, 1>, strategy = #tile<strategy tree>}> : (f32, index) -> f64
    }
  }
  func.return
}
// CHECK: 'tile.combine' result type f64 differs from its value's f32

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      tile.atomic add %c, %o[%a0] : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.atomic' indexes a rank-2 buffer with 1 indices

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f32
      tile.atomic mul %c, %o[%a1, %a0] : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.atomic' supports add, max and min, not mul

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [r : 64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
      %c = arith.constant 1.0 : f32
      tile.atomic add %c, %s[%a0] : memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.atomic' writes global memory, not a shared-memory stage

// -----

func.func @f(%x: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread) {
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k has no outs

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    %c = arith.constant 1.0 : f32
  }
  func.return
}
// CHECK: 'tile.kernel' @k must hold exactly one 'tile.tile', found 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>, %y: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %v = loop.load %y[%a1, %a0] : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k uses an outside value that is not one of its ins/outs

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %m = memref.alloc() : memref<8x64xf32>
      %v = loop.load %m[%a1, %a0] : memref<8x64xf32>
      loop.store %v, %o[%a1, %a0] : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'loop.load' reads a buffer that is neither a kernel buffer, a stage nor a hold

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %v = loop.load %o[%a1, %a0] : memref<8x64xf32>
      loop.store %v, %x[%a1, %a0] : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'loop.store' writes a buffer that is not a kernel out

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %o origin [%a1, 0] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.stage' copies a buffer that is not a kernel in

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [r : 64 at 1] {tile.unroll} : memref<8x64xf32> -> memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.unroll' marks loops only, not 'tile.stage'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      loop.for free %k < 2 {
      } {tile.unroll = 4 : i64}
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.unroll' is a unit attribute

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      tile.strided_for free %j = %a0 to 64 step 64 {
      } {tile.pipeline = 2 : i64}
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.pipeline' marks a 'loop.for' only, not 'tile.strided_for'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      loop.for free %k < 2 {
      } {tile.pipeline = 1 : i64}
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.pipeline' must be an integer depth of at least 2

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      loop.for free %k < 2 {
        %s = tile.stage %x origin [%a1, 0] slab [64 at 1] buffers 2 at %k : memref<8x64xf32> -> memref<2x64xf32, #tile.smem>
      } {tile.pipeline = 2 : i64}
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: a 'tile.pipeline' loop must fill an async or tma stage buffered along it

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      loop.for free %k < 2 {
        %s = tile.stage %x origin [%a1, 0] slab [64 at 1] buffers 2 at %k async : memref<8x64xf32> -> memref<2x64xf32, #tile.smem>
      } {tile.pipeline = 3 : i64}
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.pipeline' depth 3 needs stages of at least 3 buffers, one has 2

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = "tile.stage"(%x, %a1) <{origin = affine_map<(d0) -> (d0, 0)>, slab = [#tile.slab_dim<64 at 1>], copy = #tile<copy sync>, buffers = #builtin.int<2>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<8x64xf32>, index) -> memref<2x64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.stage' buffers needs both a count and a loop

// -----

kernel.func @k(%x: memref<8x64xf32>) grid [8, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%a0 : 64 = thread at %t, %a1 : 8 = block) thread_id %t {
  }
}
// CHECK: 'tile.tile' binds 1 of its 2 axes: bind all or none

// -----

kernel.func @k(%x: memref<8x64xf32>) grid [8, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%a0 : 64 = thread at %t, %a1 : 8 = block at %b, %c : 2 = cell at %b) thread_id %t {
  }
}
// CHECK: 'tile.tile' with bound axes has no cell axes (unroll-cells)

// -----

kernel.func @k(%x: memref<8x64xf32>) grid [8, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%a0 : 64 = thread at %t, %a1 : 8 = block at %b) {
  }
}
// CHECK: 'tile.tile' with bound thread axes needs its thread_id

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    %z = arith.constant 0 : index
    tile.tile (%a0 : 64 = thread at %z) thread_id %z {
    }
  }
  func.return
}
// CHECK: 'tile.tile' with bound axes must be inside a 'kernel.func'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    %z = arith.constant 0 : index
    tile.tile (%a0 : 64 = thread) thread_id %z {
    }
  }
  func.return
}
// CHECK: 'tile.tile' has a thread_id but no bound axes

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      "tile.combine"(%a0) <{kind = #loop<combine add>, operandSegmentSizes = array<i32: 0, 1>, strategy = #tile<strategy tree>}> : (index) -> ()
    }
  }
  func.return
}
// CHECK: 'tile.combine' needs at least one value to combine

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %c = arith.constant 1.0 : f64
      "tile.atomic"(%c, %o, %a1, %a0) <{kind = #loop<combine add>, map = affine_map<(d0, d1) -> (d0, d1)>}> : (f64, memref<8x64xf32>, index, index) -> ()
    }
  }
  func.return
}
// CHECK: 'tile.atomic' value type f64 differs from the element type of memref<8x64xf32>

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.strided_for reduce %j = %a0 to 64 step 64 -> f32 {
        %v = loop.load %x[%a1, %j] : memref<8x64xf32>
        tile.atomic add %v, %o[%a1, %j] : memref<8x64xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' reduce body may not store: reduce loops only accumulate

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      "tile.strided_for"(%a0) <{kind = #loop<iter_kind free>, bound = #builtin.int<64>, step = #builtin.int<64>}> ({
      ^bb0(%j : index):
        "kernel.yield"() : () -> ()
      }) : (index) -> ()
    }
  }
  func.return
}
// CHECK: 'tile.strided_for' free body must end in 'loop.yield'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      loop.for free %k < 2 {
      } {tile.masked = [0 : i64]}
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.masked' marks loads, stores, atomics, stages and holds only, not 'loop.for'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %v = loop.load %x[%a1, %a0] {tile.masked = [2 : i64]} : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.masked' must list increasing dims of the rank-2 buffer, got [2 : i64]

// -----

// A tile.tile inside a kernel.func (after materialize's tiling) checks its masks itself.
kernel.func @k(%x: memref<37x8xf32>, %y: memref<37x8xf32>) grid [5, 1, 1] block [8, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  tile.tile (%ta : 8 = thread at %t, %ba : 5 = block at %b) thread_id %t {
    %v = loop.load %x[%ba * 8 + %ta, 0] {tile.masked = [0 : i64]} : memref<37x8xf32>
    loop.store %v, %y[%ba * 8 + %ta, 0] {tile.masked = [65537 : i64]} : memref<37x8xf32>
  }
}
// CHECK: 'tile.tile': 'tile.masked' must list increasing dims of the rank-2 buffer, got [65537 : i64]

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [r : 64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
      %v = loop.load %s[%a0] {tile.masked = [0 : i64]} : memref<64xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.masked' on a load of a stage (a stage is read inside its slab)

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %v = loop.load %x[%a1, %a0] : memref<8x64xf32>
      loop.store %v, %o[%a1, %a0] {tile.gather} : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.gather' marks loads of global buffers only, not 'loop.store'

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      %v = loop.load %x[%a1, %a0] {tile.gather = 1 : i64} : memref<8x64xf32>
      loop.store %v, %o[%a1, %a0] : memref<8x64xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.gather' is a unit attribute

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
      %h = tile.hold %x[%a1, %a0] step 0 : memref<8x64xf32> -> memref<2xf32>
    }
  }
  func.return
}
// CHECK: 'tile.hold' step must be positive, got 0

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
      %h = tile.hold %x[%a0, %a1] step 32 at 2 : memref<8x64xf32> -> memref<2xf32>
    }
  }
  func.return
}
// CHECK: 'tile.hold' held dim 2 is not a dim of the rank-2 source

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
      %h = tile.hold %x[%a0] step 32 : memref<8x64xf32> -> memref<2xf32>
    }
  }
  func.return
}
// CHECK: 'tile.hold' index has 1 entries for a rank-2 source

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
      %h = tile.hold %x[%a1, %a0] step 32 : memref<8x64xf32> -> memref<2xf32, #tile.smem>
    }
  }
  func.return
}
// CHECK: 'tile.hold' result must be a 1-d register array of f32, got memref<2xf32, #tile.smem>

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
      %h = tile.hold %o[%a1, %a0] step 32 : memref<8x64xf32> -> memref<2xf32>
    }
  }
  func.return
}
// CHECK: 'tile.kernel' @k: 'tile.hold' copies a buffer that is not a kernel in

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
      %s = tile.stage %x origin [%a1, 0] slab [64 at 1] : memref<8x64xf32> -> memref<64xf32, #tile.smem>
      %h = tile.hold %s[%a0] step 32 : memref<64xf32, #tile.smem> -> memref<2xf32>
    }
  }
  func.return
}
// CHECK: 'tile.hold' source must be a global buffer, not shared memory

// -----

func.func @f(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    %c0 = arith.constant 0 : index
    %h = tile.hold %x[%c0, %c0] step 32 : memref<8x64xf32> -> memref<2xf32>
    tile.tile (%a0 : 32 = thread, %a1 : 8 = block) {
    }
  }
  func.return
}
// CHECK: 'tile.hold' must be inside a 'tile.tile'
