// RUN: dpl-opt %s --split-input-file --pass-pipeline=stack-as-select | filecheck %s
// stack-as-select: a concat of 2 to 4 parts of extent 1 along its axis (torch.stack) becomes the
// parts broadcast along the axis and one elementwise select by the index there; a concat with a
// longer part, or of more parts, stays.

func.func @stack2(%a: tensor<4x1xf32>, %b: tensor<4x1xf32>) -> tensor<4x2xf32> {
  %s = tensor.concat %a, %b axis 1 : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x2xf32>
  func.return %s : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @stack2
// CHECK-NEXT:    %[[A:.*]] = tensor.index_map %a affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.index_map %b affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %s = tensor.elementwise ins(%[[A]], %[[B]] : tensor<4x2xf32>, tensor<4x2xf32>) with_indices -> tensor<4x2xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: index, %[[J:.*]]: index):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[AT:.*]] = arith.cmpi eq, %[[J]], %[[ONE]] : index
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[AT]], %[[Y]], %[[X]] : f32
// CHECK-NEXT:      tensor.yield %[[V]] : f32

// -----

// Three parts along the first axis: two selects, the last part's first.
func.func @stack3(%a: tensor<1x5xi32>, %b: tensor<1x5xi32>, %c: tensor<1x5xi32>) -> tensor<3x5xi32> {
  %s = tensor.concat %a, %b, %c axis 0 : tensor<1x5xi32>, tensor<1x5xi32>, tensor<1x5xi32> -> tensor<3x5xi32>
  func.return %s : tensor<3x5xi32>
}
// CHECK-LABEL: func.func @stack3
// CHECK:         affine_map<(d0, d1) -> (0, d1)>
// CHECK:         ^{{.*}}(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[Z:.*]]: i32, %[[I:.*]]: index, %{{.*}}: index):
// CHECK:           %[[S1:.*]] = arith.select %{{.*}}, %[[Y]], %[[X]] : i32
// CHECK:           %[[S2:.*]] = arith.select %{{.*}}, %[[Z]], %[[S1]] : i32
// CHECK-NEXT:      tensor.yield %[[S2]] : i32

// -----

// Declined: a part of extent 2 (a concat, not a stack), and a stack of 5 parts.
func.func @kept(%a: tensor<4x2xf32>, %b: tensor<4x1xf32>) -> (tensor<4x3xf32>, tensor<4x5xf32>) {
  %c = tensor.concat %a, %b axis 1 : tensor<4x2xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
  %d = tensor.concat %b, %b, %b, %b, %b axis 1 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x5xf32>
  func.return %c, %d : tensor<4x3xf32>, tensor<4x5xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %c = tensor.concat %a, %b axis 1
// CHECK-NEXT:    %d = tensor.concat %b, %b, %b, %b, %b axis 1
// CHECK-NOT:     tensor.elementwise
