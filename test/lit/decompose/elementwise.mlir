// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-elementwise | filecheck %s
// torch's pointwise ops become one tensor.elementwise each; binary operands are broadcast first.

func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = torch.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @relu
// CHECK-NEXT:    %r = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %{{.*}}, %[[Z]] : f32
// CHECK-NEXT:      tensor.yield %[[M]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>

// -----

func.func @add_bias(%x: tensor<16x64xf32>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %add = torch.add %x, %bias : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  func.return %add : tensor<16x64xf32>
}
// CHECK-LABEL: func.func @add_bias
// CHECK-NEXT:    %bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:    %add = tensor.elementwise ins(%x, %bc : tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> {
// CHECK:           arith.addf
// CHECK:         func.return %add

// -----

func.func @sub_scalar(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %c = torch.constant {value = dense<2.0> : tensor<f64>} : () -> tensor<f64>
  %r = torch.sub %x, %c : (tensor<4x8xf64>, tensor<f64>) -> tensor<4x8xf64>
  func.return %r : tensor<4x8xf64>
}
// CHECK-LABEL: func.func @sub_scalar
// CHECK-NEXT:    %c = tensor.elementwise -> tensor<f64> {
// CHECK-NEXT:      %{{.*}} = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:      tensor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %bc = tensor.index_map %c affine_map<(d0, d1) -> ()> : tensor<f64> -> tensor<4x8xf64>
// CHECK-NEXT:    %r = tensor.elementwise ins(%x, %bc : tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64> {
// CHECK:           arith.subf

// -----

func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.gelu %x {approximate = #torch<approximate none>} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @gelu
// CHECK:         math.erf
// CHECK:         tensor.yield

// -----

func.func @silu_cast(%x: tensor<8xf32>) -> tensor<8xf64> {
  %s = torch.silu %x : (tensor<8xf32>) -> tensor<8xf32>
  %r = torch.to_dtype %s : (tensor<8xf32>) -> tensor<8xf64>
  func.return %r : tensor<8xf64>
}
// CHECK-LABEL: func.func @silu_cast
// CHECK:         math.exp
// CHECK:         %r = tensor.elementwise ins(%s : tensor<8xf32>) -> tensor<8xf64> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      tensor.yield %[[E]] : f64

// -----

// Not pointwise: left for the other decompositions.
func.func @leaves_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %r = torch.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @leaves_matmul
// CHECK-NEXT:    %r = torch.matmul %a, %b
