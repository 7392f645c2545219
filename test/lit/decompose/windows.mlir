// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-windows | filecheck %s
// Window ops index-map their (padded) input onto a box whose last axis flattens the window
// (and a group's input channels) and reduce over it; matmul belongs to decompose-matmul. A
// padded input is one elementwise op over the padded shape: the input read at (o + n - p) mod n
// (never negative), kept where p <= o < p + n, else the pad value (-inf for max pooling).

func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %r = torch.convolution %x, %w {dilation = [1, 1], groups = 1, padding = [0, 0], stride = [1, 1]} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  func.return %r : tensor<1x3x3x3xf32>
}
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %lhs_bc = tensor.index_map %x affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, ((d1 * 2) + (d5 floordiv 9)), (d3 + ((d5 mod 9) floordiv 3)), (d4 + ((d5 mod 9) mod 3)))> : tensor<1x2x5x5xf32> -> tensor<1x1x3x3x3x18xf32>
// CHECK-NEXT:    %rhs_bc = tensor.index_map %w affine_map<(d0, d1, d2, d3, d4, d5) -> (((d1 * 3) + d2), (d5 floordiv 9), ((d5 mod 9) floordiv 3), ((d5 mod 9) mod 3))> : tensor<3x2x3x3xf32> -> tensor<1x1x3x3x3x18xf32>
// CHECK-NEXT:    %prod = tensor.elementwise ins(%lhs_bc, %rhs_bc
// CHECK:         %red = tensor.reduce sum %prod axes [5] : tensor<1x1x3x3x3x18xf32> -> tensor<1x1x3x3x3x1xf32>
// CHECK-NEXT:    %conv = tensor.index_map %red
// CHECK-NEXT:    %r = tensor.index_map %conv affine_map<(d0, d1, d2, d3) -> (d0, 0, d1, d2, d3)> : tensor<1x1x3x3x3xf32> -> tensor<1x3x3x3xf32>

// -----

func.func @max_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %r = torch.max_pool %x {dilation = [1, 1], kernel = [2, 2], padding = [1, 1], stride = [3, 3]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return %r : tensor<1x2x2x2xf32>
}
// CHECK-LABEL: func.func @max_pool
// CHECK-NEXT:    %shifted = tensor.index_map %x affine_map<(d0, d1, d2, d3) -> (d0, d1, ((d2 + 3) mod 4), ((d3 + 3) mod 4))> : tensor<1x2x4x4xf32> -> tensor<1x2x6x6xf32>
// CHECK-NEXT:    %padded = tensor.elementwise ins(%shifted : tensor<1x2x6x6xf32>) with_indices -> tensor<1x2x6x6xf32> {
// CHECK:           %{{.*}} = arith.cmpi uge, %i2, %{{.*}} : index
// CHECK:           %{{.*}} = arith.cmpi ult, %i3, %{{.*}} : index
// CHECK:           %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.select %{{.*}}, %a, %[[NEGINF]] : f32
// CHECK-NEXT:      tensor.yield %[[V]] : f32
// CHECK:         %window = tensor.index_map %padded affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, ((d2 * 3) + (d4 floordiv 2)), ((d3 * 3) + (d4 mod 2)))> : tensor<1x2x6x6xf32> -> tensor<1x2x2x2x4xf32>
// CHECK-NEXT:    %red = tensor.reduce max %window axes [4]

// -----

func.func @avg_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %r = torch.avg_pool %x {count_include_pad = true, dilation = [1, 1], divisor = 0, kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return %r : tensor<1x2x2x2xf32>
}
// CHECK-LABEL: func.func @avg_pool
// CHECK-NEXT:    %window = tensor.index_map %x affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, ((d2 * 2) + (d4 floordiv 2)), ((d3 * 2) + (d4 mod 2)))>
// CHECK-NEXT:    %red = tensor.reduce sum %window axes [4]
// CHECK:         %r = tensor.elementwise
// CHECK:           arith.constant 2.500000e-01 : f32

// -----

func.func @matmul_declined(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %r = torch.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @matmul_declined
// CHECK-NEXT:    %r = torch.matmul %a, %b
