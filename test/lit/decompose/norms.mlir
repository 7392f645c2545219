// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-norms | filecheck %s
// rms_norm: square, sum-reduce, *1/N, +eps, rsqrt, broadcast, mul, mul weight (the seeds' RMSNorm).
// layer_norm: mean, centre, biased variance, +eps, rsqrt, mul, weight, bias.

func.func @rms(%x: tensor<1x32x2048xf32>, %w: tensor<2048xf32>) -> tensor<1x32x2048xf32> {
  %r = torch.rms_norm %x, %w {eps = 1.0e-06 : f64, normalized_rank = 1} : (tensor<1x32x2048xf32>, tensor<2048xf32>) -> tensor<1x32x2048xf32>
  func.return %r : tensor<1x32x2048xf32>
}
// CHECK-LABEL: func.func @rms
// CHECK-NEXT:    %sq = tensor.elementwise ins(%x : tensor<1x32x2048xf32>) -> tensor<1x32x2048xf32> {
// CHECK:           arith.mulf %a, %a : f32
// CHECK:         %red = tensor.reduce sum %sq axes [2] : tensor<1x32x2048xf32> -> tensor<1x32x1xf32>
// CHECK-NEXT:    %inv = tensor.elementwise ins(%red : tensor<1x32x1xf32>) -> tensor<1x32x1xf32> {
// CHECK:           arith.constant 0.00048828125 : f32
// CHECK:           arith.constant 1.000000e-06 : f32
// CHECK:           math.rsqrt
// CHECK:         %bc = tensor.index_map %inv affine_map<(d0, d1, d2) -> (d0, d1, 0)> : tensor<1x32x1xf32> -> tensor<1x32x2048xf32>
// CHECK-NEXT:    %normed = tensor.elementwise ins(%x, %bc : tensor<1x32x2048xf32>, tensor<1x32x2048xf32>)
// CHECK:         %[[W:.*]] = tensor.index_map %w affine_map<(d0, d1, d2) -> (d2)> : tensor<2048xf32> -> tensor<1x32x2048xf32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%normed, %[[W]] : tensor<1x32x2048xf32>, tensor<1x32x2048xf32>)
// CHECK:         func.return %r

// -----

func.func @ln(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %r = torch.layer_norm %x, %w, %b {eps = 1.0e-05 : f64, normalized_rank = 1} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @ln
// CHECK-NEXT:    %red = tensor.reduce sum %x axes [1]
// CHECK-NEXT:    %mean = tensor.elementwise ins(%red
// CHECK:         %xc = tensor.elementwise ins(%x, %bc
// CHECK:           arith.subf
// CHECK:         %var = tensor.elementwise
// CHECK:         %inv = tensor.elementwise ins(%var
// CHECK:           arith.constant 1.000000e-05 : f32
// CHECK:           math.rsqrt
// CHECK:         %normed = tensor.elementwise ins(%xc
// CHECK:         tensor.index_map %w affine_map<(d0, d1) -> (d1)>
// CHECK:         tensor.index_map %b affine_map<(d0, d1) -> (d1)>
// CHECK-NEXT:    %r = tensor.elementwise
// CHECK:           arith.addf

// -----

// group_norm: x viewed as [N, G, rest], layer-norm statistics over rest, viewed back, weight per channel.
func.func @group_norm(%x: tensor<2x4x3xf32>, %w: tensor<4xf32>) -> tensor<2x4x3xf32> {
  %r = torch.group_norm %x, %w {eps = 1.0e-05 : f64, num_groups = 2} : (tensor<2x4x3xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  func.return %r : tensor<2x4x3xf32>
}
// CHECK-LABEL: func.func @group_norm
// CHECK-NEXT:    %grouped = tensor.index_map %x affine_map<(d0, d1, d2) -> (d0, (((d1 * 6) + d2) floordiv 3), (((d1 * 6) + d2) mod 3))> : tensor<2x4x3xf32> -> tensor<2x2x6xf32>
// CHECK-NEXT:    %red = tensor.reduce sum %grouped axes [2] : tensor<2x2x6xf32> -> tensor<2x2x1xf32>
// CHECK:         %xc = tensor.elementwise ins(%grouped
// CHECK:         %red_1 = tensor.reduce sum %sq axes [2]
// CHECK:         %normed = tensor.elementwise ins(%xc
// CHECK:         %[[BACK:.*]] = tensor.index_map %normed affine_map<(d0, d1, d2) -> (d0, (((d1 * 3) + d2) floordiv 6), (((d1 * 3) + d2) mod 6))> : tensor<2x2x6xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    %bc_2 = tensor.index_map %w affine_map<(d0, d1, d2) -> (d1)> : tensor<4xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%[[BACK]], %bc_2

// -----

// batch_norm in inference: the running statistics per channel, no reduction.
func.func @batch_norm(%x: tensor<2x4x3xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4x3xf32> {
  %r = torch.batch_norm %x, %m, %v {eps = 1.0e-05 : f64} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  func.return %r : tensor<2x4x3xf32>
}
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %inv = tensor.elementwise ins(%v : tensor<4xf32>) -> tensor<4xf32> {
// CHECK:           math.rsqrt
// CHECK:         %bc = tensor.index_map %m affine_map<(d0, d1, d2) -> (d1)> : tensor<4xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    %xc = tensor.elementwise ins(%x, %bc
// CHECK:         %bc_1 = tensor.index_map %inv affine_map<(d0, d1, d2) -> (d1)>
// CHECK-NEXT:    %r = tensor.elementwise ins(%xc, %bc_1
// CHECK-NOT:     tensor.reduce

// -----

// Not a norm: left alone.
func.func @leaves_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = torch.softmax %x {dim = 1} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %p : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @leaves_softmax
// CHECK-NEXT:    torch.softmax
