// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of attn.softmax_reduce (the loop level) and of the region rules it
// shares with attn.flash.

func.func @main(%k: memref<8x4xf32>, %v: memref<8x4xf32>) -> memref<4xf32> {
  %out = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%k, %v : memref<8x4xf32>, memref<8x4xf32>) outs(%out : memref<4xf32>) {
    loop.for free %c < 4 {
      %o = attn.softmax_reduce < 0 -> f32 score {
      ^bb0(%s: index):
        %x = loop.load %k[%s, %c] : memref<8x4xf32>
        attn.yield %x : f32
      } value {
      ^bb0(%s_1: index):
        %y = loop.load %v[%s_1, %c] : memref<8x4xf32>
        attn.yield %y : f32
      }
      loop.store %o, %out[%c] : memref<4xf32>
    }
  }
  func.return %out : memref<4xf32>
}
// CHECK: 'attn.softmax_reduce' extent must be positive, got 0

// -----

func.func @main(%k: memref<8x4xf32>, %v: memref<8x4xf32>) -> memref<4xf32> {
  %out = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%k, %v : memref<8x4xf32>, memref<8x4xf32>) outs(%out : memref<4xf32>) {
    loop.for free %c < 4 {
      %o = attn.softmax_reduce < 8 -> f32 score {
      ^bb0(%s: index, %e: index):
        %x = loop.load %k[%s, %c] : memref<8x4xf32>
        attn.yield %x : f32
      } value {
      ^bb0(%s_1: index):
        %y = loop.load %v[%s_1, %c] : memref<8x4xf32>
        attn.yield %y : f32
      }
      loop.store %o, %out[%c] : memref<4xf32>
    }
  }
  func.return %out : memref<4xf32>
}
// CHECK: 'attn.softmax_reduce' score region takes (index)

// -----

func.func @main(%k: memref<8x4xf32>, %v: memref<8x4xf32>) -> memref<4xf32> {
  %out = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%k, %v : memref<8x4xf32>, memref<8x4xf32>) outs(%out : memref<4xf32>) {
    loop.for free %c < 4 {
      %o = attn.softmax_reduce < 8 -> f32 score {
      ^bb0(%s: index):
        %x = loop.load %k[%s, %c] : memref<8x4xf32>
        attn.yield %x : f32
      } value {
      ^bb0(%s_1: index):
        %y = loop.load %v[%s_1, %c] : memref<8x4xf32>
        attn.yield
      }
      loop.store %o, %out[%c] : memref<4xf32>
    }
  }
  func.return %out : memref<4xf32>
}
// CHECK: 'attn.softmax_reduce' value region must end in 'attn.yield' of 1 value

// -----

func.func @main(%k: memref<8x4xf32>, %v: memref<8x4xf32>) -> memref<4xf32> {
  %out = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%k, %v : memref<8x4xf32>, memref<8x4xf32>) outs(%out : memref<4xf32>) {
    loop.for free %c < 4 {
      %o = attn.softmax_reduce < 8 -> f32 score {
      ^bb0(%s: index):
        %x = loop.load %k[%s, %c] : memref<8x4xf32>
        attn.yield %s : index
      } value {
      ^bb0(%s_1: index):
        %y = loop.load %v[%s_1, %c] : memref<8x4xf32>
        attn.yield %y : f32
      }
      loop.store %o, %out[%c] : memref<4xf32>
    }
  }
  func.return %out : memref<4xf32>
}
// CHECK: 'attn.softmax_reduce' score region must yield an f32, got index
