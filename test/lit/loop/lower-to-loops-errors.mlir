// RUN: not dpl-opt %s --pass-pipeline=lower-to-loops 2>&1 | filecheck %s
// A constant too large to become one store per element is a one-line error: the frontend
// passes such a constant (a rotary table, a mask) as an argument of @main, a table.

func.func @main(%x: tensor<4097xf32>) -> tensor<4097xf32> {
  %c = tensor.constant dense<1.5> : tensor<4097xf32>
  func.return %c : tensor<4097xf32>
}

// CHECK: lower-to-loops: tensor.constant with 4097 elements is too large to inline (limit 4096); pass it as an argument of @main instead, as the frontend does with its tables
// CHECK-NOT: Traceback
