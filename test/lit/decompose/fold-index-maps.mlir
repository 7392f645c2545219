// RUN: dpl-opt %s --split-input-file --pass-pipeline=fold-index-maps | filecheck %s
// Chains of index_maps compose into one; identity maps disappear; other maps stay.

func.func @chain(%x: tensor<2x3x4xf32>) -> tensor<4x2x3x5xf32> {
  %t = tensor.index_map %x affine_map<(d0, d1, d2) -> (d1, d2, d0)> : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %b = tensor.index_map %t affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)> : tensor<4x2x3xf32> -> tensor<4x2x3x5xf32>
  func.return %b : tensor<4x2x3x5xf32>
}
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %b = tensor.index_map %x affine_map<(d0, d1, d2, d3) -> (d1, d2, d0)> : tensor<2x3x4xf32> -> tensor<4x2x3x5xf32>
// CHECK-NEXT:    func.return %b

// -----

func.func @reshape_back(%x: tensor<2x12xf32>) -> tensor<2x12xf32> {
  %r = tensor.index_map %x affine_map<(d0, d1, d2) -> (d0, d1 * 4 + d2)> : tensor<2x12xf32> -> tensor<2x3x4xf32>
  %s = tensor.index_map %r affine_map<(d0, d1) -> (d0, d1 floordiv 4, d1 mod 4)> : tensor<2x3x4xf32> -> tensor<2x12xf32>
  func.return %s : tensor<2x12xf32>
}
// CHECK-LABEL: func.func @reshape_back
// CHECK-NEXT:    func.return %x

// -----

func.func @shared_inner(%x: tensor<8xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %a = tensor.index_map %x affine_map<(d0) -> (d0 * 2)> : tensor<8xf32> -> tensor<4xf32>
  %b = tensor.index_map %a affine_map<(d0) -> (d0 + 2)> : tensor<4xf32> -> tensor<2xf32>
  func.return %a, %b : tensor<4xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @shared_inner
// CHECK-NEXT:    %a = tensor.index_map %x affine_map<(d0) -> ((d0 * 2))> : tensor<8xf32> -> tensor<4xf32>
// CHECK-NEXT:    %b = tensor.index_map %x affine_map<(d0) -> (((d0 * 2) + 4))> : tensor<8xf32> -> tensor<2xf32>

// -----

// An index_map of an elementwise result is not a chain: left alone.
func.func @leaves_alone(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %n = tensor.elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32):
    %m = arith.negf %a : f32
    tensor.yield %m : f32
  }
  %b = tensor.index_map %n affine_map<(d0, d1) -> (d1)> : tensor<4xf32> -> tensor<3x4xf32>
  func.return %b : tensor<3x4xf32>
}
// CHECK-LABEL: func.func @leaves_alone
// CHECK:         %b = tensor.index_map %n affine_map<(d0, d1) -> (d1)> : tensor<4xf32> -> tensor<3x4xf32>
