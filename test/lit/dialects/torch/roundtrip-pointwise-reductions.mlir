// RUN: dpl-opt %s | dpl-opt | filecheck %s
// The torch ops of issue 14 parse, print and parse again (captured programs of
// tests/frontend_ops.py, one per op that first appears in it).

// CHECK-LABEL: func.func @abs(
func.func @abs(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %abs = torch.abs %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.abs %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %abs : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @abs_int(
func.func @abs_int(%xs: tensor<5x7xi64>) -> tensor<5x7xi64> {
  %abs = torch.abs %xs : (tensor<5x7xi64>) -> tensor<5x7xi64>
  // CHECK: torch.abs %{{[a-z0-9_]+}} : (tensor<5x7xi64>) -> tensor<5x7xi64>
  %0 = torch.constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %mul = torch.mul %abs, %0 : (tensor<5x7xi64>, tensor<i64>) -> tensor<5x7xi64>
  // CHECK: torch.mul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi64>, tensor<i64>) -> tensor<5x7xi64>
  func.return %mul : tensor<5x7xi64>
}

// CHECK-LABEL: func.func @addmm(
func.func @addmm(%xs: tensor<7xf32>, %xs_1: tensor<5x7xf32>, %xs_2: tensor<7x7xf32>) -> tensor<5x7xf32> {
  %0 = torch.matmul %xs_1, %xs_2 : (tensor<5x7xf32>, tensor<7x7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.matmul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<7x7xf32>) -> tensor<5x7xf32>
  %1 = torch.constant {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %2 = torch.mul %0, %1 : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  // CHECK: torch.mul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %3 = torch.constant {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %4 = torch.mul %xs, %3 : (tensor<7xf32>, tensor<f32>) -> tensor<7xf32>
  // CHECK: torch.mul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<7xf32>, tensor<f32>) -> tensor<7xf32>
  %addmm = torch.add %2, %4 : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  func.return %addmm : tensor<5x7xf32>
}

// CHECK-LABEL: func.func @all_whole(
func.func @all_whole(%xs: tensor<32x200xf32>) -> tensor<i1> {
  %0 = torch.constant {value = dense<-4.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %gt = torch.gt %xs, %0 : (tensor<32x200xf32>, tensor<f32>) -> tensor<32x200xi1>
  // CHECK: torch.gt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<32x200xf32>, tensor<f32>) -> tensor<32x200xi1>
  %all = torch.all %gt {dims = [0, 1], keepdim = false} : (tensor<32x200xi1>) -> tensor<i1>
  // CHECK: torch.all %{{[a-z0-9_]+}} {dims = [0, 1], keepdim = false} : (tensor<32x200xi1>) -> tensor<i1>
  func.return %all : tensor<i1>
}

// CHECK-LABEL: func.func @amin(
func.func @amin(%xs: tensor<3x5x7xf32>) -> tensor<5xf32> {
  %amin = torch.amin %xs {dims = [0, 2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<5xf32>
  // CHECK: torch.amin %{{[a-z0-9_]+}} {dims = [0, 2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<5xf32>
  func.return %amin : tensor<5xf32>
}

// CHECK-LABEL: func.func @any_all(
func.func @any_all(%xs: tensor<3x5x7xf32>) -> tensor<2x3x7xi1> {
  %0 = torch.constant {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %gt = torch.gt %xs, %0 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  // CHECK: torch.gt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  %any = torch.any %gt {dims = [1], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<3x7xi1>
  // CHECK: torch.any %{{[a-z0-9_]+}} {dims = [1], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<3x7xi1>
  %1 = torch.constant {value = dense<-1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %gt_1 = torch.gt %xs, %1 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  // CHECK: torch.gt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  %all = torch.all %gt_1 {dims = [1], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<3x7xi1>
  // CHECK: torch.all %{{[a-z0-9_]+}} {dims = [1], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<3x7xi1>
  %2 = torch.unsqueeze %any {dim = 0} : (tensor<3x7xi1>) -> tensor<1x3x7xi1>
  // CHECK: torch.unsqueeze %{{[a-z0-9_]+}} {dim = 0} : (tensor<3x7xi1>) -> tensor<1x3x7xi1>
  %3 = torch.unsqueeze %all {dim = 0} : (tensor<3x7xi1>) -> tensor<1x3x7xi1>
  // CHECK: torch.unsqueeze %{{[a-z0-9_]+}} {dim = 0} : (tensor<3x7xi1>) -> tensor<1x3x7xi1>
  %stack = torch.cat %2, %3 {dim = 0} : (tensor<1x3x7xi1>, tensor<1x3x7xi1>) -> tensor<2x3x7xi1>
  // CHECK: torch.cat %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dim = 0} : (tensor<1x3x7xi1>, tensor<1x3x7xi1>) -> tensor<2x3x7xi1>
  func.return %stack : tensor<2x3x7xi1>
}

// CHECK-LABEL: func.func @any_float_all(
func.func @any_float_all(%xs: tensor<3x5x7xf32>) -> tensor<f32> {
  %0 = torch.to_dtype %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  %any = torch.any %0 {dims = [0, 1, 2], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<i1>
  // CHECK: torch.any %{{[a-z0-9_]+}} {dims = [0, 1, 2], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<i1>
  %to = torch.to_dtype %any : (tensor<i1>) -> tensor<f32>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<i1>) -> tensor<f32>
  %1 = torch.to_dtype %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  %all = torch.all %1 {dims = [0, 1, 2], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<i1>
  // CHECK: torch.all %{{[a-z0-9_]+}} {dims = [0, 1, 2], keepdim = false} : (tensor<3x5x7xi1>) -> tensor<i1>
  %to_1 = torch.to_dtype %all : (tensor<i1>) -> tensor<f32>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<i1>) -> tensor<f32>
  %add = torch.add %to, %to_1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %add : tensor<f32>
}

// CHECK-LABEL: func.func @argmax(
func.func @argmax(%xs: tensor<3x5x7xf32>) -> tensor<3x5xi64> {
  %argmax = torch.argmax %xs {dims = [2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x5xi64>
  // CHECK: torch.argmax %{{[a-z0-9_]+}} {dims = [2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x5xi64>
  func.return %argmax : tensor<3x5xi64>
}

// CHECK-LABEL: func.func @argmax_ties(
func.func @argmax_ties(%xs: tensor<3x5x7xf32>) -> tensor<3x7xi64> {
  %round = torch.round %xs {decimals = 0} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.round %{{[a-z0-9_]+}} {decimals = 0} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %argmax = torch.argmax %round {dims = [1], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x7xi64>
  // CHECK: torch.argmax %{{[a-z0-9_]+}} {dims = [1], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x7xi64>
  func.return %argmax : tensor<3x7xi64>
}

// CHECK-LABEL: func.func @argmin_keepdim(
func.func @argmin_keepdim(%xs: tensor<3x5x7xf32>) -> tensor<1x5x7xi64> {
  %argmin = torch.argmin %xs {dims = [0], keepdim = true} : (tensor<3x5x7xf32>) -> tensor<1x5x7xi64>
  // CHECK: torch.argmin %{{[a-z0-9_]+}} {dims = [0], keepdim = true} : (tensor<3x5x7xf32>) -> tensor<1x5x7xi64>
  func.return %argmin : tensor<1x5x7xi64>
}

// CHECK-LABEL: func.func @asin_acos(
func.func @asin_acos(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %asin = torch.asin %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.asin %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %acos = torch.acos %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.acos %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %add = torch.add %asin, %acos : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %add : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @asinh_acosh_atanh(
func.func @asinh_acosh_atanh(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %asinh = torch.asinh %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.asinh %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %acosh = torch.acosh %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.acosh %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %add = torch.add %asinh, %acosh : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %atanh = torch.atanh %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.atanh %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %add_1 = torch.add %add, %atanh : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %add_1 : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @atan2(
func.func @atan2(%xs: tensor<3x5x7xf32>, %xs_1: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %atan2 = torch.atan2 %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.atan2 %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %atan2 : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @batch_norm_1d(
func.func @batch_norm_1d(%input: tensor<5x7xf32>, %p_weight: tensor<7xf32>, %p_bias: tensor<7xf32>, %b_running_mean: tensor<7xf32>, %b_running_var: tensor<7xf32>, %b_num_batches_tracked: tensor<i64>) -> tensor<5x7xf32> {
  %batch_norm = torch.batch_norm %input, %b_running_mean, %b_running_var, %p_weight, %p_bias {eps = 1.000000e-05 : f64} : (tensor<5x7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.batch_norm %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {eps = 1.000000e-05 : f64} : (tensor<5x7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<5x7xf32>
  func.return %batch_norm : tensor<5x7xf32>
}

// CHECK-LABEL: func.func @ceil(
func.func @ceil(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %ceil = torch.ceil %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.ceil %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %ceil : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @celu(
func.func @celu(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %celu = torch.elu %input {alpha = 5.000000e-01 : f64, input_scale = 2.000000e+00 : f64, scale = 1.000000e+00 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.elu %{{[a-z0-9_]+}} {alpha = 5.000000e-01 : f64, input_scale = 2.000000e+00 : f64, scale = 1.000000e+00 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %celu : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @chunk_unbind(
func.func @chunk_unbind(%xs: tensor<3x5x7xf32>) -> (tensor<3x2x7xf32>, tensor<5x7xf32>) {
  %0 = torch.slice %xs {dim = 1, end = 3, start = 0, step = 1} : (tensor<3x5x7xf32>) -> tensor<3x3x7xf32>
  // CHECK: torch.slice %{{[a-z0-9_]+}} {dim = 1, end = 3, start = 0, step = 1} : (tensor<3x5x7xf32>) -> tensor<3x3x7xf32>
  %1 = torch.slice %xs {dim = 1, end = 5, start = 3, step = 1} : (tensor<3x5x7xf32>) -> tensor<3x2x7xf32>
  // CHECK: torch.slice %{{[a-z0-9_]+}} {dim = 1, end = 5, start = 3, step = 1} : (tensor<3x5x7xf32>) -> tensor<3x2x7xf32>
  %2 = torch.constant {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %mul = torch.mul %1, %2 : (tensor<3x2x7xf32>, tensor<f32>) -> tensor<3x2x7xf32>
  // CHECK: torch.mul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x2x7xf32>, tensor<f32>) -> tensor<3x2x7xf32>
  %3 = torch.slice %xs {dim = 0, end = 1, start = 0, step = 1} : (tensor<3x5x7xf32>) -> tensor<1x5x7xf32>
  // CHECK: torch.slice %{{[a-z0-9_]+}} {dim = 0, end = 1, start = 0, step = 1} : (tensor<3x5x7xf32>) -> tensor<1x5x7xf32>
  %4 = torch.slice %xs {dim = 0, end = 2, start = 1, step = 1} : (tensor<3x5x7xf32>) -> tensor<1x5x7xf32>
  // CHECK: torch.slice %{{[a-z0-9_]+}} {dim = 0, end = 2, start = 1, step = 1} : (tensor<3x5x7xf32>) -> tensor<1x5x7xf32>
  %5 = torch.slice %xs {dim = 0, end = 3, start = 2, step = 1} : (tensor<3x5x7xf32>) -> tensor<1x5x7xf32>
  // CHECK: torch.slice %{{[a-z0-9_]+}} {dim = 0, end = 3, start = 2, step = 1} : (tensor<3x5x7xf32>) -> tensor<1x5x7xf32>
  %6 = torch.reshape %3 : (tensor<1x5x7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.reshape %{{[a-z0-9_]+}} : (tensor<1x5x7xf32>) -> tensor<5x7xf32>
  %7 = torch.reshape %4 : (tensor<1x5x7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.reshape %{{[a-z0-9_]+}} : (tensor<1x5x7xf32>) -> tensor<5x7xf32>
  %8 = torch.reshape %5 : (tensor<1x5x7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.reshape %{{[a-z0-9_]+}} : (tensor<1x5x7xf32>) -> tensor<5x7xf32>
  %9 = torch.constant {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %add = torch.add %8, %9 : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  func.return %mul, %add : tensor<3x2x7xf32>, tensor<5x7xf32>
}

// CHECK-LABEL: func.func @clamp(
func.func @clamp(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %0 = torch.constant {value = dense<-5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %1 = torch.constant {value = dense<7.500000e-01> : tensor<f32>} : () -> tensor<f32>
  %clamp = torch.clamp %xs, %0, %1 {has_min = true} : (tensor<3x5x7xf32>, tensor<f32>, tensor<f32>) -> tensor<3x5x7xf32>
  // CHECK: torch.clamp %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {has_min = true} : (tensor<3x5x7xf32>, tensor<f32>, tensor<f32>) -> tensor<3x5x7xf32>
  func.return %clamp : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @compare_bools(
func.func @compare_bools(%xs: tensor<5x7xi1>, %xs_1: tensor<5x7xi1>) -> tensor<2x5x7xi1> {
  %lt = torch.lt %xs, %xs_1 : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  // CHECK: torch.lt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  %ge = torch.ge %xs, %xs_1 : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  // CHECK: torch.ge %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  %0 = torch.unsqueeze %lt {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  // CHECK: torch.unsqueeze %{{[a-z0-9_]+}} {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  %1 = torch.unsqueeze %ge {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  // CHECK: torch.unsqueeze %{{[a-z0-9_]+}} {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  %stack = torch.cat %0, %1 {dim = 0} : (tensor<1x5x7xi1>, tensor<1x5x7xi1>) -> tensor<2x5x7xi1>
  // CHECK: torch.cat %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dim = 0} : (tensor<1x5x7xi1>, tensor<1x5x7xi1>) -> tensor<2x5x7xi1>
  func.return %stack : tensor<2x5x7xi1>
}

// CHECK-LABEL: func.func @compare_ints(
func.func @compare_ints(%xs: tensor<5x7xi64>, %xs_1: tensor<5x7xi64>) -> tensor<5x7xf32> {
  %lt = torch.lt %xs, %xs_1 : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  // CHECK: torch.lt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  %to = torch.to_dtype %lt : (tensor<5x7xi1>) -> tensor<5x7xf32>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<5x7xi1>) -> tensor<5x7xf32>
  %0 = torch.constant {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %eq = torch.eq %xs, %0 : (tensor<5x7xi64>, tensor<i64>) -> tensor<5x7xi1>
  // CHECK: torch.eq %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi64>, tensor<i64>) -> tensor<5x7xi1>
  %to_1 = torch.to_dtype %eq : (tensor<5x7xi1>) -> tensor<5x7xf32>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<5x7xi1>) -> tensor<5x7xf32>
  %add = torch.add %to, %to_1 : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  func.return %add : tensor<5x7xf32>
}

// CHECK-LABEL: func.func @div_floor(
func.func @div_floor(%xs: tensor<3x5x7xf32>, %xs_1: tensor<5x7xf32>) -> tensor<3x5x7xf32> {
  %0 = torch.div %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.div %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  %div = torch.floor %0 : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.floor %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %div : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @div_trunc(
func.func @div_trunc(%xs: tensor<3x5x7xf32>, %xs_1: tensor<5x7xf32>) -> tensor<3x5x7xf32> {
  %0 = torch.div %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.div %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  %div = torch.trunc %0 : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.trunc %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %div : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @eq_ne(
func.func @eq_ne(%xs: tensor<5x7xf32>, %xs_1: tensor<5x7xf32>) -> tensor<2x5x7xi1> {
  %eq = torch.eq %xs, %xs_1 : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xi1>
  // CHECK: torch.eq %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xi1>
  %ne = torch.ne %xs, %xs_1 : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xi1>
  // CHECK: torch.ne %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xi1>
  %0 = torch.unsqueeze %eq {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  // CHECK: torch.unsqueeze %{{[a-z0-9_]+}} {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  %1 = torch.unsqueeze %ne {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  // CHECK: torch.unsqueeze %{{[a-z0-9_]+}} {dim = 0} : (tensor<5x7xi1>) -> tensor<1x5x7xi1>
  %stack = torch.cat %0, %1 {dim = 0} : (tensor<1x5x7xi1>, tensor<1x5x7xi1>) -> tensor<2x5x7xi1>
  // CHECK: torch.cat %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dim = 0} : (tensor<1x5x7xi1>, tensor<1x5x7xi1>) -> tensor<2x5x7xi1>
  func.return %stack : tensor<2x5x7xi1>
}

// CHECK-LABEL: func.func @erf(
func.func @erf(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %erf = torch.erf %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.erf %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %erf : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @exp2(
func.func @exp2(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %exp2 = torch.exp2 %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.exp2 %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %exp2 : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @expm1(
func.func @expm1(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %expm1 = torch.expm1 %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.expm1 %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %expm1 : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @flip(
func.func @flip(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %flip = torch.flip %xs {dims = [0, 2]} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.flip %{{[a-z0-9_]+}} {dims = [0, 2]} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %0 = torch.constant {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %mul = torch.mul %flip, %0 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xf32>
  // CHECK: torch.mul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xf32>
  func.return %mul : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @fmod(
func.func @fmod(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %0 = torch.constant {value = dense<7.500000e-01> : tensor<f32>} : () -> tensor<f32>
  %fmod = torch.fmod %xs, %0 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xf32>
  // CHECK: torch.fmod %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xf32>
  func.return %fmod : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @group_norm(
func.func @group_norm(%input: tensor<2x6x3x5xf32>, %p_weight: tensor<6xf32>, %p_bias: tensor<6xf32>) -> tensor<2x6x3x5xf32> {
  %group_norm = torch.group_norm %input, %p_weight, %p_bias {eps = 1.000000e-05 : f64, num_groups = 2} : (tensor<2x6x3x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x3x5xf32>
  // CHECK: torch.group_norm %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {eps = 1.000000e-05 : f64, num_groups = 2} : (tensor<2x6x3x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x3x5xf32>
  func.return %group_norm : tensor<2x6x3x5xf32>
}

// CHECK-LABEL: func.func @gt_ge(
func.func @gt_ge(%xs: tensor<3x5x7xf32>, %xs_1: tensor<7xf32>) -> tensor<3x5x7xi1> {
  %gt = torch.gt %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.gt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<7xf32>) -> tensor<3x5x7xi1>
  %0 = torch.constant {value = dense<-5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %ge = torch.ge %xs, %0 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  // CHECK: torch.ge %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  %xor = torch.bitwise_xor %gt, %ge : (tensor<3x5x7xi1>, tensor<3x5x7xi1>) -> tensor<3x5x7xi1>
  // CHECK: torch.bitwise_xor %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xi1>, tensor<3x5x7xi1>) -> tensor<3x5x7xi1>
  func.return %xor : tensor<3x5x7xi1>
}

// CHECK-LABEL: func.func @hardsigmoid(
func.func @hardsigmoid(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %hardsigmoid = torch.hardsigmoid %input : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.hardsigmoid %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %hardsigmoid : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @hardswish(
func.func @hardswish(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %hardswish = torch.hardswish %input : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.hardswish %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %hardswish : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @hardtanh(
func.func @hardtanh(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %hardtanh = torch.hardtanh %input {max_val = 1.500000e+00 : f64, min_val = -5.000000e-01 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.hardtanh %{{[a-z0-9_]+}} {max_val = 1.500000e+00 : f64, min_val = -5.000000e-01 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %hardtanh : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @index_select(
func.func @index_select(%xs: tensor<3x5x7xf32>, %xs_1: tensor<4xi64>) -> tensor<3x4x7xf32> {
  %index_select = torch.index_select %xs, %xs_1 {dim = 1} : (tensor<3x5x7xf32>, tensor<4xi64>) -> tensor<3x4x7xf32>
  // CHECK: torch.index_select %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dim = 1} : (tensor<3x5x7xf32>, tensor<4xi64>) -> tensor<3x4x7xf32>
  func.return %index_select : tensor<3x4x7xf32>
}

// CHECK-LABEL: func.func @isnan_isinf(
func.func @isnan_isinf(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xi1> {
  %log = torch.log %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.log %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %isnan = torch.isnan %log : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.isnan %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  %isinf = torch.isinf %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.isinf %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  %or = torch.bitwise_or %isnan, %isinf : (tensor<3x5x7xi1>, tensor<3x5x7xi1>) -> tensor<3x5x7xi1>
  // CHECK: torch.bitwise_or %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xi1>, tensor<3x5x7xi1>) -> tensor<3x5x7xi1>
  func.return %or : tensor<3x5x7xi1>
}

// CHECK-LABEL: func.func @leaky_relu(
func.func @leaky_relu(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %leaky_relu = torch.leaky_relu %input {negative_slope = 1.000000e-01 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.leaky_relu %{{[a-z0-9_]+}} {negative_slope = 1.000000e-01 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %leaky_relu : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @log10(
func.func @log10(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %log10 = torch.log10 %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.log10 %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %log10 : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @log1p(
func.func @log1p(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %log1p = torch.log1p %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.log1p %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %log1p : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @log2(
func.func @log2(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %log2 = torch.log2 %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.log2 %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %log2 : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @log_softmax(
func.func @log_softmax(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %log_softmax = torch.log_softmax %xs {dim = 1} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.log_softmax %{{[a-z0-9_]+}} {dim = 1} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %log_softmax : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @logical(
func.func @logical(%xs: tensor<5x7xi1>, %xs_1: tensor<5x7xi1>) -> tensor<5x7xi1> {
  %logical_and = torch.logical_and %xs, %xs_1 : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  // CHECK: torch.logical_and %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  %bitwise_not = torch.bitwise_not %xs_1 : (tensor<5x7xi1>) -> tensor<5x7xi1>
  // CHECK: torch.bitwise_not %{{[a-z0-9_]+}} : (tensor<5x7xi1>) -> tensor<5x7xi1>
  %logical_xor = torch.logical_xor %xs, %bitwise_not : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  // CHECK: torch.logical_xor %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  %or = torch.bitwise_or %logical_and, %logical_xor : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  // CHECK: torch.bitwise_or %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi1>, tensor<5x7xi1>) -> tensor<5x7xi1>
  func.return %or : tensor<5x7xi1>
}

// CHECK-LABEL: func.func @logical_not_float(
func.func @logical_not_float(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %logical_not = torch.logical_not %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.logical_not %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  %to = torch.to_dtype %logical_not : (tensor<3x5x7xi1>) -> tensor<3x5x7xf32>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<3x5x7xi1>) -> tensor<3x5x7xf32>
  func.return %to : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @logsumexp(
func.func @logsumexp(%xs: tensor<3x5x7xf32>) -> tensor<3x5xf32> {
  %logsumexp = torch.logsumexp %xs {dims = [2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x5xf32>
  // CHECK: torch.logsumexp %{{[a-z0-9_]+}} {dims = [2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x5xf32>
  func.return %logsumexp : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @lt_le(
func.func @lt_le(%xs: tensor<3x5x7xf32>, %xs_1: tensor<5x7xf32>) -> tensor<3x5x7xi1> {
  %lt = torch.lt %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xi1>
  // CHECK: torch.lt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xi1>
  %0 = torch.constant {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %le = torch.le %xs, %0 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  // CHECK: torch.le %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  %or = torch.bitwise_or %lt, %le : (tensor<3x5x7xi1>, tensor<3x5x7xi1>) -> tensor<3x5x7xi1>
  // CHECK: torch.bitwise_or %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xi1>, tensor<3x5x7xi1>) -> tensor<3x5x7xi1>
  func.return %or : tensor<3x5x7xi1>
}

// CHECK-LABEL: func.func @masked_fill(
func.func @masked_fill(%xs: tensor<3x5x7xf32>, %xs_1: tensor<5x7xi1>) -> tensor<3x5x7xf32> {
  %0 = torch.constant {value = dense<-7.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %masked_fill = torch.where %xs_1, %0, %xs : (tensor<5x7xi1>, tensor<f32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.where %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi1>, tensor<f32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %masked_fill : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @max_all(
func.func @max_all(%xs: tensor<3x5x7xf32>) -> tensor<f32> {
  %max = torch.amax %xs {dims = [0, 1, 2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<f32>
  // CHECK: torch.amax %{{[a-z0-9_]+}} {dims = [0, 1, 2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<f32>
  func.return %max : tensor<f32>
}

// CHECK-LABEL: func.func @minimum(
func.func @minimum(%xs: tensor<3x5x7xf32>, %xs_1: tensor<5x7xf32>) -> tensor<3x5x7xf32> {
  %minimum = torch.minimum %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.minimum %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  func.return %minimum : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @mish(
func.func @mish(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %mish = torch.mish %input : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.mish %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %mish : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @norm(
func.func @norm(%xs: tensor<3x5x7xf32>) -> tensor<f32> {
  %linalg_vector_norm = torch.vector_norm %xs {dims = [0, 1, 2], keepdim = false, ord = 2.000000e+00 : f64} : (tensor<3x5x7xf32>) -> tensor<f32>
  // CHECK: torch.vector_norm %{{[a-z0-9_]+}} {dims = [0, 1, 2], keepdim = false, ord = 2.000000e+00 : f64} : (tensor<3x5x7xf32>) -> tensor<f32>
  func.return %linalg_vector_norm : tensor<f32>
}

// CHECK-LABEL: func.func @pow_scalar_base(
func.func @pow_scalar_base(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %0 = torch.constant {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %pow = torch.pow %0, %xs : (tensor<f32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.pow %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<f32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %pow : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @prod(
func.func @prod(%xs: tensor<3x5x7xf32>) -> tensor<3x7xf32> {
  %prod = torch.prod %xs {dims = [1], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x7xf32>
  // CHECK: torch.prod %{{[a-z0-9_]+}} {dims = [1], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x7xf32>
  func.return %prod : tensor<3x7xf32>
}

// CHECK-LABEL: func.func @remainder(
func.func @remainder(%xs: tensor<3x5x7xf32>, %xs_1: tensor<5x7xf32>) -> tensor<3x5x7xf32> {
  %remainder = torch.remainder %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.remainder %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<5x7xf32>) -> tensor<3x5x7xf32>
  func.return %remainder : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @repeat(
func.func @repeat(%xs: tensor<5x7xf32>) -> tensor<2x5x21xf32> {
  %0 = torch.reshape %xs : (tensor<5x7xf32>) -> tensor<1x1x1x5x1x7xf32>
  // CHECK: torch.reshape %{{[a-z0-9_]+}} : (tensor<5x7xf32>) -> tensor<1x1x1x5x1x7xf32>
  %1 = torch.expand %0 : (tensor<1x1x1x5x1x7xf32>) -> tensor<2x1x1x5x3x7xf32>
  // CHECK: torch.expand %{{[a-z0-9_]+}} : (tensor<1x1x1x5x1x7xf32>) -> tensor<2x1x1x5x3x7xf32>
  %repeat = torch.reshape %1 : (tensor<2x1x1x5x3x7xf32>) -> tensor<2x5x21xf32>
  // CHECK: torch.reshape %{{[a-z0-9_]+}} : (tensor<2x1x1x5x3x7xf32>) -> tensor<2x5x21xf32>
  %2 = torch.constant {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %mul = torch.mul %repeat, %2 : (tensor<2x5x21xf32>, tensor<f32>) -> tensor<2x5x21xf32>
  // CHECK: torch.mul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<2x5x21xf32>, tensor<f32>) -> tensor<2x5x21xf32>
  func.return %mul : tensor<2x5x21xf32>
}

// CHECK-LABEL: func.func @sign(
func.func @sign(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %sign = torch.sign %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.sign %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %sign : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @sinh_cosh(
func.func @sinh_cosh(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %sinh = torch.sinh %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.sinh %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %cosh = torch.cosh %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.cosh %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %sub = torch.sub %sinh, %cosh : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.sub %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %sub : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @softplus(
func.func @softplus(%input: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %softplus = torch.softplus %input {beta = 2.000000e+00 : f64, threshold = 5.000000e+00 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.softplus %{{[a-z0-9_]+}} {beta = 2.000000e+00 : f64, threshold = 5.000000e+00 : f64} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %softplus : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @std(
func.func @std(%xs: tensor<3x5x7xf32>) -> tensor<3x5xf32> {
  %std = torch.std %xs {correction = 1.000000e+00 : f64, dims = [2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x5xf32>
  // CHECK: torch.std %{{[a-z0-9_]+}} {correction = 1.000000e+00 : f64, dims = [2], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x5xf32>
  func.return %std : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @sum_bool(
func.func @sum_bool(%xs: tensor<3x5x7xf32>) -> tensor<3x5xi64> {
  %0 = torch.constant {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %gt = torch.gt %xs, %0 : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  // CHECK: torch.gt %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<f32>) -> tensor<3x5x7xi1>
  %1 = torch.to_dtype %gt : (tensor<3x5x7xi1>) -> tensor<3x5x7xi64>
  // CHECK: torch.to_dtype %{{[a-z0-9_]+}} : (tensor<3x5x7xi1>) -> tensor<3x5x7xi64>
  %sum = torch.sum %1 {dims = [2], keepdim = false} : (tensor<3x5x7xi64>) -> tensor<3x5xi64>
  // CHECK: torch.sum %{{[a-z0-9_]+}} {dims = [2], keepdim = false} : (tensor<3x5x7xi64>) -> tensor<3x5xi64>
  func.return %sum : tensor<3x5xi64>
}

// CHECK-LABEL: func.func @tan_atan(
func.func @tan_atan(%xs: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %tan = torch.tan %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.tan %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %atan = torch.atan %xs : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.atan %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %add = torch.add %tan, %atan : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  func.return %add : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @var(
func.func @var(%xs: tensor<3x5x7xf32>) -> tensor<3x7xf32> {
  %var = torch.var %xs {correction = 1.000000e+00 : f64, dims = [1], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x7xf32>
  // CHECK: torch.var %{{[a-z0-9_]+}} {correction = 1.000000e+00 : f64, dims = [1], keepdim = false} : (tensor<3x5x7xf32>) -> tensor<3x7xf32>
  func.return %var : tensor<3x7xf32>
}


// CHECK-LABEL: func.func @windows(
func.func @windows(%x: tensor<1x2x5x5xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x2x2x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) {
  %c = torch.convolution %x, %w, %b {dilation = [1, 1], groups = 2, padding = [0, 0], stride = [1, 1]} : (tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  // CHECK: torch.convolution %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dilation = [1, 1], groups = 2, padding = [0, 0], stride = [1, 1]} : (tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %m = torch.max_pool %x {dilation = [1, 1], kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: torch.max_pool %{{[a-z0-9_]+}} {dilation = [1, 1], kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32>
  %a = torch.avg_pool %x {count_include_pad = false, dilation = [1, 1], divisor = 0, kernel = [3, 3], padding = [1, 1], stride = [2, 2]} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: torch.avg_pool %{{[a-z0-9_]+}} {count_include_pad = false, dilation = [1, 1], divisor = 0, kernel = [3, 3], padding = [1, 1], stride = [2, 2]} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %s = torch.cumsum %x {dim = 3} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  // CHECK: torch.cumsum %{{[a-z0-9_]+}} {dim = 3} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  func.return %c, %m, %a, %s : tensor<1x4x3x3xf32>, tensor<1x2x2x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>
}

// CHECK-LABEL: func.func @copysign(
func.func @copysign(%xs: tensor<3x5x7xf32>, %xs_1: tensor<7xf32>) -> tensor<3x5x7xf32> {
  %copysign = torch.copysign %xs, %xs_1 : (tensor<3x5x7xf32>, tensor<7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.copysign %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<3x5x7xf32>, tensor<7xf32>) -> tensor<3x5x7xf32>
  func.return %copysign : tensor<3x5x7xf32>
}

// CHECK-LABEL: func.func @shifts(
func.func @shifts(%x: tensor<5x7xi64>, %y: tensor<5x7xi64>) -> tensor<5x7xi64> {
  %lshift = torch.bitwise_left_shift %x, %y : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi64>
  // CHECK: torch.bitwise_left_shift %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi64>
  %rshift = torch.bitwise_right_shift %lshift, %y : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi64>
  // CHECK: torch.bitwise_right_shift %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi64>
  func.return %rshift : tensor<5x7xi64>
}

// CHECK-LABEL: func.func @scatter_reduce(
func.func @scatter_reduce(%xs: tensor<3x5x7xf32>, %i: tensor<3x2x7xi64>, %s: tensor<3x2x7xf32>) -> tensor<3x5x7xf32> {
  %scatter_add = torch.scatter_reduce %xs, %i, %s {dim = 1, reduce = "sum"} : (tensor<3x5x7xf32>, tensor<3x2x7xi64>, tensor<3x2x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.scatter_reduce %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dim = 1, reduce = "sum"} : (tensor<3x5x7xf32>, tensor<3x2x7xi64>, tensor<3x2x7xf32>) -> tensor<3x5x7xf32>
  %amax = torch.scatter_reduce %scatter_add, %i, %s {dim = 1, reduce = "amax"} : (tensor<3x5x7xf32>, tensor<3x2x7xi64>, tensor<3x2x7xf32>) -> tensor<3x5x7xf32>
  // CHECK: torch.scatter_reduce %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {dim = 1, reduce = "amax"} : (tensor<3x5x7xf32>, tensor<3x2x7xi64>, tensor<3x2x7xf32>) -> tensor<3x5x7xf32>
  func.return %amax : tensor<3x5x7xf32>
}
