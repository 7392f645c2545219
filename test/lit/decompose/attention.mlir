// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-attention | filecheck %s
// SDPA: scores by the matmul pattern (GQA: kv head = h floordiv 2), * scale and the causal mask in
// one elementwise op with indices, softmax, then @ v.

func.func @attn(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %o = torch.scaled_dot_product_attention %q, %k, %v {enable_gqa = true, is_causal = true, scale = 0.35355339059327373 : f64} : (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  func.return %o : tensor<1x4x6x8xf32>
}
// CHECK-LABEL: func.func @attn
// CHECK-NEXT:    %lhs_bc = tensor.index_map %q affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)> : tensor<1x4x6x8xf32> -> tensor<1x4x6x8x6xf32>
// CHECK-NEXT:    %rhs_bc = tensor.index_map %k affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 2), d4, d3)> : tensor<1x2x6x8xf32> -> tensor<1x4x6x8x6xf32>
// CHECK:         %red = tensor.reduce sum %prod axes [3] : tensor<1x4x6x8x6xf32> -> tensor<1x4x6x1x6xf32>
// CHECK-NEXT:    %scores = tensor.index_map %red affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3)>
// CHECK-NEXT:    %masked = tensor.elementwise ins(%scores : tensor<1x4x6x6xf32>) with_indices -> tensor<1x4x6x6xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:[a-z0-9_]+]]: f32, %i0: index, %i1: index, %i2: index, %i3: index):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpi ugt, %i3, %i2 : index
// CHECK-NEXT:      %[[NINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[SC:.*]] = arith.constant 0.353553385 : f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[A]], %[[SC]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[GT]], %[[NINF]], %[[S]] : f32
// CHECK-NEXT:      tensor.yield %[[R]] : f32
// CHECK:         %max = tensor.reduce max %masked axes [3]
// CHECK:         %sum = tensor.reduce sum %exp axes [3]
// CHECK:         %[[P:.*]] = tensor.elementwise ins(%exp
// CHECK:         tensor.index_map %[[P]] affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)> : tensor<1x4x6x6xf32> -> tensor<1x4x6x6x8xf32>
// CHECK-NEXT:    tensor.index_map %v affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 2), d3, d4)> : tensor<1x2x6x8xf32> -> tensor<1x4x6x6x8xf32>
// CHECK:         tensor.reduce sum %{{.*}} axes [3] : tensor<1x4x6x6x8xf32> -> tensor<1x4x6x1x8xf32>
// CHECK-NEXT:    %o = tensor.index_map

// -----

func.func @bool_mask(%q: tensor<2x4x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>, %m: tensor<4x5xi1>) -> tensor<2x4x8xf32> {
  %o = torch.scaled_dot_product_attention %q, %k, %v, %m {enable_gqa = false, is_causal = false, scale = 0.5 : f64} : (tensor<2x4x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<4x5xi1>) -> tensor<2x4x8xf32>
  func.return %o : tensor<2x4x8xf32>
}
// CHECK-LABEL: func.func @bool_mask
// CHECK:         %bc = tensor.index_map %m affine_map<(d0, d1, d2) -> (d1, d2)> : tensor<4x5xi1> -> tensor<2x4x5xi1>
// CHECK-NEXT:    %masked = tensor.elementwise ins(%scores, %bc : tensor<2x4x5xf32>, tensor<2x4x5xi1>) -> tensor<2x4x5xf32> {
// CHECK:           arith.select %{{b[_0-9]*}},

// -----

// Not attention: left alone.
func.func @leaves_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %r = torch.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @leaves_matmul
// CHECK-NEXT:    torch.matmul
