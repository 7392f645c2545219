// RUN: dpl-opt %s | dpl-opt | filecheck %s
// Every torch-dialect op parses, prints and parses again.

// CHECK-LABEL: func.func @main
func.func @main(%x: tensor<1x32x2048xf64>, %p_weight: tensor<2048xf64>, %p_bias: tensor<2048xf64>,
                %a: tensor<16x64xf64>, %b: tensor<64xf64>, %w: tensor<64x16xf64>,
                %lw: tensor<16x64xf64>, %lb: tensor<16xf64>, %ids: tensor<2x3xi64>,
                %q: tensor<1x8x16x32xf64>, %k: tensor<1x2x16x32xf64>, %v: tensor<1x2x16x32xf64>,
                %m: tensor<16x16xf64>) -> tensor<1x32x2048xf64> {
  // CHECK: %c = torch.constant {value = dense<2.000000e+00> : tensor<f64>} : () -> tensor<f64>
  %c = torch.constant {value = dense<2.0> : tensor<f64>} : () -> tensor<f64>
  // CHECK-NEXT: %iota = torch.iota {dim = 1} : () -> tensor<1x7xi64>
  %iota = torch.iota {dim = 1} : () -> tensor<1x7xi64>
  // CHECK-NEXT: %0 = torch.neg %a : (tensor<16x64xf64>) -> tensor<16x64xf64>
  %0 = torch.neg %a : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.relu %0
  %1 = torch.relu %0 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.silu
  %2 = torch.silu %1 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.sigmoid
  %3 = torch.sigmoid %2 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.exp
  %4 = torch.exp %3 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.tanh
  %5 = torch.tanh %4 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.rsqrt
  %6 = torch.rsqrt %5 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.sqrt
  %7 = torch.sqrt %6 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.reciprocal
  %8 = torch.reciprocal %7 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.cos
  %9 = torch.cos %8 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.sin
  %10 = torch.sin %9 : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: %11 = torch.gelu %10 {approximate = #torch<approximate tanh>} : (tensor<16x64xf64>) -> tensor<16x64xf64>
  %11 = torch.gelu %10 {approximate = #torch<approximate tanh>} : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: %12 = torch.add %11, %b : (tensor<16x64xf64>, tensor<64xf64>) -> tensor<16x64xf64>
  %12 = torch.add %11, %b : (tensor<16x64xf64>, tensor<64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.sub
  %13 = torch.sub %12, %c : (tensor<16x64xf64>, tensor<f64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.mul
  %14 = torch.mul %13, %12 : (tensor<16x64xf64>, tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.div
  %15 = torch.div %14, %b : (tensor<16x64xf64>, tensor<64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.pow
  %16 = torch.pow %15, %c : (tensor<16x64xf64>, tensor<f64>) -> tensor<16x64xf64>
  // CHECK-NEXT: torch.maximum
  %17 = torch.maximum %16, %12 : (tensor<16x64xf64>, tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: %18 = torch.mean %17 {dims = [1], keepdim = true} : (tensor<16x64xf64>) -> tensor<16x1xf64>
  %18 = torch.mean %17 {dims = [1], keepdim = true} : (tensor<16x64xf64>) -> tensor<16x1xf64>
  // CHECK-NEXT: %19 = torch.sum %17 {dims = [0, 1], keepdim = false} : (tensor<16x64xf64>) -> tensor<f64>
  %19 = torch.sum %17 {dims = [0, 1], keepdim = false} : (tensor<16x64xf64>) -> tensor<f64>
  // CHECK-NEXT: torch.amax
  %20 = torch.amax %17 {dims = [0], keepdim = false} : (tensor<16x64xf64>) -> tensor<64xf64>
  // CHECK-NEXT: %21 = torch.softmax %17 {dim = 1} : (tensor<16x64xf64>) -> tensor<16x64xf64>
  %21 = torch.softmax %17 {dim = 1} : (tensor<16x64xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: %22 = torch.rms_norm %x, %p_weight {eps = 1.000000e-06 : f64, normalized_rank = 1} : (tensor<1x32x2048xf64>, tensor<2048xf64>) -> tensor<1x32x2048xf64>
  %22 = torch.rms_norm %x, %p_weight {eps = 1.0e-06 : f64, normalized_rank = 1} : (tensor<1x32x2048xf64>, tensor<2048xf64>) -> tensor<1x32x2048xf64>
  // CHECK-NEXT: torch.rms_norm %x {eps
  %23 = torch.rms_norm %x {eps = 1.0e-06 : f64, normalized_rank = 2} : (tensor<1x32x2048xf64>) -> tensor<1x32x2048xf64>
  // CHECK-NEXT: torch.layer_norm %22, %p_weight, %p_bias {eps = 1.000000e-05 : f64, normalized_rank = 1}
  %24 = torch.layer_norm %22, %p_weight, %p_bias {eps = 1.0e-05 : f64, normalized_rank = 1} : (tensor<1x32x2048xf64>, tensor<2048xf64>, tensor<2048xf64>) -> tensor<1x32x2048xf64>
  // CHECK-NEXT: torch.layer_norm %24 {
  %25 = torch.layer_norm %24 {eps = 1.0e-05 : f64, normalized_rank = 1} : (tensor<1x32x2048xf64>) -> tensor<1x32x2048xf64>
  // CHECK-NEXT: %26 = torch.linear %a, %lw, %lb : (tensor<16x64xf64>, tensor<16x64xf64>, tensor<16xf64>) -> tensor<16x16xf64>
  %26 = torch.linear %a, %lw, %lb : (tensor<16x64xf64>, tensor<16x64xf64>, tensor<16xf64>) -> tensor<16x16xf64>
  // CHECK-NEXT: torch.linear %a, %lw : (tensor<16x64xf64>, tensor<16x64xf64>) -> tensor<16x16xf64>
  %27 = torch.linear %a, %lw : (tensor<16x64xf64>, tensor<16x64xf64>) -> tensor<16x16xf64>
  // CHECK-NEXT: %28 = torch.matmul %a, %w : (tensor<16x64xf64>, tensor<64x16xf64>) -> tensor<16x16xf64>
  %28 = torch.matmul %a, %w : (tensor<16x64xf64>, tensor<64x16xf64>) -> tensor<16x16xf64>
  // CHECK-NEXT: %29 = torch.scaled_dot_product_attention %q, %k, %v {enable_gqa = true, is_causal = true, scale = 1.250000e-01 : f64} : (tensor<1x8x16x32xf64>, tensor<1x2x16x32xf64>, tensor<1x2x16x32xf64>) -> tensor<1x8x16x32xf64>
  %29 = torch.scaled_dot_product_attention %q, %k, %v {enable_gqa = true, is_causal = true, scale = 0.125 : f64} : (tensor<1x8x16x32xf64>, tensor<1x2x16x32xf64>, tensor<1x2x16x32xf64>) -> tensor<1x8x16x32xf64>
  // CHECK-NEXT: torch.scaled_dot_product_attention %q, %q, %q, %m {enable_gqa = false, is_causal = false
  %30 = torch.scaled_dot_product_attention %q, %q, %q, %m {enable_gqa = false, is_causal = false, scale = 0.125 : f64} : (tensor<1x8x16x32xf64>, tensor<1x8x16x32xf64>, tensor<1x8x16x32xf64>, tensor<16x16xf64>) -> tensor<1x8x16x32xf64>
  // CHECK-NEXT: %31 = torch.reshape %a : (tensor<16x64xf64>) -> tensor<4x4x64xf64>
  %31 = torch.reshape %a : (tensor<16x64xf64>) -> tensor<4x4x64xf64>
  // CHECK-NEXT: %32 = torch.transpose %31 {dim0 = 0, dim1 = 2} : (tensor<4x4x64xf64>) -> tensor<64x4x4xf64>
  %32 = torch.transpose %31 {dim0 = 0, dim1 = 2} : (tensor<4x4x64xf64>) -> tensor<64x4x4xf64>
  // CHECK-NEXT: %33 = torch.permute %31 {dims = [2, 0, 1]} : (tensor<4x4x64xf64>) -> tensor<64x4x4xf64>
  %33 = torch.permute %31 {dims = [2, 0, 1]} : (tensor<4x4x64xf64>) -> tensor<64x4x4xf64>
  // CHECK-NEXT: %34 = torch.unsqueeze %b {dim = 0} : (tensor<64xf64>) -> tensor<1x64xf64>
  %34 = torch.unsqueeze %b {dim = 0} : (tensor<64xf64>) -> tensor<1x64xf64>
  // CHECK-NEXT: %35 = torch.expand %34 : (tensor<1x64xf64>) -> tensor<3x16x64xf64>
  %35 = torch.expand %34 : (tensor<1x64xf64>) -> tensor<3x16x64xf64>
  // CHECK-NEXT: %36 = torch.slice %a {dim = 1, end = 64, start = 32, step = 1} : (tensor<16x64xf64>) -> tensor<16x32xf64>
  %36 = torch.slice %a {dim = 1, start = 32, end = 64, step = 1} : (tensor<16x64xf64>) -> tensor<16x32xf64>
  // CHECK-NEXT: %37 = torch.cat %36, %36 {dim = 1} : (tensor<16x32xf64>, tensor<16x32xf64>) -> tensor<16x64xf64>
  %37 = torch.cat %36, %36 {dim = 1} : (tensor<16x32xf64>, tensor<16x32xf64>) -> tensor<16x64xf64>
  // CHECK-NEXT: %38 = torch.embedding %lw, %ids : (tensor<16x64xf64>, tensor<2x3xi64>) -> tensor<2x3x64xf64>
  %38 = torch.embedding %lw, %ids : (tensor<16x64xf64>, tensor<2x3xi64>) -> tensor<2x3x64xf64>
  // CHECK-NEXT: %39 = torch.to_dtype %a : (tensor<16x64xf64>) -> tensor<16x64xf32>
  %39 = torch.to_dtype %a : (tensor<16x64xf64>) -> tensor<16x64xf32>
  // CHECK-NEXT: %{{.*}} = torch.bitcast %39 : (tensor<16x64xf32>) -> tensor<16x64xi32>
  %bits = torch.bitcast %39 : (tensor<16x64xf32>) -> tensor<16x64xi32>
  func.return %22 : tensor<1x32x2048xf64>
}
