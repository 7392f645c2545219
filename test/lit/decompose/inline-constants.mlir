// RUN: dpl-opt %s --split-input-file --pass-pipeline=inline-constants | filecheck %s
// A scalar constant (a 0-d tensor.elementwise without operands, broadcast by an index_map) that
// an elementwise op reads is computed in that op's body; the constant and its broadcast go once
// nothing reads them. Kept: a 0-d value that reads an input, and a broadcast of a 1-d value.

func.func @scale(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = tensor.elementwise -> tensor<f32> {
    %k = arith.constant 2.000000e+00 : f32
    tensor.yield %k : f32
  }
  %b = tensor.index_map %c affine_map<(d0, d1) -> ()> : tensor<f32> -> tensor<4x8xf32>
  %y = tensor.elementwise ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: f32, %w: f32):
    %m = arith.mulf %v, %w : f32
    tensor.yield %m : f32
  }
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @scale
// CHECK-NEXT:    %y = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: f32):
// CHECK-NEXT:      %[[K:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[V]], %[[K]] : f32
// CHECK-NEXT:      tensor.yield %[[M]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y

// -----

// The constant read by two ops, and by position-reading one: each computes it; then it goes.
func.func @shared(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c = tensor.elementwise -> tensor<f32> {
    %k = arith.constant 1.500000e+00 : f32
    %h = arith.mulf %k, %k : f32
    tensor.yield %h : f32
  }
  %b = tensor.index_map %c affine_map<(d0) -> ()> : tensor<f32> -> tensor<3xf32>
  %y = tensor.elementwise ins(%b, %x : tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%w: f32, %v: f32):
    %s = arith.subf %v, %w : f32
    tensor.yield %s : f32
  }
  %z = tensor.elementwise ins(%b : tensor<3xf32>) with_indices -> tensor<3xf32> {
  ^bb0(%w: f32, %i: index):
    %n = arith.index_cast %i : index to i64
    %f = arith.sitofp %n : i64 to f32
    %a = arith.addf %w, %f : f32
    tensor.yield %a : f32
  }
  func.return %y, %z : tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %y = tensor.elementwise ins(%x : tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: f32):
// CHECK-NEXT:      %[[K:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:      %[[H:.*]] = arith.mulf %[[K]], %[[K]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.subf %[[V]], %[[H]] : f32
// CHECK-NEXT:      tensor.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %z = tensor.elementwise with_indices -> tensor<3xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:      %[[K2:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:      %[[H2:.*]] = arith.mulf %[[K2]], %[[K2]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:           arith.addf %[[H2]]
// CHECK:         func.return %y, %z

// -----

// Declined: a 0-d value computed from an input, and a broadcast row.
func.func @declined(%x: tensor<3xf32>, %r: tensor<3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %c = tensor.elementwise ins(%s : tensor<f32>) -> tensor<f32> {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    tensor.yield %e : f32
  }
  %b = tensor.index_map %c affine_map<(d0, d1) -> ()> : tensor<f32> -> tensor<2x3xf32>
  %rb = tensor.index_map %r affine_map<(d0, d1) -> (d1)> : tensor<3xf32> -> tensor<2x3xf32>
  %y = tensor.elementwise ins(%b, %rb : tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%w: f32, %v: f32):
    %m = arith.mulf %v, %w : f32
    tensor.yield %m : f32
  }
  func.return %y : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @declined
// CHECK:         %c = tensor.elementwise ins(%s : tensor<f32>)
// CHECK:         %b = tensor.index_map %c
// CHECK:         %y = tensor.elementwise ins(%b, %rb : tensor<2x3xf32>, tensor<2x3xf32>)
