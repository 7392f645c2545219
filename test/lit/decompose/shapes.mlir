// RUN: dpl-opt %s --split-input-file --pass-pipeline=decompose-shapes | filecheck %s
// View ops become one tensor.index_map each; cat -> tensor.concat; embedding -> tensor.gather;
// scatter_reduce -> tensor.scatter combined with the input.

func.func @reshape(%x: tensor<1x32x2048xf32>, %y: tensor<2x12xf32>) -> (tensor<32x2048xf32>, tensor<2x3x4xf32>, tensor<4x6xf32>) {
  %a = torch.reshape %x : (tensor<1x32x2048xf32>) -> tensor<32x2048xf32>
  %b = torch.reshape %y : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
  %c = torch.reshape %y : (tensor<2x12xf32>) -> tensor<4x6xf32>
  func.return %a, %b, %c : tensor<32x2048xf32>, tensor<2x3x4xf32>, tensor<4x6xf32>
}
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:    %a = tensor.index_map %x affine_map<(d0, d1) -> (0, d0, d1)> : tensor<1x32x2048xf32> -> tensor<32x2048xf32>
// CHECK-NEXT:    %b = tensor.index_map %y affine_map<(d0, d1, d2) -> (d0, ((d1 * 4) + d2))> : tensor<2x12xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    %c = tensor.index_map %y affine_map<(d0, d1) -> ((((d0 * 6) + d1) floordiv 12), (((d0 * 6) + d1) mod 12))> : tensor<2x12xf32> -> tensor<4x6xf32>

// -----

func.func @transpose_permute_unsqueeze(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<4x2x3xf32>, tensor<2x1x3x4xf32>) {
  %t = torch.transpose %x {dim0 = 0, dim1 = 2} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %p = torch.permute %x {dims = [2, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %u = torch.unsqueeze %x {dim = 1} : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
  func.return %t, %p, %u : tensor<4x3x2xf32>, tensor<4x2x3xf32>, tensor<2x1x3x4xf32>
}
// CHECK-LABEL: func.func @transpose_permute_unsqueeze
// CHECK-NEXT:    %t = tensor.index_map %x affine_map<(d0, d1, d2) -> (d2, d1, d0)> : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT:    %p = tensor.index_map %x affine_map<(d0, d1, d2) -> (d1, d2, d0)> : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT:    %u = tensor.index_map %x affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)> : tensor<2x3x4xf32> -> tensor<2x1x3x4xf32>

// -----

func.func @expand_slice(%x: tensor<4x1xf32>, %y: tensor<3x8xf32>) -> (tensor<3x4x5xf32>, tensor<3x3xf32>) {
  %e = torch.expand %x : (tensor<4x1xf32>) -> tensor<3x4x5xf32>
  %s = torch.slice %y {dim = 1, start = 1, end = 7, step = 2} : (tensor<3x8xf32>) -> tensor<3x3xf32>
  func.return %e, %s : tensor<3x4x5xf32>, tensor<3x3xf32>
}
// CHECK-LABEL: func.func @expand_slice
// CHECK-NEXT:    %e = tensor.index_map %x affine_map<(d0, d1, d2) -> (d1, 0)> : tensor<4x1xf32> -> tensor<3x4x5xf32>
// CHECK-NEXT:    %s = tensor.index_map %y affine_map<(d0, d1) -> (d0, ((d1 * 2) + 1))> : tensor<3x8xf32> -> tensor<3x3xf32>

// -----

func.func @cat_embedding(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %w: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> (tensor<2x8xf32>, tensor<2x3x4xf32>) {
  %c = torch.cat %a, %b {dim = 1} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %e = torch.embedding %w, %ids : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  func.return %c, %e : tensor<2x8xf32>, tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @cat_embedding
// CHECK-NEXT:    %c = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %e = tensor.gather %w[%ids] axis 0 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>

// -----

// flip reads n - 1 - d; index_select is a gather on its dim.
func.func @flip(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %r = torch.flip %x {dims = [1]} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @flip
// CHECK-NEXT:    %r = tensor.index_map %x affine_map<(d0, d1) -> (d0, ((d1 * -1) + 4))> : tensor<3x5xf32> -> tensor<3x5xf32>

// -----

// as_strided reads input's flat position offset + sum d_i stride_i, unflattened over its shape:
// overlapping windows of 6 every 5 elements of each row (the row and the column term by term,
// no division), and a broadcast (stride 0) from 1 whose rows cross input's (floordiv, mod).
func.func @as_strided(%x: tensor<4x30xf32>, %y: tensor<3x7xf32>) -> (tensor<4x5x6xf32>, tensor<3x4x5xf32>) {
  %w = torch.as_strided %x {stride = [30, 5, 1], offset = 0} : (tensor<4x30xf32>) -> tensor<4x5x6xf32>
  %b = torch.as_strided %y {stride = [0, 5, 1], offset = 1} : (tensor<3x7xf32>) -> tensor<3x4x5xf32>
  func.return %w, %b : tensor<4x5x6xf32>, tensor<3x4x5xf32>
}
// CHECK-LABEL: func.func @as_strided
// CHECK-NEXT:    %w = tensor.index_map %x affine_map<(d0, d1, d2) -> (d0, ((d1 * 5) + d2))> : tensor<4x30xf32> -> tensor<4x5x6xf32>
// CHECK-NEXT:    %b = tensor.index_map %y affine_map<(d0, d1, d2) -> (((((d1 * 5) + 1) + d2) floordiv 7), ((((d1 * 5) + 1) + d2) mod 7))> : tensor<3x7xf32> -> tensor<3x4x5xf32>

// -----

func.func @index_select(%x: tensor<3x5xf32>, %i: tensor<4xi64>) -> tensor<3x4xf32> {
  %r = torch.index_select %x, %i {dim = 1} : (tensor<3x5xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}
// CHECK-LABEL: func.func @index_select
// CHECK-NEXT:    %r = tensor.gather %x[%i] axis 1 : tensor<3x5xf32>, tensor<4xi64> -> tensor<3x4xf32>

// -----

// scatter_reduce: the input combined with the combiner's identity the source folded into.
func.func @scatter_reduce(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %s: tensor<3x2xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %r = torch.scatter_reduce %x, %i, %s {dim = 1, reduce = "sum"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %m = torch.scatter_reduce %x, %i, %s {dim = 1, reduce = "amax"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  func.return %r, %m : tensor<3x5xf32>, tensor<3x5xf32>
}
// CHECK-LABEL: func.func @scatter_reduce
// CHECK-NEXT:    %scattered = tensor.scatter sum %s[%i] axis 1 : tensor<3x2xf32>, tensor<3x2xi64> -> tensor<3x5xf32>
// CHECK-NEXT:    %r = tensor.elementwise ins(%x, %scattered : tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32> {
// CHECK:           arith.addf
// CHECK:         %scattered_1 = tensor.scatter max %s[%i] axis 1 : tensor<3x2xf32>, tensor<3x2xi64> -> tensor<3x5xf32>
// CHECK-NEXT:    %m = tensor.elementwise ins(%x, %scattered_1 : tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32> {
// CHECK:           arith.maximumf

// -----

// A reshape to the same shape is no op at all; a pointwise op is left alone.
func.func @same_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = torch.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = torch.neg %r : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %n : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @same_shape
// CHECK-NEXT:    %n = torch.neg %x
