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

// argmax: the max, then the smallest index holding it (NaN counts as the max), an i64 min-reduce.
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %r = torch.argmax %x {dims = [1], keepdim = false} : (tensor<4x8xf32>) -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}
// CHECK-LABEL: func.func @argmax
// CHECK-NEXT:    %ext = tensor.reduce max %x axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %bc = tensor.index_map %ext affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %offer = tensor.elementwise ins(%x, %bc : tensor<4x8xf32>, tensor<4x8xf32>) with_indices -> tensor<4x8xi64> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: index, %[[I:.*]]: index):
// CHECK-NEXT:      %[[EQ:.*]] = arith.cmpf oeq, %[[A]], %[[M]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK-NEXT:      %[[HIT:.*]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT:      %[[POS:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[N:.*]] = arith.constant 8 : i64
// CHECK-NEXT:      %[[O:.*]] = arith.select %[[HIT]], %[[POS]], %[[N]] : i64
// CHECK:         %red = tensor.reduce min %offer axes [1] : tensor<4x8xi64> -> tensor<4x1xi64>
// CHECK-NEXT:    %r = tensor.index_map %red affine_map<(d0) -> (d0, 0)> : tensor<4x1xi64> -> tensor<4xi64>

// -----

// any: 0 / 1 as i32, max-reduced, compared with 0.
func.func @any(%x: tensor<4x8xi1>) -> tensor<4x1xi1> {
  %r = torch.any %x {dims = [1], keepdim = true} : (tensor<4x8xi1>) -> tensor<4x1xi1>
  func.return %r : tensor<4x1xi1>
}
// CHECK-LABEL: func.func @any
// CHECK-NEXT:    %flag = tensor.elementwise ins(%x : tensor<4x8xi1>) -> tensor<4x8xi32> {
// CHECK:           arith.extui %{{.*}} : i1 to i32
// CHECK:         %red = tensor.reduce max %flag axes [1] : tensor<4x8xi32> -> tensor<4x1xi32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%red : tensor<4x1xi32>) -> tensor<4x1xi1> {
// CHECK:           arith.cmpi ne

// -----

// logsumexp: max (0 where infinite), exp(x - max), sum, log + max.
func.func @logsumexp(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = torch.logsumexp %x {dims = [1], keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @logsumexp
// CHECK-NEXT:    %max = tensor.reduce max %x axes [1]
// CHECK-NEXT:    %max_1 = tensor.elementwise ins(%max : tensor<4x1xf32>) -> tensor<4x1xf32> {
// CHECK:           arith.cmpf oeq
// CHECK:           arith.select
// CHECK:         %exp = tensor.elementwise
// CHECK:         %sum = tensor.reduce sum %exp axes [1]
// CHECK-NEXT:    %[[L:.*]] = tensor.elementwise ins(%sum, %max_1 : tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32> {
// CHECK:           math.log
// CHECK-NEXT:      arith.addf
// CHECK:         %r = tensor.index_map %[[L]]

// -----

// var: two passes, divided by N - correction.
func.func @var(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = torch.var %x {correction = 1.0 : f64, dims = [1], keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @var
// CHECK-NEXT:    %red = tensor.reduce sum %x axes [1]
// CHECK-NEXT:    %mean = tensor.elementwise
// CHECK:         %sq = tensor.elementwise
// CHECK:         %red_1 = tensor.reduce sum %sq axes [1]
// CHECK-NEXT:    %var = tensor.elementwise
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      arith.constant 7.000000e+00 : f32
// CHECK-NEXT:      arith.divf

// -----

// vector_norm ord inf: max of |x|.
func.func @norm_inf(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = torch.vector_norm %x {dims = [1], keepdim = false, ord = 0x7FF0000000000000 : f64} : (tensor<4x8xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @norm_inf
// CHECK-NEXT:    %abs = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:           math.absf
// CHECK:         %red = tensor.reduce max %abs axes [1]

// -----

// log_softmax: (x - max) - log(sum(exp(x - max))).
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = torch.log_softmax %x {dim = 1} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @log_softmax
// CHECK-NEXT:    %max = tensor.reduce max %x axes [1]
// CHECK-NEXT:    %bc = tensor.index_map %max
// CHECK-NEXT:    %shifted = tensor.elementwise ins(%x, %bc
// CHECK:         %exp = tensor.elementwise ins(%shifted
// CHECK:         %sum = tensor.reduce sum %exp axes [1]
// CHECK-NEXT:    %bc_1 = tensor.index_map %sum
// CHECK-NEXT:    %r = tensor.elementwise ins(%shifted, %bc_1
// CHECK:           math.log
// CHECK-NEXT:      arith.subf

// -----

// Not a reduction: left alone.
func.func @leaves_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = torch.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @leaves_relu
// CHECK-NEXT:    torch.relu
