// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-logic | filecheck %s
// Comparisons give i1 tensors (floats ordered, ne unordered; bools unsigned); logical ops
// test each operand against 0; where selects; arithmetic (add) is left to its own pass.

func.func @ne_float(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xi1> {
  %r = torch.ne %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  func.return %r : tensor<4x8xi1>
}
// CHECK-LABEL: func.func @ne_float
// CHECK-NEXT:    %bc = tensor.index_map %y affine_map<(d0, d1) -> (d1)> : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%x, %bc : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.cmpf une, %[[A]], %[[B]] : f32
// CHECK-NEXT:      tensor.yield %[[C]] : i1

// -----

func.func @lt_bool(%a: tensor<8xi1>, %b: tensor<8xi1>) -> tensor<8xi1> {
  %r = torch.lt %a, %b : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
  func.return %r : tensor<8xi1>
}
// CHECK-LABEL: func.func @lt_bool
// CHECK:           %[[C:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      tensor.yield %[[C]] : i1

// -----

func.func @logical_and(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xi1> {
  %r = torch.logical_and %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  func.return %r : tensor<8xi1>
}
// CHECK-LABEL: func.func @logical_and
// CHECK:           %[[A:.*]] = arith.cmpf une
// CHECK:           %[[B:.*]] = arith.cmpf une
// CHECK-NEXT:      %[[C:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK-NEXT:      tensor.yield %[[C]] : i1

// -----

func.func @isinf(%x: tensor<8xf32>) -> tensor<8xi1> {
  %r = torch.isinf %x : (tensor<8xf32>) -> tensor<8xi1>
  func.return %r : tensor<8xi1>
}
// CHECK-LABEL: func.func @isinf
// CHECK:           %[[A:.*]] = math.absf
// CHECK-NEXT:      %[[I:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.cmpf oeq, %[[A]], %[[I]] : f32

// -----

func.func @where(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %y: tensor<f32>) -> tensor<4x8xf32> {
  %r = torch.where %c, %x, %y : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @where
// CHECK-NEXT:    %bc = tensor.index_map %c affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xi1> -> tensor<4x8xi1>
// CHECK-NEXT:    %bc_1 = tensor.index_map %y affine_map<(d0, d1) -> ()> : tensor<f32> -> tensor<4x8xf32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%bc, %x, %bc_1 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32

// -----

func.func @add_declined(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.add %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @add_declined
// CHECK-NEXT:    %r = torch.add %x, %x

// -----

// Shifts guard their amount as PyTorch does: one unsigned compare against the width catches
// negative and too-large amounts; >> then shifts by width - 1 (the sign's fill), << gives 0.
func.func @shifts(%a: tensor<8xi32>, %b: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %l = torch.bitwise_left_shift %a, %b : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %r = torch.bitwise_right_shift %a, %b : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  func.return %l, %r : tensor<8xi32>, tensor<8xi32>
}
// CHECK-LABEL: func.func @shifts
// CHECK:           ^{{.*}}(%[[A:.*]]: i32, %[[B:.*]]: i32):
// CHECK-NEXT:      %[[W:.*]] = arith.constant 32 : i32
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[B]], %[[W]] : i32
// CHECK-NEXT:      %[[M:.*]] = arith.constant 31 : i32
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[OK]], %[[B]], %[[M]] : i32
// CHECK-NEXT:      %[[L:.*]] = arith.shli %[[A]], %[[S]] : i32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[OK]], %[[L]], %[[Z]] : i32
// CHECK-NEXT:      tensor.yield %[[R]] : i32
// CHECK:           ^{{.*}}(%[[A2:.*]]: i32, %[[B2:.*]]: i32):
// CHECK:           %[[S2:.*]] = arith.select %{{.*}}, %[[B2]], %{{.*}} : i32
// CHECK-NEXT:      %[[R2:.*]] = arith.shrsi %[[A2]], %[[S2]] : i32
// CHECK-NEXT:      tensor.yield %[[R2]] : i32
