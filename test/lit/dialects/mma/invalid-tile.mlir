// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of the mma dialect's tile-level ops (mma.stage, mma.dot).

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.stage' result must be memref<R x K x f32, #tile.smem> with R >= 1 and K a positive multiple of 8, got memref<64x32xf32>

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1 + %t, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.stage' is collective: its region must not use a thread or cell axis

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "ieee" layout wgmma : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' precision must be 3xtf32 or tf32 (ieee is the SIMT path)

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout mma_sync : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' layout mma_sync needs the tile's thread and cell axes to be its fragment's, got threads [1, 4, 8, 4] and cells [2, 4, 2]

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g * 2], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' row is not the wgmma fragment's: want %wg * 64 + %w * 16 + %g + %h * 8

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g + %bm], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' row must use the tile's thread and cell axes only

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 16 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x16xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32, #tile.smem>, memref<32x16xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' operands must have equal K, got 32 and 16

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 16 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<16x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32, #tile.smem>, memref<16x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' stages must have 64 and 32 rows for this fragment, got 64 and 16

// -----

func.func @main(%x: memref<64x64xf32>) {
  %s = mma.stage rows 64 k 32 {
  ^bb0(%r: index, %c: index):
    %v = loop.load %x[%r, %c] : memref<64x64xf32>
    mma.yield %v : f32
  } : memref<64x32xf32, #tile.smem>
  func.return
}
// CHECK: 'mma.stage' must be inside a 'tile.tile'

// -----

func.func @main(%x: memref<64x64xf32>, %y: memref<64xf32>) -> memref<64xf32> {
  tile.kernel @k ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%a : 64 = thread) {
      %s = mma.stage rows 64 k 12 {
      ^bb0(%r: index, %c: index):
        %v = loop.load %x[%r, %c] : memref<64x64xf32>
        mma.yield %v : f32
      } : memref<64x12xf32, #tile.smem>
    }
  }
  func.return %y : memref<64xf32>
}
// CHECK: 'mma.stage' result must be memref<R x K x f32, #tile.smem> with R >= 1 and K a positive multiple of 8, got memref<64x12xf32, #tile.smem>

// -----

func.func @main(%x: memref<64x64xf32>, %y: memref<64xf32>) -> memref<64xf32> {
  tile.kernel @k ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%a : 64 = thread) {
      %s = mma.stage rows 64 k 32 {
      ^bb0(%r: index):
        %v = loop.load %x[%r, 0] : memref<64x64xf32>
        mma.yield %v : f32
      } : memref<64x32xf32, #tile.smem>
    }
  }
  func.return %y : memref<64xf32>
}
// CHECK: 'mma.stage' region takes two index arguments (row, k)

// -----

func.func @main(%x: memref<64x64xf32>, %y: memref<64xf32>) -> memref<64xf32> {
  tile.kernel @k ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%a : 64 = thread) {
      tile.strided_for free %i = %a to 64 step 64 {
        %s = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %v = loop.load %x[%r, %c] : memref<64x64xf32>
          mma.yield %v : f32
        } : memref<64x32xf32, #tile.smem>
      }
    }
  }
  func.return %y : memref<64xf32>
}
// CHECK: 'mma.stage' is collective: not inside a 'tile.strided_for'

// -----

func.func @main(%x: memref<64x64xf32>, %y: memref<64xf32>) -> memref<64xf32> {
  tile.kernel @k ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%a : 64 = thread) {
      %p = mma.dot %x[%a], %x[%a] precision "3xtf32" layout wgmma : memref<64x64xf32>, memref<64x64xf32>
    }
  }
  func.return %y : memref<64xf32>
}
// CHECK: 'mma.dot' operands must be 'mma.stage' results

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g, %t], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' row must be one index over its operands

// -----

func.func @main(%x: memref<64x64xf32>, %y: memref<64xf32>) -> memref<64xf32> {
  tile.kernel @k ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
    tile.tile (%a : 64 = thread) {
      %s = mma.stage rows 64 k 32 {
      ^bb0(%r: index, %c: index):
        %v = loop.load %x[%r, %c] : memref<64x64xf32>
        "loop.yield"() : () -> ()
      } : memref<64x32xf32, #tile.smem>
    }
  }
  func.return %y : memref<64xf32>
}
// CHECK: 'mma.stage' region must end in 'mma.yield'

// -----

func.func @main(%x: memref<64x64xf32>, %i: index) {
  %p = mma.dot %x[%i], %x[%i] precision "3xtf32" layout wgmma : memref<64x64xf32>, memref<64x64xf32>
  func.return
}
// CHECK: 'mma.dot' must be inside a 'tile.tile'

// -----

func.func @main(%x: memref<64x64xf32>, %wt: memref<32x64xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  tile.kernel @k ins(%x, %wt : memref<64x64xf32>, memref<32x64xf32>) outs(%out : memref<64x32xf32>) {
    tile.tile (%bm : 1 = block, %bn : 1 = block, %wg : 1 = thread, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 4 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 2 -> f32 {
        %a_st = mma.stage rows 64 k 32 {
        ^bb0(%r: index, %c: index):
          %in = loop.load %x[%bm * 64 + %r, %ko * 32 + %c] : memref<64x64xf32>
          mma.yield %in : f32
        } : memref<64x32xf32, #tile.smem>
        %b_st = mma.stage rows 32 k 32 {
        ^bb0(%r_1: index, %c_1: index):
          %in_1 = loop.load %wt[%bn * 32 + %r_1, %ko * 32 + %c_1] : memref<32x64xf32>
          mma.yield %in_1 : f32
        } : memref<32x32xf32, #tile.smem>
        %p = mma.dot %a_st[%wg * 64 + %w * 16 + %h * 8 + %g], %b_st[%j * 8 + %t * 2 + %e] precision "3xtf32" layout wgmma promote 3 : memref<64x32xf32, #tile.smem>, memref<32x32xf32, #tile.smem>
        loop.accumulate add %p : f32
      }
      loop.store %acc, %out[%bm * 64 + %wg * 64 + %w * 16 + %h * 8 + %g, %bn * 32 + %j * 8 + %t * 2 + %e] : memref<64x32xf32>
    }
  }
  func.return %out : memref<64x32xf32>
}
// CHECK: 'mma.dot' promote must divide the stage's 4 MMA steps of 8 along K, got 3
