// RUN: dpl-opt %s --split-input-file --pass-pipeline='lower-to-loops' | filecheck %s
// One kernel per tensor op, in producer form; one case per op kind.

func.func @main(%x: tensor<4x8xf64>) -> tensor<4x1xf64> {
  %s = tensor.reduce max %x axes [1] : tensor<4x8xf64> -> tensor<4x1xf64>
  func.return %s : tensor<4x1xf64>
}
// CHECK-LABEL: func.func @main(%x: memref<4x8xf64>) -> memref<4x1xf64> {
// CHECK-NEXT:    %s = memref.alloc() : memref<4x1xf64>
// CHECK-NEXT:    loop.kernel @k_s ins(%x : memref<4x8xf64>) outs(%s : memref<4x1xf64>) {
// CHECK-NEXT:      loop.for free %a0 < 4 {
// CHECK-NEXT:        loop.for free %a1 < 1 {
// CHECK-NEXT:          %acc = loop.for reduce %r0 < 8 -> f64 {
// CHECK-NEXT:            %in = loop.load %x[%a0, %r0] : memref<4x8xf64>
// CHECK-NEXT:            loop.accumulate max %in : f64
// CHECK-NEXT:          }
// CHECK-NEXT:          loop.store %acc, %s[%a0, %a1] : memref<4x1xf64>

// -----

func.func @main(%x: tensor<4x8xf64>) -> tensor<8x4xf64> {
  %t = tensor.index_map %x affine_map<(d0, d1) -> (d1, d0)> : tensor<4x8xf64> -> tensor<8x4xf64>
  func.return %t : tensor<8x4xf64>
}
// CHECK-LABEL: func.func @main(%x: memref<4x8xf64>) -> memref<8x4xf64> {
// CHECK:         loop.for free %a0 < 8 {
// CHECK-NEXT:      loop.for free %a1 < 4 {
// CHECK-NEXT:        %in = loop.load %x[%a1, %a0] : memref<4x8xf64>
// CHECK-NEXT:        loop.store %in, %t[%a0, %a1] : memref<8x4xf64>

// -----

func.func @main(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %m = tensor.elementwise ins(%x : tensor<4x8xf64>) with_indices -> tensor<4x8xf64> {
  ^bb0(%a: f64, %i: index, %j: index):
    %c = arith.cmpi sle, %j, %i : index
    %z = arith.constant 0.0 : f64
    %r = arith.select %c, %a, %z : f64
    tensor.yield %r : f64
  }
  func.return %m : tensor<4x8xf64>
}
// CHECK-LABEL: func.func @main(%x: memref<4x8xf64>) -> memref<4x8xf64> {
// CHECK:         loop.for free %a0 < 4 {
// CHECK-NEXT:      loop.for free %a1 < 8 {
// CHECK-NEXT:        %a = loop.load %x[%a0, %a1] : memref<4x8xf64>
// CHECK-NEXT:        %c = arith.cmpi sle, %a1, %a0 : index

// -----

func.func @main(%t: tensor<10x4xf64>, %ids: tensor<3xi64>) -> tensor<3x4xf64> {
  %g = tensor.gather %t[%ids] axis 0 : tensor<10x4xf64>, tensor<3xi64> -> tensor<3x4xf64>
  func.return %g : tensor<3x4xf64>
}
// CHECK-LABEL: func.func @main(%t: memref<10x4xf64>, %ids: memref<3xi64>) -> memref<3x4xf64> {
// CHECK:         %id = loop.load %ids[%a0] : memref<3xi64>
// CHECK-NEXT:    %{{.*}} = arith.index_cast %id : i64 to index
// CHECK-NEXT:    %in = loop.load %t[%{{.*}}, %a1] : memref<10x4xf64>

// -----

// A scatter: free loops over the source, the index clamped into [0, 10), an atomic of its kind.
func.func @main(%s: tensor<3x4xf64>, %ids: tensor<3x4xi64>) -> tensor<10x4xf64> {
  %r = tensor.scatter max %s[%ids] axis 0 : tensor<3x4xf64>, tensor<3x4xi64> -> tensor<10x4xf64>
  func.return %r : tensor<10x4xf64>
}
// CHECK-LABEL: func.func @main(%s: memref<3x4xf64>, %ids: memref<3x4xi64>) -> memref<10x4xf64> {
// CHECK:         loop.kernel @k_r ins(%s, %ids : memref<3x4xf64>, memref<3x4xi64>) outs(%r : memref<10x4xf64>) {
// CHECK:         loop.for free %a0 < 3 {
// CHECK-NEXT:      loop.for free %a1 < 4 {
// CHECK-NEXT:        %id = loop.load %ids[%a0, %a1] : memref<3x4xi64>
// CHECK-NEXT:        %[[LO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:        %[[HI:.*]] = arith.constant 9 : i64
// CHECK-NEXT:        %[[MIN:.*]] = arith.minsi %id, %[[HI]] : i64
// CHECK-NEXT:        %[[MAX:.*]] = arith.maxsi %[[MIN]], %[[LO]] : i64
// CHECK-NEXT:        %[[AT:.*]] = arith.index_cast %[[MAX]] : i64 to index
// CHECK-NEXT:        %in = loop.load %s[%a0, %a1] : memref<3x4xf64>
// CHECK-NEXT:        loop.atomic max %in, %r[%[[AT]], %a1] : memref<10x4xf64>

// -----

func.func @main(%a: tensor<2x3xf64>, %b: tensor<2x5xf64>) -> tensor<2x8xf64> {
  %c = tensor.concat %a, %b axis 1 : tensor<2x3xf64>, tensor<2x5xf64> -> tensor<2x8xf64>
  func.return %c : tensor<2x8xf64>
}
// CHECK-LABEL: func.func @main(%a: memref<2x3xf64>, %b: memref<2x5xf64>) -> memref<2x8xf64> {
// CHECK:         loop.store %in, %c[%a0, %a1] : memref<2x8xf64>
// CHECK:         loop.store %in_1, %c[%a0_1, %a1_1 + 3] : memref<2x8xf64>

// -----

func.func @main() -> tensor<2x2xf64> {
  %c = tensor.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  func.return %c : tensor<2x2xf64>
}
// CHECK-LABEL: func.func @main() -> memref<2x2xf64> {
// CHECK:         %{{.*}} = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    loop.store %{{.*}}, %c[0, 0] : memref<2x2xf64>
// CHECK:         loop.store %{{.*}}, %c[1, 1] : memref<2x2xf64>

// -----

// A splat, of any size (the zeros a transposed convolution interleaves), is a fill loop.
func.func @main() -> tensor<3x4097xf32> {
  %c = tensor.constant dense<1.5> : tensor<3x4097xf32>
  func.return %c : tensor<3x4097xf32>
}
// CHECK-LABEL: func.func @main() -> memref<3x4097xf32> {
// CHECK:         loop.kernel @k_c outs(%c : memref<3x4097xf32>) {
// CHECK-NEXT:      loop.for free %a0 < 3 {
// CHECK-NEXT:        loop.for free %a1 < 4097 {
// CHECK-NEXT:          %{{.*}} = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:          loop.store %{{.*}}, %c[%a0, %a1] : memref<3x4097xf32>

// -----

// A concat used only by another concat has no buffer: its operands store into the outer
// concat's at their offsets along both axes (%i is %c's rows 2..3). %j, also returned, keeps
// its own buffer and kernel.
func.func @main(%a: tensor<2x3xf64>, %b: tensor<2x5xf64>, %d: tensor<2x8xf64>, %e: tensor<4x8xf64>) -> (tensor<8x8xf64>, tensor<4x8xf64>) {
  %i = tensor.concat %a, %b axis 1 : tensor<2x3xf64>, tensor<2x5xf64> -> tensor<2x8xf64>
  %j = tensor.concat %i, %d axis 0 : tensor<2x8xf64>, tensor<2x8xf64> -> tensor<4x8xf64>
  %c = tensor.concat %e, %j axis 0 : tensor<4x8xf64>, tensor<4x8xf64> -> tensor<8x8xf64>
  func.return %c, %j : tensor<8x8xf64>, tensor<4x8xf64>
}
// CHECK-LABEL: func.func @main(%a: memref<2x3xf64>, %b: memref<2x5xf64>, %d: memref<2x8xf64>, %e: memref<4x8xf64>)
// CHECK-NOT:     %i = memref.alloc
// CHECK:         %j = memref.alloc() : memref<4x8xf64>
// CHECK-NEXT:    loop.kernel @k_j ins(%a, %b, %d : memref<2x3xf64>, memref<2x5xf64>, memref<2x8xf64>) outs(%j : memref<4x8xf64>)
// CHECK:           loop.store %{{.*}}, %j[%{{.*}}, %{{.*}}] : memref<4x8xf64>
// CHECK:           loop.store %{{.*}}, %j[%{{.*}}, %{{.*}} + 3] : memref<4x8xf64>
// CHECK:           loop.store %{{.*}}, %j[%{{.*}} + 2, %{{.*}}] : memref<4x8xf64>
// CHECK:         %c = memref.alloc() : memref<8x8xf64>
// CHECK-NEXT:    loop.kernel @k_c ins(%e, %j : memref<4x8xf64>, memref<4x8xf64>) outs(%c : memref<8x8xf64>)
