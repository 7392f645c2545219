// RUN: dpl-opt %s --split-input-file --pass-pipeline=fuse-elementwise | filecheck %s
// Elementwise ops that only one elementwise op reads merge into it: the producers' bodies
// first, then the reader's; each outside operand becomes one block argument. An op with two
// readers, or read by anything else, stays.

func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    tensor.yield %e : f32
  }
  %b = tensor.elementwise ins(%a, %y, %x : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.mulf %s, %r : f32
    tensor.yield %t : f32
  }
  func.return %b : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %b = tensor.elementwise ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[E]], %[[Y]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[S]], %[[X]] : f32
// CHECK-NEXT:      tensor.yield %[[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %b

// -----

// A tree: two producers (one of them reading its position) into one reader, which then reads
// the positions too.
func.func @tree(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %n = arith.negf %v : f32
    tensor.yield %n : f32
  }
  %i = tensor.elementwise with_indices -> tensor<4x8xf32> {
  ^bb0(%i0: index, %i1: index):
    %c = arith.index_cast %i1 : index to i64
    %f = arith.sitofp %c : i64 to f32
    tensor.yield %f : f32
  }
  %b = tensor.elementwise ins(%a, %i : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    tensor.yield %s : f32
  }
  func.return %b : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @tree
// CHECK-NEXT:    %b = tensor.elementwise ins(%x : tensor<4x8xf32>) with_indices -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %{{.*}}: index, %[[I1:.*]]: index):
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[I1]] : index to i64
// CHECK-NEXT:      %[[F:.*]] = arith.sitofp %[[C]] : i64 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[N]], %[[F]] : f32
// CHECK-NEXT:      tensor.yield %[[S]] : f32

// -----

// Declined: %a has two readers (fuse-loops decides whether to compute it twice), %h is read by
// a reduce. %b and %c keep reading them.
func.func @declined(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>) {
  %a = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    tensor.yield %e : f32
  }
  %b = tensor.elementwise ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: f32):
    %n = arith.negf %p : f32
    tensor.yield %n : f32
  }
  %c = tensor.elementwise ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: f32):
    %s = arith.mulf %p, %p : f32
    tensor.yield %s : f32
  }
  %h = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %t = math.tanh %v : f32
    tensor.yield %t : f32
  }
  %r = tensor.reduce sum %h axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  func.return %b, %c, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>
}
// CHECK-LABEL: func.func @declined
// CHECK-NEXT:    %a = tensor.elementwise ins(%x : tensor<4x8xf32>)
// CHECK:         %b = tensor.elementwise ins(%a : tensor<4x8xf32>)
// CHECK:         %c = tensor.elementwise ins(%a : tensor<4x8xf32>)
// CHECK:         %h = tensor.elementwise ins(%x : tensor<4x8xf32>)
// CHECK:         %r = tensor.reduce sum %h axes [1]
