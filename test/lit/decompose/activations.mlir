// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-activations | filecheck %s
// The piecewise activations and clamp become one tensor.elementwise each, op for op as ATen
// computes them; ops of other passes (relu) stay.

func.func @leaky_relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = torch.leaky_relu %x {negative_slope = 0.1 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @leaky_relu
// CHECK:         %r = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           %[[P:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK:           %[[S:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:      %[[L:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[P]], %{{.*}}, %[[L]] : f32
// CHECK-NEXT:      tensor.yield %[[R]] : f32

// -----

func.func @elu(%x: tensor<8xf64>) -> tensor<8xf64> {
  %r = torch.elu %x {alpha = 0.5 : f64, input_scale = 2.0 : f64, scale = 1.0 : f64} : (tensor<8xf64>) -> tensor<8xf64>
  func.return %r : tensor<8xf64>
}
// CHECK-LABEL: func.func @elu
// CHECK:           %[[N:.*]] = arith.cmpf ole
// CHECK:           %[[X:.*]] = arith.mulf
// CHECK-NEXT:      %[[E:.*]] = math.expm1 %[[X]] : f64
// CHECK-NEXT:      %[[A:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:      %[[L:.*]] = arith.mulf %[[E]], %[[A]] : f64
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[N]], %[[L]], %{{.*}} : f64

// -----

func.func @softplus(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.softplus %x {beta = 2.0 : f64, threshold = 20.0 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @softplus
// CHECK:           %[[B:.*]] = arith.mulf
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT:      %[[L:.*]] = math.log1p %[[E]] : f32
// CHECK:           %[[S:.*]] = arith.divf %[[L]]
// CHECK:           %[[T:.*]] = arith.cmpf ogt, %[[B]]
// CHECK-NEXT:      arith.select %[[T]], %{{.*}}, %[[S]] : f32

// -----

func.func @hardswish(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.hardswish %x : (tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @hardswish
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK-NEXT:      arith.mulf
// CHECK:           arith.divf

// -----

func.func @clamp_max_only(%x: tensor<4x8xf32>, %hi: tensor<8xf32>) -> tensor<4x8xf32> {
  %r = torch.clamp %x, %hi {has_min = false} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @clamp_max_only
// CHECK-NEXT:    %bc = tensor.index_map %hi affine_map<(d0, d1) -> (d1)> : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%x, %bc : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.minimumf
// CHECK-NEXT:      tensor.yield %[[M]] : f32

// -----

func.func @relu_declined(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.relu %x : (tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @relu_declined
// CHECK-NEXT:    %r = torch.relu %x
