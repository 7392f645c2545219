// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-matmul | filecheck %s
// matmul/linear: index_map both operands onto [.., M, K, N], multiply, sum over K, drop K
// (the seeds' Tensor IR for relu(matmul(x + bias, w))).

func.func @relu_matmul(%x: tensor<16x64xf32>, %bias: tensor<64xf32>, %w: tensor<64x16xf32>) -> tensor<16x16xf32> {
  %add = torch.add %x, %bias : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %matmul = torch.matmul %add, %w : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %relu = torch.relu %matmul : (tensor<16x16xf32>) -> tensor<16x16xf32>
  func.return %relu : tensor<16x16xf32>
}
// CHECK-LABEL: func.func @relu_matmul
// CHECK:         %lhs_bc = tensor.index_map %add affine_map<(d0, d1, d2) -> (d0, d1)> : tensor<16x64xf32> -> tensor<16x64x16xf32>
// CHECK-NEXT:    %rhs_bc = tensor.index_map %w affine_map<(d0, d1, d2) -> (d1, d2)> : tensor<64x16xf32> -> tensor<16x64x16xf32>
// CHECK-NEXT:    %prod = tensor.elementwise ins(%lhs_bc, %rhs_bc : tensor<16x64x16xf32>, tensor<16x64x16xf32>) -> tensor<16x64x16xf32> {
// CHECK:           arith.mulf
// CHECK:         %red = tensor.reduce sum %prod axes [1] : tensor<16x64x16xf32> -> tensor<16x1x16xf32>
// CHECK-NEXT:    %matmul = tensor.index_map %red affine_map<(d0, d1) -> (d0, 0, d1)> : tensor<16x1x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %relu = torch.relu %matmul

// -----

func.func @batched(%a: tensor<2x1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %r = torch.matmul %a, %b : (tensor<2x1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32>
  func.return %r : tensor<2x3x4x6xf32>
}
// CHECK-LABEL: func.func @batched
// CHECK-NEXT:    %lhs_bc = tensor.index_map %a affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3)> : tensor<2x1x4x5xf32> -> tensor<2x3x4x5x6xf32>
// CHECK-NEXT:    %rhs_bc = tensor.index_map %b affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)> : tensor<3x5x6xf32> -> tensor<2x3x4x5x6xf32>
// CHECK:         %red = tensor.reduce sum %prod axes [3] : tensor<2x3x4x5x6xf32> -> tensor<2x3x4x1x6xf32>
// CHECK-NEXT:    %r = tensor.index_map %red affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0, d3)> : tensor<2x3x4x1x6xf32> -> tensor<2x3x4x6xf32>

// -----

func.func @linear(%x: tensor<2x4x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>) -> tensor<2x4x6xf32> {
  %y = torch.linear %x, %w, %b : (tensor<2x4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  func.return %y : tensor<2x4x6xf32>
}
// CHECK-LABEL: func.func @linear
// CHECK-NEXT:    %lhs_bc = tensor.index_map %x affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)> : tensor<2x4x8xf32> -> tensor<2x4x8x6xf32>
// CHECK-NEXT:    %rhs_bc = tensor.index_map %w affine_map<(d0, d1, d2, d3) -> (d3, d2)> : tensor<6x8xf32> -> tensor<2x4x8x6xf32>
// CHECK:         %red = tensor.reduce sum %prod axes [2] : tensor<2x4x8x6xf32> -> tensor<2x4x1x6xf32>
// CHECK-NEXT:    %mm = tensor.index_map %red affine_map<(d0, d1, d2) -> (d0, d1, 0, d2)>
// CHECK-NEXT:    %bc = tensor.index_map %b affine_map<(d0, d1, d2) -> (d2)> : tensor<6xf32> -> tensor<2x4x6xf32>
// CHECK-NEXT:    %y = tensor.elementwise ins(%mm, %bc
// CHECK:           arith.addf

// -----

// Attention is decompose-attention's job.
func.func @attn(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %o = torch.scaled_dot_product_attention %q, %k, %v {enable_gqa = true, is_causal = true, scale = 0.35355339059327373 : f64} : (tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  func.return %o : tensor<1x4x6x8xf32>
}
// CHECK-LABEL: func.func @attn
// CHECK-NEXT:    torch.scaled_dot_product_attention
