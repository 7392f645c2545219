// RUN: dpl-opt %s --split-input-file | dpl-opt --split-input-file | filecheck %s
// The attn dialect's ops (attn.softmax_reduce at the loop level, attn.flash at the tile level)
// print and parse back unchanged.

func.func @main(%q: memref<1x2x40x16xf32>, %k: memref<1x1x40x16xf32>, %v: memref<1x1x40x8xf32>) -> memref<1x2x40x8xf32> {
  %out = memref.alloc() : memref<1x2x40x8xf32>
  loop.kernel @k_attention ins(%q, %k, %v : memref<1x2x40x16xf32>, memref<1x1x40x16xf32>, memref<1x1x40x8xf32>) outs(%out : memref<1x2x40x8xf32>) {
    %ninf = arith.constant 0xff800000 : f32
    %scale = arith.constant 2.500000e-01 : f32
    loop.for free %a0 < 1 {
      loop.for free %a1 < 2 {
        loop.for free %a2 < 40 {
          loop.for free %a3 < 8 {
            %o = attn.softmax_reduce < 40 -> f32 score {
            ^bb0(%s: index):
              %acc = loop.for reduce %e < 16 -> f32 {
                %x = loop.load %q[%a0, %a1, %a2, %e] : memref<1x2x40x16xf32>
                %y = loop.load %k[%a0, %a1 floordiv 2, %s, %e] : memref<1x1x40x16xf32>
                %p = arith.mulf %x, %y : f32
                loop.accumulate add %p : f32
              }
              %after = arith.cmpi ugt, %s, %a2 : index
              %scaled = arith.mulf %acc, %scale : f32
              %masked = arith.select %after, %ninf, %scaled : f32
              attn.yield %masked : f32
            } value {
            ^bb0(%s_1: index):
              %w = loop.load %v[%a0, %a1 floordiv 2, %s_1, %a3] : memref<1x1x40x8xf32>
              attn.yield %w : f32
            }
            loop.store %o, %out[%a0, %a1, %a2, %a3] : memref<1x2x40x8xf32>
          }
        }
      }
    }
  }
  func.return %out : memref<1x2x40x8xf32>
}
// CHECK-LABEL: loop.kernel @k_attention
// CHECK:       %o = attn.softmax_reduce < 40 -> f32 score {
// CHECK-NEXT:  ^bb0(%s: index):
// CHECK:         attn.yield %masked : f32
// CHECK-NEXT:  } value {
// CHECK-NEXT:  ^bb0(%s_1: index):
// CHECK-NEXT:    %w = loop.load %v[%a0, %a1 floordiv 2, %s_1, %a3] : memref<1x1x40x8xf32>
// CHECK-NEXT:    attn.yield %w : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  loop.store %o, %out[%a0, %a1, %a2, %a3]

// -----

func.func @main(%q: memref<1x2x40x16xf32>, %k: memref<1x1x40x16xf32>, %v: memref<1x1x40x8xf32>) -> memref<1x2x40x8xf32> {
  %out = memref.alloc() : memref<1x2x40x8xf32>
  tile.kernel @k_attention ins(%q, %k, %v : memref<1x2x40x16xf32>, memref<1x1x40x16xf32>, memref<1x1x40x8xf32>) outs(%out : memref<1x2x40x8xf32>) {
    %ninf = arith.constant 0xff800000 : f32
    %scale = arith.constant 2.500000e-01 : f32
    tile.tile (%a0 : 1 = block, %a1 : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" causal query {
      ^bb0(%l: index, %c: index):
        %x = loop.load %q[%a0, %a1, %l, %c] : memref<1x2x40x16xf32>
        attn.yield %x : f32
      } key {
      ^bb0(%s: index, %c_1: index):
        %y = loop.load %k[%a0, %a1 floordiv 2, %s, %c_1] : memref<1x1x40x16xf32>
        attn.yield %y : f32
      } value {
      ^bb0(%s_1: index, %c_2: index):
        %z = loop.load %v[%a0, %a1 floordiv 2, %s_1, %c_2] : memref<1x1x40x8xf32>
        attn.yield %z : f32
      } score {
      ^bb0(%acc: f32, %l_1: index, %s_2: index):
        %after = arith.cmpi ugt, %s_2, %l_1 : index
        %scaled = arith.mulf %acc, %scale : f32
        %masked = arith.select %after, %ninf, %scaled : f32
        attn.yield %masked : f32
      } output {
      ^bb0(%o: f32, %l_2: index, %c_3: index):
        loop.store %o, %out[%a0, %a1, %l_2, %c_3] : memref<1x2x40x8xf32>
        attn.yield
      }
    }
  }
  func.return %out : memref<1x2x40x8xf32>
}
// CHECK-LABEL: tile.kernel @k_attention
// CHECK:       attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" causal query {
// CHECK-NEXT:  ^bb0(%l: index, %c: index):
// CHECK:       } key {
// CHECK:       } value {
// CHECK:       } score {
// CHECK-NEXT:  ^bb0(%acc: f32, %l_1: index, %s_2: index):
// CHECK:       } output {
// CHECK-NEXT:  ^bb0(%o: f32, %l_2: index, %c_3: index):
// CHECK-NEXT:    loop.store %o, %out[%a0, %a1, %l_2, %c_3] : memref<1x2x40x8xf32>
// CHECK-NEXT:    attn.yield
// CHECK-NEXT:  }

// -----

// A split over the keys (split-KV): `split %sp keys 32` and the lse region.
func.func @split(%q: memref<40x16xf32>, %k: memref<40x16xf32>, %v: memref<40x8xf32>) -> memref<40x8xf32> {
  %out = memref.alloc() : memref<40x8xf32>
  %lse = memref.alloc() : memref<2x40xf32>
  tile.kernel @k ins(%q, %k, %v : memref<40x16xf32>, memref<40x16xf32>, memref<40x8xf32>) outs(%out, %lse : memref<40x8xf32>, memref<2x40xf32>) {
    tile.tile (%sp : 2 = block, %qb : 1 = block, %w : 4 = thread, %g : 8 = thread, %t : 4 = thread) {
      %l0 = arith.muli %qb, %qb : index
      attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" qsplit split %sp keys 32 query {
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
// CHECK-LABEL: func.func @split
// CHECK:       attn.flash %l0 rows 64 queries 40 keys 40 tile 32 depth 16 x 8 chain 2 precision "3xtf32" qsplit split %sp keys 32 query {
// CHECK:       } output {
// CHECK:       } lse {
// CHECK-NEXT:  ^bb0(%m: f32, %l_3: index):
// CHECK-NEXT:    loop.store %m, %lse[%sp, %l_3] : memref<2x40xf32>
// CHECK-NEXT:    attn.yield
// CHECK-NEXT:  }
