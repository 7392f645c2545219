// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per torch-dialect verifier rule.

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %c = torch.constant {value = dense<1.0> : tensor<f64>} : () -> tensor<2xf64>
  func.return
}
// CHECK: 'torch.constant' value type tensor<f64> differs from the result type tensor<2xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.relu %a : (tensor<4x8xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.relu' result shape [4, 4] does not match the expected (same as input) shape [4, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.neg %a : (tensor<4x8xf64>) -> tensor<4x8xf32>
  func.return
}
// CHECK: 'torch.neg' operand element type f64 differs from the result element type f32

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.add %a, %b : (tensor<4x8xf64>, tensor<4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.add' operand shapes [4, 8] and [4] do not broadcast

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.mul %a, %w : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<8xf64>
  func.return
}
// CHECK: 'torch.mul' result shape [8] does not match the expected broadcast shape [4, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.sum %a {dims = [2], keepdim = false} : (tensor<4x8xf64>) -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.sum' dim 2 is out of range for rank 2 (must be in [0, 2))

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.mean %a {dims = [1, 1], keepdim = false} : (tensor<4x8xf64>) -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.mean' dims [1, 1] repeat a dimension

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.amax %a {dims = [1], keepdim = true} : (tensor<4x8xf64>) -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.amax' result shape [4] does not match the expected reduced shape [4, 1]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.softmax %a {dim = 2} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.softmax' dim 2 is out of range for rank 2 (must be in [0, 2))

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.rms_norm %a {eps = 1.0e-06 : f64, normalized_rank = 3} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.rms_norm' normalized_rank 3 must be in [1, 2] for a rank-2 input

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.rms_norm %a {eps = -1.0 : f64, normalized_rank = 1} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.rms_norm' eps -1.0 must be non-negative

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.layer_norm %a, %b {eps = 1.0e-05 : f64, normalized_rank = 1} : (tensor<4x8xf64>, tensor<4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.layer_norm' weight shape [4] must be the normalized shape [8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.linear %a, %w : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.linear' weight must be rank 2 ([out, in]), got shape [8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.linear %a, %m : (tensor<4x8xf64>, tensor<8x4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.linear' input shape [4, 8] does not end in the weight's in-features 4

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.linear %a, %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.linear' bias shape [4, 8] must be [4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.matmul %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.matmul' operand shapes [4, 8] and [4, 8] do not fit a matmul

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.scaled_dot_product_attention %a, %m, %m {enable_gqa = false, is_causal = false, scale = 1.0 : f64} : (tensor<4x8xf64>, tensor<8x4xf64>, tensor<8x4xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' query head dim 8 differs from key head dim 4

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.scaled_dot_product_attention %a, %a, %m {enable_gqa = false, is_causal = false, scale = 1.0 : f64} : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<8x4xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' key length 4 differs from value length 8

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.scaled_dot_product_attention %q, %k, %k {enable_gqa = false, is_causal = true, scale = 1.0 : f64} : (tensor<1x4x6x8xf64>, tensor<1x2x6x8xf64>, tensor<1x2x6x8xf64>) -> tensor<1x4x6x8xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' query heads 4 and key heads 2 differ (needs enable_gqa and a multiple)

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.scaled_dot_product_attention %a, %a, %a, %a {enable_gqa = false, is_causal = true, scale = 1.0 : f64} : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' attn_mask shape [4, 8] does not broadcast to [4, 4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.scaled_dot_product_attention %a, %a, %a, %s {enable_gqa = false, is_causal = true, scale = 1.0 : f64} : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' attn_mask and is_causal cannot both be set

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.scaled_dot_product_attention %a, %a, %a {enable_gqa = false, is_causal = true, scale = 0.0 : f64} : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' scale 0.0 must be positive

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.reshape %a : (tensor<4x8xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.reshape' cannot reshape [4, 8] to [4, 4]: element counts differ

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.transpose %a {dim0 = 0, dim1 = 2} : (tensor<4x8xf64>) -> tensor<8x4xf64>
  func.return
}
// CHECK: 'torch.transpose' dim1 2 is out of range for rank 2 (must be in [0, 2))

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.permute %a {dims = [0, 0]} : (tensor<4x8xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.permute' dims [0, 0] must be a permutation of 0..1

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.unsqueeze %a {dim = 3} : (tensor<4x8xf64>) -> tensor<4x8x1xf64>
  func.return
}
// CHECK: 'torch.unsqueeze' dim 3 is out of range for rank 3 (must be in [0, 3))

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.expand %a : (tensor<4x8xf64>) -> tensor<4x16xf64>
  func.return
}
// CHECK: 'torch.expand' cannot expand [4, 8] to [4, 16]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.slice %a {dim = 1, start = 0, end = 8, step = 0} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.slice' step 0 must be positive

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.slice %a {dim = 1, start = 4, end = 9, step = 1} : (tensor<4x8xf64>) -> tensor<4x5xf64>
  func.return
}
// CHECK: 'torch.slice' bounds 4:9 must satisfy 0 <= start <= end <= 8

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.cat %a, %m {dim = 0} : (tensor<4x8xf64>, tensor<8x4xf64>) -> tensor<12x8xf64>
  func.return
}
// CHECK: 'torch.cat' input shapes [4, 8], [8, 4] differ outside dim 0

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.embedding %b, %i : (tensor<4xf64>, tensor<3xi64>) -> tensor<3x4xf64>
  func.return
}
// CHECK: 'torch.embedding' weight must be rank 2 ([num, dim]), got shape [4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.embedding %a, %b : (tensor<4x8xf64>, tensor<4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.embedding' indices must be an integer tensor, got tensor<4xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.to_dtype %a : (tensor<4x8xf64>) -> tensor<8x4xf32>
  func.return
}
// CHECK: 'torch.to_dtype' result shape [8, 4] does not match the expected (same as input) shape [4, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.hardtanh %a {max_val = 1.0 : f64, min_val = 2.0 : f64} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.hardtanh' min_val 2.0 exceeds max_val 1.0

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.bitwise_not %a : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.bitwise_not' needs a bool or integer tensor, got tensor<4x8xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.isnan %a : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.isnan' result must be a bool (i1) tensor, got tensor<4x8xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.bitwise_and %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.bitwise_and' needs bool or integer tensors, got tensor<4x8xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.bitwise_right_shift %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.bitwise_right_shift' needs bool or integer tensors, got tensor<4x8xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.lt %a, %i : (tensor<4x8xf64>, tensor<3xi64>) -> tensor<4x8xi1>
  func.return
}
// CHECK: 'torch.lt' operand shapes [4, 8] and [3] do not broadcast

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.lt %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4xi1>
  func.return
}
// CHECK: 'torch.lt' result shape [4] does not match the expected broadcast shape [4, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %c = torch.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = torch.eq %a, %c : (tensor<4x8xf64>, tensor<i64>) -> tensor<4x8xi1>
  func.return
}
// CHECK: 'torch.eq' operand element types f64 and i64 differ

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.eq %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.eq' result must be a bool (i1) tensor, got tensor<4x8xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.where %a, %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.where' cond must be a bool (i1) tensor, got tensor<4x8xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %c = torch.lt %a, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xi1>
  %r = torch.where %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf64>, tensor<4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.where' operand shapes [4, 8], [4, 8], [4] do not broadcast

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.clamp %a {has_min = true} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.clamp' takes a min and/or a max bound, got 0 bounds (has_min = true)

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.clamp %a, %b {has_min = true} : (tensor<4x8xf64>, tensor<4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.clamp' input and bound shapes do not broadcast

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.any %a {dims = [1], keepdim = false} : (tensor<4x8xf64>) -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.any' result must be a bool (i1) tensor, got tensor<4xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.argmax %q {dims = [1, 2], keepdim = false} : (tensor<1x4x6x8xf64>) -> tensor<1x8xi64>
  func.return
}
// CHECK: 'torch.argmax' dims [1, 2] must be one dim or all of them

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.argmin %a {dims = [1], keepdim = false} : (tensor<4x8xf64>) -> tensor<4xi32>
  func.return
}
// CHECK: 'torch.argmin' result must be an i64 tensor, got tensor<4xi32>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.group_norm %b {eps = 1.0e-05 : f64, num_groups = 2} : (tensor<4xf64>) -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.group_norm' input must have rank >= 2 ([N, C, ...]), got shape [4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.group_norm %q {eps = 1.0e-05 : f64, num_groups = 3} : (tensor<1x4x6x8xf64>) -> tensor<1x4x6x8xf64>
  func.return
}
// CHECK: 'torch.group_norm' num_groups 3 must divide the 4 channels

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.group_norm %q, %w {eps = 1.0e-05 : f64, num_groups = 2} : (tensor<1x4x6x8xf64>, tensor<8xf64>) -> tensor<1x4x6x8xf64>
  func.return
}
// CHECK: 'torch.group_norm' weight shape [8] must be [4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.group_norm %q {eps = -1.0 : f64, num_groups = 2} : (tensor<1x4x6x8xf64>) -> tensor<1x4x6x8xf64>
  func.return
}
// CHECK: 'torch.group_norm' eps -1.0 must be non-negative

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.batch_norm %b, %b, %b {eps = 1.0e-05 : f64} : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.batch_norm' input must have rank >= 2 ([N, C, ...]), got shape [4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.batch_norm %a, %w, %b {eps = 1.0e-05 : f64} : (tensor<4x8xf64>, tensor<8xf64>, tensor<4xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.batch_norm' running_var shape [4] must be [8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.batch_norm %a, %w, %w {eps = -1.0 : f64} : (tensor<4x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.batch_norm' eps -1.0 must be non-negative

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.index_select %a, %b {dim = 1} : (tensor<4x8xf64>, tensor<4xf64>) -> tensor<4x4xf64>
  func.return
}
// CHECK: 'torch.index_select' index must be a 1-d integer tensor, got tensor<4xf64>

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.index_select %a, %i {dim = 1} : (tensor<4x8xf64>, tensor<3xi64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.index_select' result shape [4, 8] does not match the expected selected shape [4, 3]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.flip %a {dims = [1, 1]} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.flip' dims [1, 1] repeat a dimension

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.flip %a {dims = [2]} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.flip' dim 2 is out of range for rank 2 (must be in [0, 2))

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.convolution %q, %k {dilation = [1, 1], groups = 1, padding = [0, 0], stride = [1, 1]} : (tensor<1x4x6x8xf64>, tensor<1x2x6x8xf64>) -> tensor<1x1x1x1xf64>
  func.return
}
// CHECK: 'torch.convolution' weight shape [1, 2, 6, 8] does not fit input shape [1, 4, 6, 8] with 1 groups ([C_out, C_in / groups, *kernel], both channel counts divisible by groups)

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.convolution %k, %k, %b {dilation = [1, 1], groups = 1, padding = [0, 0], stride = [1, 1]} : (tensor<1x2x6x8xf64>, tensor<1x2x6x8xf64>, tensor<4xf64>) -> tensor<1x1x1x1xf64>
  func.return
}
// CHECK: 'torch.convolution' bias shape [4] must be [1]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.max_pool %q {dilation = [1, 1], kernel = [2, 2], padding = [0], stride = [2, 2]} : (tensor<1x4x6x8xf64>) -> tensor<1x4x3x4xf64>
  func.return
}
// CHECK: 'torch.max_pool' kernel, stride, padding and dilation need one entry per spatial dim (2)

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.max_pool %a {dilation = [1, 1], kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<4x8xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.max_pool' input must be [N, C, 2 spatial dims], got shape [4, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.max_pool %q {dilation = [1, 1], kernel = [2, 2], padding = [0, 0], stride = [0, 2]} : (tensor<1x4x6x8xf64>) -> tensor<1x4x3x4xf64>
  func.return
}
// CHECK: 'torch.max_pool' kernel, stride and dilation must be positive, padding non-negative

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.max_pool %q {dilation = [1, 1], kernel = [7, 2], padding = [0, 0], stride = [1, 1]} : (tensor<1x4x6x8xf64>) -> tensor<1x4x1x7xf64>
  func.return
}
// CHECK: 'torch.max_pool' the window does not fit the input shape [1, 4, 6, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.max_pool %q {dilation = [1, 1], kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<1x4x6x8xf64>) -> tensor<1x4x3x3xf64>
  func.return
}
// CHECK: 'torch.max_pool' result shape [1, 4, 3, 3] does not match the expected windowed shape [1, 4, 3, 4]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.avg_pool %q {count_include_pad = true, dilation = [1, 1], divisor = -2, kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<1x4x6x8xf64>) -> tensor<1x4x3x4xf64>
  func.return
}
// CHECK: 'torch.avg_pool' divisor -2 must be positive (or 0: none)

// -----

func.func @f(%q: tensor<32xf64>) {
  %r = torch.scaled_dot_product_attention %q, %q, %q {enable_gqa = false, is_causal = false, scale = 0.125 : f64} : (tensor<32xf64>, tensor<32xf64>, tensor<32xf64>) -> tensor<32xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' query, key and value must have one rank >= 2, got 1, 1, 1

// -----

func.func @f(%q: tensor<2x16x32xf64>, %v: tensor<3x16x32xf64>) {
  %r = torch.scaled_dot_product_attention %q, %q, %v {enable_gqa = false, is_causal = false, scale = 0.125 : f64} : (tensor<2x16x32xf64>, tensor<2x16x32xf64>, tensor<3x16x32xf64>) -> tensor<2x16x32xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' key batch dims [2] differ from value batch dims [3]

// -----

func.func @f(%q: tensor<1x2x16x32xf64>, %k: tensor<2x2x16x32xf64>) {
  %r = torch.scaled_dot_product_attention %q, %k, %k {enable_gqa = false, is_causal = false, scale = 0.125 : f64} : (tensor<1x2x16x32xf64>, tensor<2x2x16x32xf64>, tensor<2x2x16x32xf64>) -> tensor<1x2x16x32xf64>
  func.return
}
// CHECK: 'torch.scaled_dot_product_attention' query batch dims [1] differ from key batch dims [2]

// -----

func.func @f() {
  %r = "torch.cat"() <{dim = #builtin.int<0>}> : () -> tensor<4xf64>
  func.return
}
// CHECK: 'torch.cat' needs at least one input

// -----

func.func @f() {
  %i = torch.iota {dim = 2} : () -> tensor<1x7xi64>
  func.return
}
// CHECK: 'torch.iota' dim 2 is out of range for rank 2 (must be in [0, 2))

// -----

func.func @f() {
  %i = torch.iota {dim = 1} : () -> tensor<1x7xf32>
  func.return
}
// CHECK: 'torch.iota' element type f32 is not an integer type

// -----

func.func @f() {
  %i = torch.iota {dim = 1} : () -> tensor<2x7xi64>
  func.return
}
// CHECK: 'torch.iota' result shape [2, 7] has an extent other than 1 off dim 1

// -----

func.func @f(%x: tensor<4x8xf64>, %i: tensor<4x3xf64>, %s: tensor<4x3xf64>) {
  %r = torch.scatter_reduce %x, %i, %s {dim = 1, reduce = "sum"} : (tensor<4x8xf64>, tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scatter_reduce' index must be an integer tensor, got tensor<4x3xf64>

// -----

func.func @f(%x: tensor<4x8xf64>, %i: tensor<4x3xi64>, %s: tensor<4x2xf64>) {
  %r = torch.scatter_reduce %x, %i, %s {dim = 1, reduce = "sum"} : (tensor<4x8xf64>, tensor<4x3xi64>, tensor<4x2xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scatter_reduce' src shape [4, 2] differs from the index shape [4, 3]

// -----

func.func @f(%x: tensor<4x8xf64>, %i: tensor<5x3xi64>, %s: tensor<5x3xf64>) {
  %r = torch.scatter_reduce %x, %i, %s {dim = 1, reduce = "sum"} : (tensor<4x8xf64>, tensor<5x3xi64>, tensor<5x3xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scatter_reduce' index shape [5, 3] must have input's rank and be no larger than input [4, 8] on every dim but 1

// -----

func.func @f(%x: tensor<4x8xf64>, %i: tensor<4x3xi64>, %s: tensor<4x3xf64>) {
  %r = torch.scatter_reduce %x, %i, %s {dim = 2, reduce = "sum"} : (tensor<4x8xf64>, tensor<4x3xi64>, tensor<4x3xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scatter_reduce' dim 2 is out of range for rank 2 (must be in [0, 2))

// -----

func.func @f(%x: tensor<4x8xf64>, %i: tensor<4x3xi64>, %s: tensor<4x3xf64>) {
  %r = torch.scatter_reduce %x, %i, %s {dim = 1, reduce = "prod"} : (tensor<4x8xf64>, tensor<4x3xi64>, tensor<4x3xf64>) -> tensor<4x8xf64>
  func.return
}
// CHECK: 'torch.scatter_reduce' reduce 'prod' is not one of sum, amax, amin

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.bitcast %a : (tensor<4x8xf64>) -> tensor<4x8xi32>
  func.return
}
// CHECK: 'torch.bitcast' cannot reinterpret f64 as i32: both must have the same width, above 1 bit

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.bitcast %a : (tensor<4x8xf64>) -> tensor<4x4xi64>
  func.return
}
// CHECK: 'torch.bitcast' result shape [4, 4] does not match the expected (same as input) shape [4, 8]

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.as_strided %a {stride = [1], offset = 0} : (tensor<4x8xf64>) -> tensor<2x3xf64>
  func.return
}
// CHECK: 'torch.as_strided' stride [1] has 1 entries for a result of rank 2

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.as_strided %a {stride = [-1, 1], offset = 0} : (tensor<4x8xf64>) -> tensor<2x3xf64>
  func.return
}
// CHECK: 'torch.as_strided' stride [-1, 1] and offset 0 must not be negative

// -----

func.func @f(%a: tensor<4x8xf64>, %b: tensor<4xf64>, %w: tensor<8xf64>, %m: tensor<8x4xf64>, %s: tensor<4x4xf64>, %i: tensor<3xi64>, %q: tensor<1x4x6x8xf64>, %k: tensor<1x2x6x8xf64>) {
  %r = torch.as_strided %a {stride = [8, 1], offset = 8} : (tensor<4x8xf64>) -> tensor<4x3xf64>
  func.return
}
// CHECK: 'torch.as_strided' reads element 34, past the 32 elements of input [4, 8]
