// RUN: dpl-opt %s | filecheck %s
// RUN: dpl-opt %s | dpl-opt | filecheck %s
// The seeds' Tensor IR for relu(matmul(x + bias, w)) and RMSNorm, written by hand, survive
// parse -> print -> parse; plus one of each remaining op.

func.func @relu_matmul(%x: tensor<16x64xf32>, %bias: tensor<64xf32>, %w: tensor<64x16xf32>) -> tensor<16x16xf32> {
  %bias_bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>
  %w_bc = tensor.index_map %w affine_map<(d0, d1, d2) -> (d1, d2)> : tensor<64x16xf32> -> tensor<16x64x16xf32>
  %add = tensor.elementwise ins(%x, %bias_bc : tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tensor.yield %s : f32
  }
  %add_bc = tensor.index_map %add affine_map<(d0, d1, d2) -> (d0, d1)> : tensor<16x64xf32> -> tensor<16x64x16xf32>
  %prod = tensor.elementwise ins(%add_bc, %w_bc : tensor<16x64x16xf32>, tensor<16x64x16xf32>) -> tensor<16x64x16xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    tensor.yield %p : f32
  }
  %red = tensor.reduce sum %prod axes [1] : tensor<16x64x16xf32> -> tensor<16x1x16xf32>
  %matmul = tensor.index_map %red affine_map<(d0, d1) -> (d0, 0, d1)> : tensor<16x1x16xf32> -> tensor<16x16xf32>
  %relu = tensor.elementwise ins(%matmul : tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: f32):
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %a, %zero : f32
    tensor.yield %r : f32
  }
  func.return %relu : tensor<16x16xf32>
}

// CHECK-LABEL: func.func @relu_matmul
// CHECK:       %bias_bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>
// CHECK:       %add = tensor.elementwise ins(%x, %bias_bc : tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> {
// CHECK-NEXT:  ^{{.*}}(%a: f32, %b: f32):
// CHECK-NEXT:    %s = arith.addf %a, %b : f32
// CHECK-NEXT:    tensor.yield %s : f32
// CHECK-NEXT:  }
// CHECK:       %red = tensor.reduce sum %prod axes [1] : tensor<16x64x16xf32> -> tensor<16x1x16xf32>
// CHECK-NEXT:  %matmul = tensor.index_map %red affine_map<(d0, d1) -> (d0, 0, d1)> : tensor<16x1x16xf32> -> tensor<16x16xf32>
// CHECK:       arith.maximumf

func.func @rms_norm(%x: tensor<1x32x2048xf32>, %weight: tensor<2048xf32>) -> tensor<1x32x2048xf32> {
  %sq = tensor.elementwise ins(%x : tensor<1x32x2048xf32>) -> tensor<1x32x2048xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    tensor.yield %m : f32
  }
  %ss = tensor.reduce sum %sq axes [2] : tensor<1x32x2048xf32> -> tensor<1x32x1xf32>
  %inv = tensor.elementwise ins(%ss : tensor<1x32x1xf32>) -> tensor<1x32x1xf32> {
  ^bb0(%a: f32):
    %n = arith.constant 4.8828125e-04 : f32
    %eps = arith.constant 1.0e-06 : f32
    %mean = arith.mulf %a, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    tensor.yield %r : f32
  }
  %inv_bc = tensor.index_map %inv affine_map<(d0, d1, d2) -> (d0, d1, 0)> : tensor<1x32x1xf32> -> tensor<1x32x2048xf32>
  %w_bc = tensor.index_map %weight affine_map<(d0, d1, d2) -> (d2)> : tensor<2048xf32> -> tensor<1x32x2048xf32>
  %out = tensor.elementwise ins(%x, %inv_bc, %w_bc : tensor<1x32x2048xf32>, tensor<1x32x2048xf32>, tensor<1x32x2048xf32>) -> tensor<1x32x2048xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %n = arith.mulf %m, %c : f32
    tensor.yield %n : f32
  }
  func.return %out : tensor<1x32x2048xf32>
}

// CHECK-LABEL: func.func @rms_norm
// CHECK:       %ss = tensor.reduce sum %sq axes [2] : tensor<1x32x2048xf32> -> tensor<1x32x1xf32>
// CHECK:       math.rsqrt
// CHECK:       %inv_bc = tensor.index_map %inv affine_map<(d0, d1, d2) -> (d0, d1, 0)> : tensor<1x32x1xf32> -> tensor<1x32x2048xf32>
// CHECK:       %out = tensor.elementwise ins(%x, %inv_bc, %w_bc : tensor<1x32x2048xf32>, tensor<1x32x2048xf32>, tensor<1x32x2048xf32>) -> tensor<1x32x2048xf32> {

func.func @others(%table: tensor<100x8xf32>, %ids: tensor<2x5xi64>, %a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x5x8xf32>, tensor<2x8xf32>, tensor<4x4xf32>, tensor<3xf32>, tensor<6x4xf32>) {
  %e = tensor.gather %table[%ids] axis 0 : tensor<100x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
  %c = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
  %mask = tensor.elementwise with_indices -> tensor<4x4xf32> {
  ^bb0(%i: index, %j: index):
    %gt = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %v = arith.select %gt, %ninf, %zero : f32
    tensor.yield %v : f32
  }
  %k = tensor.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = tensor.index_map %e affine_map<(d0, d1) -> ((d0 * 4 + d1) floordiv 40, ((d0 * 4 + d1) floordiv 8) mod 5, (d0 * 4 + d1) mod 8)> : tensor<2x5x8xf32> -> tensor<6x4xf32>
  %p = tensor.reduce max %r axes [0, 1] : tensor<6x4xf32> -> tensor<1x1xf32>
  func.return %e, %c, %mask, %k, %r : tensor<2x5x8xf32>, tensor<2x8xf32>, tensor<4x4xf32>, tensor<3xf32>, tensor<6x4xf32>
}

// CHECK-LABEL: func.func @others
// CHECK:       %e = tensor.gather %table[%ids] axis 0 : tensor<100x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
// CHECK-NEXT:  %c = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %mask = tensor.elementwise with_indices -> tensor<4x4xf32> {
// CHECK-NEXT:  ^{{.*}}(%i: index, %j: index):
// CHECK:       tensor.yield %v : f32
// CHECK:       %k = tensor.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK:       tensor.index_map %e affine_map<(d0, d1) -> (
// CHECK:       %p = tensor.reduce max %r axes [0, 1] : tensor<6x4xf32> -> tensor<1x1xf32>

func.func @scatter(%src: tensor<2x5x8xf32>, %ids: tensor<2x5x8xi64>) -> tensor<2x100x9xf32> {
  %s = tensor.scatter sum %src[%ids] axis 1 : tensor<2x5x8xf32>, tensor<2x5x8xi64> -> tensor<2x100x9xf32>
  %m = tensor.scatter max %src[%ids] axis 1 : tensor<2x5x8xf32>, tensor<2x5x8xi64> -> tensor<2x100x9xf32>
  func.return %s : tensor<2x100x9xf32>
}

// CHECK-LABEL: func.func @scatter
// CHECK:       %s = tensor.scatter sum %src[%ids] axis 1 : tensor<2x5x8xf32>, tensor<2x5x8xi64> -> tensor<2x100x9xf32>
// CHECK-NEXT:  %m = tensor.scatter max %src[%ids] axis 1 : tensor<2x5x8xf32>, tensor<2x5x8xi64> -> tensor<2x100x9xf32>
