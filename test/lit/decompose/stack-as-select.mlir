// RUN: dpl-opt %s --split-input-file --pass-pipeline=stack-as-select | filecheck %s
// stack-as-select: a concat of 2 to 4 parts of extent 1 along the last axis (torch.stack(.., -1))
// becomes the parts broadcast along the axis and one elementwise select by the index there; a
// concat with a longer part, of more parts, or along another axis stays.

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

// Three parts: two selects, the last part's first.
func.func @stack3(%a: tensor<5x1xi32>, %b: tensor<5x1xi32>, %c: tensor<5x1xi32>) -> tensor<5x3xi32> {
  %s = tensor.concat %a, %b, %c axis 1 : tensor<5x1xi32>, tensor<5x1xi32>, tensor<5x1xi32> -> tensor<5x3xi32>
  func.return %s : tensor<5x3xi32>
}
// CHECK-LABEL: func.func @stack3
// CHECK:         affine_map<(d0, d1) -> (d0, 0)>
// CHECK:         ^{{.*}}(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[Z:.*]]: i32, %{{.*}}: index, %[[J:.*]]: index):
// CHECK:           %[[S1:.*]] = arith.select %{{.*}}, %[[Y]], %[[X]] : i32
// CHECK:           %[[S2:.*]] = arith.select %{{.*}}, %[[Z]], %[[S1]] : i32
// CHECK-NEXT:      tensor.yield %[[S2]] : i32

// -----

// Declined: a part of extent 2 (a concat, not a stack), a stack of 5 parts, and a stack along
// the first axis.
func.func @kept(%a: tensor<4x2xf32>, %b: tensor<4x1xf32>, %r: tensor<1x4xf32>) -> (tensor<4x3xf32>, tensor<4x5xf32>, tensor<2x4xf32>) {
  %c = tensor.concat %a, %b axis 1 : tensor<4x2xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
  %d = tensor.concat %b, %b, %b, %b, %b axis 1 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x5xf32>
  %e = tensor.concat %r, %r axis 0 : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
  func.return %c, %d, %e : tensor<4x3xf32>, tensor<4x5xf32>, tensor<2x4xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %c = tensor.concat %a, %b axis 1
// CHECK-NEXT:    %d = tensor.concat %b, %b, %b, %b, %b axis 1
// CHECK-NEXT:    %e = tensor.concat %r, %r axis 0
// CHECK-NOT:     tensor.elementwise
