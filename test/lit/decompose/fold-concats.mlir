// RUN: dpl-opt %s --split-input-file --pass-pipeline=fold-concats | filecheck %s
// Reads through tensor.concat: a read inside one part reads that part; a read across parts by a
// shifted dim splits into a concat of reads; splats and same-axis concats fold; the rest stays.

// A slice inside the second part reads that part, its offset subtracted.
func.func @inside(%p: tensor<4x8xf32>, %q: tensor<6x8xf32>) -> tensor<3x8xf32> {
  %c = tensor.concat %p, %q axis 0 : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<10x8xf32>
  %s = tensor.index_map %c affine_map<(d0, d1) -> (d0 + 5, d1)> : tensor<10x8xf32> -> tensor<3x8xf32>
  func.return %s : tensor<3x8xf32>
}
// CHECK-LABEL: func.func @inside
// CHECK-NEXT:    %s = tensor.index_map %q affine_map<(d0, d1) -> ((d0 + 1), d1)> : tensor<6x8xf32> -> tensor<3x8xf32>
// CHECK-NEXT:    func.return %s

// -----

// slice_scatter twice into zeros, then read back across the parts (the temporal shift's
// shape): the zeros become splats of each part's shape, the read a concat of reads of %x.
func.func @across(%x: tensor<6x4xf32>) -> tensor<5x4xf32> {
  %z = tensor.constant dense<0.0> : tensor<6x4xf32>
  %a = tensor.index_map %x affine_map<(d0, d1) -> (d0 + 1, d1)> : tensor<6x4xf32> -> tensor<3x4xf32>
  %b = tensor.index_map %z affine_map<(d0, d1) -> (d0 + 3, d1)> : tensor<6x4xf32> -> tensor<3x4xf32>
  %c = tensor.concat %a, %b axis 0 : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<6x4xf32>
  %s = tensor.index_map %c affine_map<(d0, d1) -> (d0 + 1, d1)> : tensor<6x4xf32> -> tensor<5x4xf32>
  func.return %s : tensor<5x4xf32>
}
// CHECK-LABEL: func.func @across
// CHECK-NEXT:    %0 = tensor.index_map %x affine_map<(d0, d1) -> ((d0 + 2), d1)> : tensor<6x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = tensor.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT:    %s = tensor.concat %0, %1 axis 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT:    func.return %s

// -----

// A concat of a same-axis concat is flattened; x[0:2] next to x[2:5] is x[0:5]; two splats of
// one value are one.
func.func @flatten(%x: tensor<5x3xf32>, %y: tensor<2x3xf32>) -> tensor<11x3xf32> {
  %a = tensor.index_map %x affine_map<(d0, d1) -> (d0, d1)> : tensor<5x3xf32> -> tensor<2x3xf32>
  %b = tensor.index_map %x affine_map<(d0, d1) -> (d0 + 2, d1)> : tensor<5x3xf32> -> tensor<3x3xf32>
  %i = tensor.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<5x3xf32>
  %z1 = tensor.constant dense<1.5> : tensor<1x3xf32>
  %z2 = tensor.constant dense<1.5> : tensor<3x3xf32>
  %c = tensor.concat %i, %z1, %z2, %y axis 0 : tensor<5x3xf32>, tensor<1x3xf32>, tensor<3x3xf32>, tensor<2x3xf32> -> tensor<11x3xf32>
  func.return %c : tensor<11x3xf32>
}
// CHECK-LABEL: func.func @flatten
// CHECK-NEXT:    %0 = tensor.constant dense<1.500000e+00> : tensor<4x3xf32>
// CHECK-NEXT:    %c = tensor.concat %x, %0, %y axis 0 : tensor<5x3xf32>, tensor<4x3xf32>, tensor<2x3xf32> -> tensor<11x3xf32>
// CHECK-NEXT:    func.return %c

// -----

// Declined: a read across parts through a reshape (floordiv / mod along the axis); a read
// across parts of a concat that something else also uses (it would be written twice); a
// broadcast of a concat (fused into its consumer, not materialized larger).
func.func @declined(%p: tensor<2x4xf32>, %q: tensor<2x4xf32>) -> (tensor<16xf32>, tensor<4x4xf32>, tensor<3x4x4xf32>, tensor<2x8xf32>) {
  %c = tensor.concat %p, %q axis 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %r = tensor.index_map %c affine_map<(d0) -> (d0 floordiv 4, d0 mod 4)> : tensor<4x4xf32> -> tensor<16xf32>
  %d = tensor.concat %p, %q axis 1 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x8xf32>
  %s = tensor.index_map %d affine_map<(d0, d1) -> (d0, d1 + 2)> : tensor<2x8xf32> -> tensor<2x4xf32>
  %e = tensor.concat %s, %s axis 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %b = tensor.index_map %c affine_map<(d0, d1, d2) -> (d1, d2)> : tensor<4x4xf32> -> tensor<3x4x4xf32>
  func.return %r, %e, %b, %d : tensor<16xf32>, tensor<4x4xf32>, tensor<3x4x4xf32>, tensor<2x8xf32>
}
// CHECK-LABEL: func.func @declined
// CHECK-NEXT:    %c = tensor.concat %p, %q axis 0
// CHECK-NEXT:    %r = tensor.index_map %c
// CHECK-NEXT:    %d = tensor.concat %p, %q axis 1
// CHECK-NEXT:    %s = tensor.index_map %d
// CHECK-NEXT:    %e = tensor.concat %s, %s axis 0
// CHECK-NEXT:    %b = tensor.index_map %c

// -----

// `out[1:-1, 1:-1] = x; out[0] = out[1]`: the inner concat, read by the outer one and by the
// read of its first row, is copied for the outer one (which lower-to-loops writes in place); the
// row then reads through the original, which goes.
func.func @copied(%x: tensor<3x4xf32>) -> tensor<5x6xf32> {
  %z = tensor.constant dense<0.0> : tensor<3x1xf32>
  %m = tensor.concat %z, %x, %z axis 1 : tensor<3x1xf32>, tensor<3x4xf32>, tensor<3x1xf32> -> tensor<3x6xf32>
  %r = tensor.index_map %m affine_map<(d0, d1) -> (0, d1)> : tensor<3x6xf32> -> tensor<1x6xf32>
  %z2 = tensor.constant dense<0.0> : tensor<1x6xf32>
  %o = tensor.concat %r, %m, %z2 axis 0 : tensor<1x6xf32>, tensor<3x6xf32>, tensor<1x6xf32> -> tensor<5x6xf32>
  func.return %o : tensor<5x6xf32>
}
// CHECK-LABEL: func.func @copied
// CHECK-NEXT:    %z = tensor.constant dense<0.000000e+00> : tensor<3x1xf32>
// CHECK-NEXT:    %0 = tensor.constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT:    %1 = tensor.index_map %x affine_map<(d0, d1) -> (0, d1)> : tensor<3x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT:    %2 = tensor.constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT:    %r = tensor.concat %0, %1, %2 axis 1 : tensor<1x1xf32>, tensor<1x4xf32>, tensor<1x1xf32> -> tensor<1x6xf32>
// CHECK-NEXT:    %z2 = tensor.constant dense<0.000000e+00> : tensor<1x6xf32>
// CHECK-NEXT:    %3 = tensor.concat %z, %x, %z axis 1 : tensor<3x1xf32>, tensor<3x4xf32>, tensor<3x1xf32> -> tensor<3x6xf32>
// CHECK-NEXT:    %o = tensor.concat %r, %3, %z2 axis 0 : tensor<1x6xf32>, tensor<3x6xf32>, tensor<1x6xf32> -> tensor<5x6xf32>

// -----

// Declined: all of a concat read (transposed) by an elementwise op: fused into it as it is.
func.func @whole(%p: tensor<2x4xf32>, %q: tensor<2x4xf32>) -> tensor<8x2xf32> {
  %c = tensor.concat %p, %q axis 1 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x8xf32>
  %t = tensor.index_map %c affine_map<(d0, d1) -> (d1, d0)> : tensor<2x8xf32> -> tensor<8x2xf32>
  %n = tensor.elementwise ins(%t : tensor<8x2xf32>) -> tensor<8x2xf32> {
  ^bb0(%a: f32):
    %m = arith.negf %a : f32
    tensor.yield %m : f32
  }
  func.return %n : tensor<8x2xf32>
}
// CHECK-LABEL: func.func @whole
// CHECK-NEXT:    %c = tensor.concat %p, %q axis 1
// CHECK-NEXT:    %t = tensor.index_map %c
