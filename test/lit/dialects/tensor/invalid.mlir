// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per tensor-dialect verifier rule.

func.func @f(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  %r = tensor.elementwise ins(%x, %y : tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: f32, %b: f32):
    tensor.yield %a : f32
  }
  func.return
}
// CHECK: 'tensor.elementwise' operand #1 has shape [8] but the result has shape [4, 8]: broadcast with tensor.index_map first

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.elementwise ins(%x : tensor<4x8xf32>) with_indices -> tensor<4x8xf32> {
  ^bb0(%a: f32, %i: index):
    tensor.yield %a : f32
  }
  func.return
}
// CHECK: 'tensor.elementwise' body takes 2 arguments but needs 1 scalars and 2 indices

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.elementwise ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: f64):
    %t = arith.truncf %a : f64 to f32
    tensor.yield %t : f32
  }
  func.return
}
// CHECK: 'tensor.elementwise' body argument #0 has type f64 but operand #0 has element type f32

// -----

func.func @f(%x: tensor<4xf32>) {
  %r = tensor.elementwise ins(%x : tensor<4xf32>) with_indices -> tensor<4xf32> {
  ^bb0(%a: f32, %i: i64):
    tensor.yield %a : f32
  }
  func.return
}
// CHECK: 'tensor.elementwise' index arguments must have type index, got i64

// -----

func.func @f(%x: tensor<4xf32>) {
  %r = tensor.elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
  }
  func.return
}
// (xDSL's single-block check reports this before our 'must end in tensor.yield' rule)
// CHECK: Operation arith.negf terminates block in single-block region but is not a terminator

// -----

func.func @f(%x: tensor<4xf32>) {
  %r = tensor.elementwise ins(%x : tensor<4xf32>) -> tensor<4xf64> {
  ^bb0(%a: f32):
    tensor.yield %a : f32
  }
  func.return
}
// CHECK: 'tensor.elementwise' yields f32 but the result element type is f64

// -----

func.func @f(%x: tensor<4xf32>) {
  %r = tensor.elementwise ins(%x : tensor<4xf32>) -> tensor<?xf32> {
  ^bb0(%a: f32):
    tensor.yield %a : f32
  }
  func.return
}
// CHECK: 'tensor.elementwise' needs ranked tensors of static shape, got tensor<?xf32>

// -----

func.func @f(%x: f32) {
  %r = scf.execute_region -> (f32) {
    tensor.yield %x : f32
  }
  func.return
}
// CHECK: 'tensor.yield' must terminate a 'tensor.elementwise' body

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.reduce sum %x axes [2] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}
// CHECK: 'tensor.reduce' axis 2 is out of range for a rank-2 input

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.reduce sum %x axes [1, 1] : tensor<4x8xf32> -> tensor<4x1xf32>
  func.return
}
// CHECK: 'tensor.reduce' axes [1, 1] repeat an axis

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.reduce max %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  func.return
}
// CHECK: 'tensor.reduce' result must be tensor<4x1xf32> (reduced axes kept with extent 1), got tensor<4xf32>

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.reduce max %x axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}
// CHECK: 'tensor.reduce' needs at least one axis

// -----

func.func @f(%x: tensor<8xf32>) {
  %r = tensor.index_map %x affine_map<(d0) -> (d0)> : tensor<8xf32> -> tensor<4x8xf32>
  func.return
}
// CHECK: 'tensor.index_map' map has 1 dims but the result has rank 2

// -----

func.func @f(%x: tensor<4x8xf32>) {
  %r = tensor.index_map %x affine_map<(d0, d1) -> (d1)> : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}
// CHECK: 'tensor.index_map' map has 1 results but the source has rank 2

// -----

func.func @f(%x: tensor<8xf32>) {
  %r = tensor.index_map %x affine_map<(d0)[s0] -> (d0 + s0)> : tensor<8xf32> -> tensor<4xf32>
  func.return
}
// CHECK: 'tensor.index_map' map must not have symbols

// -----

func.func @f(%x: tensor<8xf32>) {
  %r = tensor.index_map %x affine_map<(d0) -> (d0)> : tensor<8xf32> -> tensor<8xf64>
  func.return
}
// CHECK: 'tensor.index_map' result element type f64 differs from the source's f32

// -----

func.func @f(%x: tensor<8xf32>) {
  %r = tensor.index_map %x affine_map<(d0) -> (d0 * 2 + 1)> : tensor<8xf32> -> tensor<4xf32>
  %s = tensor.index_map %x affine_map<(d0) -> (d0 * 2 + 2)> : tensor<8xf32> -> tensor<4xf32>
  func.return
}
// CHECK: 'tensor.index_map' maps result index [3] to source index [8], outside the source shape [8]

// -----

func.func @f(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  %r = tensor.gather %t[%i] axis 2 : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  func.return
}
// CHECK: 'tensor.gather' axis 2 is out of range for a rank-2 table

// -----

func.func @f(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  %r = tensor.gather %t[%i] axis 0 : tensor<10x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
  func.return
}
// CHECK: 'tensor.gather' indices must be integers, got f32

// -----

func.func @f(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  %r = tensor.gather %t[%i] axis 0 : tensor<10x4xf32>, tensor<3xi64> -> tensor<4x3xf32>
  func.return
}
// CHECK: 'tensor.gather' result must be tensor<3x4xf32>, got tensor<4x3xf32>

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  %r = tensor.concat %a, %b axis 2 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
  func.return
}
// CHECK: 'tensor.concat' axis 2 is out of range for a rank-2 result

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  %r = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<3x5xf32> -> tensor<2x8xf32>
  func.return
}
// CHECK: 'tensor.concat' operand #1 has shape [3, 5], which differs from the result shape [2, 8] off axis 1

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x5xf64>) {
  %r = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x5xf64> -> tensor<2x8xf32>
  func.return
}
// CHECK: 'tensor.concat' operand #1 has element type f64, the result f32

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  %r = tensor.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x9xf32>
  func.return
}
// CHECK: 'tensor.concat' operands sum to 8 along axis 1 but the result has 9

// -----

func.func @f() {
  %r = "tensor.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return
}
// CHECK: 'tensor.constant' value has type tensor<2xf32> but the result is tensor<3xf32>

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tensor.elementwise ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32):
    "kernel.yield"() : () -> ()
  }
  func.return %r : tensor<4xf32>
}
// CHECK: 'tensor.elementwise' body must end in 'tensor.yield'

// -----

func.func @f() -> tensor<4xf32> {
  %r = "tensor.concat"() <{axis = #builtin.int<0>}> : () -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: 'tensor.concat' needs at least one operand

// -----

func.func @f(%s: tensor<3x4xf32>, %i: tensor<3x4xi64>) {
  %r = tensor.scatter sum %s[%i] axis 2 : tensor<3x4xf32>, tensor<3x4xi64> -> tensor<10x4xf32>
  func.return
}
// CHECK: 'tensor.scatter' axis 2 is out of range for a rank-2 source

// -----

func.func @f(%s: tensor<3x4xf32>, %i: tensor<3x4xf32>) {
  %r = tensor.scatter sum %s[%i] axis 0 : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<10x4xf32>
  func.return
}
// CHECK: 'tensor.scatter' indices must be integers, got f32

// -----

func.func @f(%s: tensor<3x4xf32>, %i: tensor<3x1xi64>) {
  %r = tensor.scatter sum %s[%i] axis 0 : tensor<3x4xf32>, tensor<3x1xi64> -> tensor<10x4xf32>
  func.return
}
// CHECK: 'tensor.scatter' indices shape [3, 1] differs from the source shape [3, 4]

// -----

func.func @f(%s: tensor<3x4xf32>, %i: tensor<3x4xi64>) {
  %r = tensor.scatter sum %s[%i] axis 0 : tensor<3x4xf32>, tensor<3x4xi64> -> tensor<10x4xf64>
  func.return
}
// CHECK: 'tensor.scatter' result element type f64 differs from the source's f32

// -----

func.func @f(%s: tensor<3x4xf32>, %i: tensor<3x4xi64>) {
  %r = tensor.scatter sum %s[%i] axis 0 : tensor<3x4xf32>, tensor<3x4xi64> -> tensor<10x2xf32>
  func.return
}
// CHECK: 'tensor.scatter' result shape [10, 2] must have the source's rank and be no smaller than source [3, 4] on every dim but 0

// -----

func.func @f(%s: tensor<3x4xf32>, %i: tensor<3x4xi64>) {
  %r = tensor.scatter prod %s[%i] axis 0 : tensor<3x4xf32>, tensor<3x4xi64> -> tensor<10x4xf32>
  func.return
}
// CHECK: 'tensor.scatter' folds with sum, max or min, not prod
