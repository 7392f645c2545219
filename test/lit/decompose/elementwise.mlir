// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-elementwise | filecheck %s
// torch's pointwise ops become one tensor.elementwise each; binary operands are broadcast first.

func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = torch.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @relu
// CHECK-NEXT:    %r = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %{{.*}}, %[[Z]] : f32
// CHECK-NEXT:      tensor.yield %[[M]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<4x8xf32>

// -----

func.func @add_bias(%x: tensor<16x64xf32>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %add = torch.add %x, %bias : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  func.return %add : tensor<16x64xf32>
}
// CHECK-LABEL: func.func @add_bias
// CHECK-NEXT:    %bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>
// CHECK-NEXT:    %add = tensor.elementwise ins(%x, %bc : tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> {
// CHECK:           arith.addf
// CHECK:         func.return %add

// -----

func.func @sub_scalar(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %c = torch.constant {value = dense<2.0> : tensor<f64>} : () -> tensor<f64>
  %r = torch.sub %x, %c : (tensor<4x8xf64>, tensor<f64>) -> tensor<4x8xf64>
  func.return %r : tensor<4x8xf64>
}
// CHECK-LABEL: func.func @sub_scalar
// CHECK-NEXT:    %c = tensor.elementwise -> tensor<f64> {
// CHECK-NEXT:      %{{.*}} = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:      tensor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %bc = tensor.index_map %c affine_map<(d0, d1) -> ()> : tensor<f64> -> tensor<4x8xf64>
// CHECK-NEXT:    %r = tensor.elementwise ins(%x, %bc : tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64> {
// CHECK:           arith.subf

// -----

func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.gelu %x {approximate = #torch<approximate none>} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @gelu
// CHECK:         math.erf
// CHECK:         tensor.yield

// -----

func.func @silu_cast(%x: tensor<8xf32>) -> tensor<8xf64> {
  %s = torch.silu %x : (tensor<8xf32>) -> tensor<8xf32>
  %r = torch.to_dtype %s : (tensor<8xf32>) -> tensor<8xf64>
  func.return %r : tensor<8xf64>
}
// CHECK-LABEL: func.func @silu_cast
// CHECK:         math.exp
// CHECK:         %r = tensor.elementwise ins(%s : tensor<8xf32>) -> tensor<8xf64> {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      tensor.yield %[[E]] : f64

// -----

// Not pointwise: left for the other decompositions.
func.func @leaves_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %r = torch.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @leaves_matmul
// CHECK-NEXT:    %r = torch.matmul %a, %b

// -----

// round is half to even (math.roundeven, CUDA rintf); on integers it is the input itself.
func.func @round(%x: tensor<8xf32>, %i: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xi64>) {
  %r = torch.round %x {decimals = 0} : (tensor<8xf32>) -> tensor<8xf32>
  %n = torch.round %i {decimals = 0} : (tensor<8xi64>) -> tensor<8xi64>
  func.return %r, %n : tensor<8xf32>, tensor<8xi64>
}
// CHECK-LABEL: func.func @round
// CHECK-NEXT:    %r = tensor.elementwise ins(%x : tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[R:.*]] = math.roundeven %[[A]] : f32
// CHECK-NEXT:      tensor.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %i : tensor<8xf32>, tensor<8xi64>

// -----

// remainder: fmod, plus the divisor where the remainder is nonzero and its sign differs.
func.func @remainder(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.remainder %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @remainder
// CHECK:           %[[F:.*]] = arith.remf %[[A:.*]], %[[B:.*]] : f32
// CHECK:           %[[NZ:.*]] = arith.cmpf une, %[[F]]
// CHECK-NEXT:      %[[RN:.*]] = arith.cmpf olt, %[[F]]
// CHECK-NEXT:      %[[BN:.*]] = arith.cmpf olt, %[[B]]
// CHECK-NEXT:      %[[D:.*]] = arith.xori %[[RN]], %[[BN]] : i1
// CHECK-NEXT:      %[[FIX:.*]] = arith.andi %[[NZ]], %[[D]] : i1
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[F]], %[[B]] : f32
// CHECK-NEXT:      arith.select %[[FIX]], %[[S]], %[[F]] : f32

// -----

// To bool is != 0 (not a truncating cast).
func.func @to_bool(%x: tensor<8xf32>) -> tensor<8xi1> {
  %r = torch.to_dtype %x : (tensor<8xf32>) -> tensor<8xi1>
  func.return %r : tensor<8xi1>
}
// CHECK-LABEL: func.func @to_bool
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK-NEXT:      tensor.yield %[[C]] : i1

// -----

// Not an arithmetic op: left alone.
func.func @leaves_where(%c: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %r = torch.where %c, %x, %x : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @leaves_where
// CHECK-NEXT:    torch.where

// -----

// x ** 2 is x * x (no powf per element); another exponent stays powf.
func.func @square(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %two = torch.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %sq = torch.pow %x, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %three = torch.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %cube = torch.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %sq, %cube : tensor<4x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @square
// CHECK:         %sq = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      tensor.yield %[[M]] : f32
// CHECK:         %cube = tensor.elementwise ins(%x, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           math.powf

// -----

// torch.iota is the loop index along its dim, cast: no table of positions.
func.func @iota() -> tensor<1x5xi64> {
  %i = torch.iota {dim = 1} : () -> tensor<1x5xi64>
  func.return %i : tensor<1x5xi64>
}
// CHECK-LABEL: func.func @iota
// CHECK:         tensor.elementwise with_indices -> tensor<1x5xi64> {
// CHECK-NEXT:    ^bb0(%i0: index, %i1: index):
// CHECK-NEXT:      %{{.*}} = arith.index_cast %i1 : index to i64

// -----

// copysign is math.copysign (-0 and a NaN's sign bit count, which no compare sees).
func.func @copysign(%a: tensor<8xf32>, %b: tensor<f32>) -> tensor<8xf32> {
  %r = torch.copysign %a, %b : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @copysign
// CHECK:         %r = tensor.elementwise ins(%a, %bc : tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[C:.*]] = math.copysign %[[A]], %[[B]] : f32
// CHECK-NEXT:      tensor.yield %[[C]] : f32
