// RUN: dpl-opt %s --pass-pipeline='lower-to-loops,fuse-loops' | filecheck %s
// The seeds' RMSNorm in Tensor IR becomes one nest: a reduce loop (sum of squares) inside the row
// loop, then the normalising free loop reading x again.

func.func @main(%x: tensor<1x32x2048xf64>, %weight: tensor<2048xf64>) -> tensor<1x32x2048xf64> {
  %sq = tensor.elementwise ins(%x : tensor<1x32x2048xf64>) -> tensor<1x32x2048xf64> {
  ^bb0(%a: f64):
    %m = arith.mulf %a, %a : f64
    tensor.yield %m : f64
  }
  %ss = tensor.reduce sum %sq axes [2] : tensor<1x32x2048xf64> -> tensor<1x32x1xf64>
  %inv = tensor.elementwise ins(%ss : tensor<1x32x1xf64>) -> tensor<1x32x1xf64> {
  ^bb0(%a: f64):
    %n = arith.constant 4.8828125e-04 : f64
    %eps = arith.constant 1.0e-06 : f64
    %mean = arith.mulf %a, %n : f64
    %v = arith.addf %mean, %eps : f64
    %r = math.rsqrt %v : f64
    tensor.yield %r : f64
  }
  %inv_bc = tensor.index_map %inv affine_map<(d0, d1, d2) -> (d0, d1, 0)> : tensor<1x32x1xf64> -> tensor<1x32x2048xf64>
  %w_bc = tensor.index_map %weight affine_map<(d0, d1, d2) -> (d2)> : tensor<2048xf64> -> tensor<1x32x2048xf64>
  %out = tensor.elementwise ins(%x, %inv_bc, %w_bc : tensor<1x32x2048xf64>, tensor<1x32x2048xf64>, tensor<1x32x2048xf64>) -> tensor<1x32x2048xf64> {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %m = arith.mulf %a, %b : f64
    %n = arith.mulf %m, %c : f64
    tensor.yield %n : f64
  }
  func.return %out : tensor<1x32x2048xf64>
}

// CHECK-LABEL: func.func @main
// CHECK:         loop.kernel @k_out ins(%x, %weight : memref<1x32x2048xf64>, memref<2048xf64>) outs(%out : memref<1x32x2048xf64>) {
// CHECK:           loop.for free %a0 < 1 {
// CHECK-NEXT:        loop.for free %a1 < 32 {
// CHECK-NEXT:          %acc = loop.for reduce %r0 < 2048 -> f64 {
// CHECK-NEXT:            %a = loop.load %x[%a0, %a1, %r0] : memref<1x32x2048xf64>
// CHECK-NEXT:            %m = arith.mulf %a, %a : f64
// CHECK-NEXT:            loop.accumulate add %m : f64
// CHECK-NEXT:          }
// CHECK-NEXT:          %mean = arith.mulf %acc, %n : f64
// CHECK-NEXT:          %v = arith.addf %mean, %eps : f64
// CHECK-NEXT:          %r = math.rsqrt %v : f64
// CHECK-NEXT:          loop.for free %a2 < 2048 {
// CHECK-NEXT:            %a_1 = loop.load %x[%a0, %a1, %a2] : memref<1x32x2048xf64>
// CHECK-NEXT:            %in = loop.load %weight[%a2] : memref<2048xf64>
// CHECK-NEXT:            %m_1 = arith.mulf %a_1, %r : f64
// CHECK-NEXT:            %n_1 = arith.mulf %m_1, %in : f64
// CHECK-NEXT:            loop.store %n_1, %out[%a0, %a1, %a2] : memref<1x32x2048xf64>
// CHECK-NOT:     loop.kernel
