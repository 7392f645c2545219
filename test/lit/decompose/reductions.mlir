// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-reductions | filecheck %s
// torch.sum/mean/amax reduce with kept unit dims (dropped by an index_map without keepdim);
// softmax is max-reduce, broadcast, exp(x - max), sum-reduce, broadcast, divide.

func.func @sum(%x: tensor<3x4x8xf32>) -> tensor<4xf32> {
  %s = torch.sum %x {dims = [0, 2], keepdim = false} : (tensor<3x4x8xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
// CHECK-LABEL: func.func @sum
// CHECK-NEXT:    %red = tensor.reduce sum %x axes [0, 2] : tensor<3x4x8xf32> -> tensor<1x4x1xf32>
// CHECK-NEXT:    %s = tensor.index_map %red affine_map<(d0) -> (0, d0, 0)> : tensor<1x4x1xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %s

// -----

func.func @mean(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %m = torch.mean %x {dims = [1], keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  func.return %m : tensor<4x1xf32>
}
// CHECK-LABEL: func.func @mean
// CHECK-NEXT:    %red = tensor.reduce sum %x axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %m = tensor.elementwise ins(%red : tensor<4x1xf32>) -> tensor<4x1xf32> {
// CHECK:           arith.constant 1.250000e-01 : f32
// CHECK:         func.return %m

// -----

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = torch.softmax %x {dim = 1} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %p : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %max = tensor.reduce max %x axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %bc = tensor.index_map %max affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %exp = tensor.elementwise ins(%x, %bc : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK:         %sum = tensor.reduce sum %exp axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %[[BC:.*]] = tensor.index_map %sum affine_map<(d0, d1) -> (d0, 0)>
// CHECK-NEXT:    %p = tensor.elementwise ins(%exp, %[[BC]] : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           arith.divf

// -----

// Not a reduction: left alone.
func.func @leaves_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = torch.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @leaves_relu
// CHECK-NEXT:    torch.relu
