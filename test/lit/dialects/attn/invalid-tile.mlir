// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of attn.flash (the tile level).

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  %l0 = arith.constant 0 : index
  attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" query {
  ^bb0(%l: index, %c: index):
    %x = memref.load %q[%l, %c] : memref<40x16xf32>
    attn.yield %x : f32
  } key {
  ^bb0(%s: index, %c_1: index):
    %y = memref.load %k[%s, %c_1] : memref<40x16xf32>
    attn.yield %y : f32
  } value {
  ^bb0(%s_1: index, %c_2: index):
    %z = memref.load %v[%s_1, %c_2] : memref<40x8xf32>
    attn.yield %z : f32
  } score {
  ^bb0(%acc: f32, %l_1: index, %s_2: index):
    attn.yield %acc : f32
  } output {
  ^bb0(%o: f32, %l_2: index, %c_3: index):
    memref.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
    attn.yield
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' must be directly inside a 'tile.tile'

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 2 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' of 64 rows needs thread axes (4, 8, 4) and no cell axes (the mma.sync fragment of 16 rows per warp), got threads [2, 8, 4]

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 0 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' queries must be positive, got 0

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 12 depth 16 x 8 chain 2 precision "3xtf32" query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' tile must be a multiple of 8 keys, got 12

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain -1 precision "3xtf32" query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' chain must be >= 0, got -1

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 4 precision "3xtf32" wide 2 query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' wide needs depth and value depth in multiples of 32 (rounded up to 8), got 16 x 8

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 4 precision "3xtf32" wide 3 query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' wide must be 1 or 2, got 3

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 4 precision "ieee" qsplit query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' qsplit needs a tensor-core precision, got ieee

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %w : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' first row must not depend on a thread axis

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l + %g, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' is collective: its query region must not use a thread axis

// -----

// A split without its lse region.
func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  %lse = memref.alloc() : memref<2x40xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out, %lse : memref<40x8xf32>, memref<2x40xf32>) {
    tile.tile (%sp : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" split %sp keys 32 query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' split needs its index, its keys and an lse region together

// -----

// Split keys that are not a multiple of the key tile.
func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  %lse = memref.alloc() : memref<2x40xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out, %lse : memref<40x8xf32>, memref<2x40xf32>) {
    tile.tile (%sp : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" split %sp keys 48 query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      } lse {
      ^bb0(%m: f32, %l_3: index):
        loop.store %m, %lse[%sp, %l_3] : memref<2x40xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' split keys must be a positive multiple of the tile (32), got 48

// -----

// A split index computed from a thread axis.
func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  %lse = memref.alloc() : memref<2x40xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out, %lse : memref<40x8xf32>, memref<2x40xf32>) {
    tile.tile (%sp : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      %bad = arith.addi %sp, %w : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" split %bad keys 32 query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      } lse {
      ^bb0(%m: f32, %l_3: index):
        loop.store %m, %lse[%sp, %l_3] : memref<2x40xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' split must not depend on a thread axis

// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 2 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 32 queries 40 keys 40 tile 64 depth 16 x 8 chain 1 precision "3xtf32" wgmma query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' wgmma needs 64 query rows (one warpgroup), got 32


// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 48 depth 16 x 8 chain 1 precision "3xtf32" wgmma query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' wgmma needs a key tile of a multiple of 32 up to 256, got 48


// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 64 depth 16 x 8 chain 1 precision "ieee" wgmma query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' wgmma needs a tensor-core precision


// -----

func.func @main(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out : memref<40x8xf32>) {
    tile.tile (%qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 64 depth 16 x 8 chain 1 precision "3xtf32" qsplit wgmma query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%l, %c] : memref<40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%s, %c_1] : memref<40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%s_1, %c_2] : memref<40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        attn.yield %acc : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%l_2, %c_3] : memref<40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<40x8xf32>
}
// CHECK: 'attn.flash' wgmma needs no split over the keys, wide fragments or query split


