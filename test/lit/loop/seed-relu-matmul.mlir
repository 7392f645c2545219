// RUN: dpl-opt %s --pass-pipeline='lower-to-loops,fuse-loops' | filecheck %s
// The seeds' relu(matmul(x + bias, w)) in Tensor IR lowers and fuses into one nest: the bias add
// as prologue inside the K reduce, relu as epilogue after it, no intermediate buffers.

func.func @main(%x: tensor<16x64xf32>, %bias: tensor<64xf32>, %w: tensor<64x16xf32>) -> tensor<16x16xf32> {
  %bias_bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf32> -> tensor<16x64xf32>
  %w_bc = tensor.index_map %w affine_map<(d0, d1, d2) -> (d1, d2)> : tensor<64x16xf32> -> tensor<16x64x16xf32>
  %add = tensor.elementwise ins(%x, %bias_bc : tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tensor.yield %s : f32
  }
  %add_bc = tensor.index_map %add affine_map<(d0, d1, d2) -> (d0, d1)> : tensor<16x64xf32> -> tensor<16x64x16xf32>
  %prod = tensor.elementwise ins(%add_bc, %w_bc : tensor<16x64x16xf32>, tensor<16x64x16xf32>) -> tensor<16x64x16xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    tensor.yield %p : f32
  }
  %red = tensor.reduce sum %prod axes [1] : tensor<16x64x16xf32> -> tensor<16x1x16xf32>
  %matmul = tensor.index_map %red affine_map<(d0, d1) -> (d0, 0, d1)> : tensor<16x1x16xf32> -> tensor<16x16xf32>
  %relu = tensor.elementwise ins(%matmul : tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: f32):
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %a, %zero : f32
    tensor.yield %r : f32
  }
  func.return %relu : tensor<16x16xf32>
}

// CHECK-LABEL: func.func @main(%x: memref<16x64xf32>, %bias: memref<64xf32>, %w: memref<64x16xf32>) -> memref<16x16xf32> {
// CHECK-NEXT:    %relu = memref.alloc() : memref<16x16xf32>
// CHECK-NEXT:    loop.kernel @k_relu ins(%w, %x, %bias : memref<64x16xf32>, memref<16x64xf32>, memref<64xf32>) outs(%relu : memref<16x16xf32>) {
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      loop.for free %a0 < 16 {
// CHECK-NEXT:        loop.for free %a1 < 16 {
// CHECK-NEXT:          %acc = loop.for reduce %r0 < 64 -> f32 {
// CHECK-NEXT:            %a = loop.load %x[%a0, %r0] : memref<16x64xf32>
// CHECK-NEXT:            %in = loop.load %bias[%r0] : memref<64xf32>
// CHECK-NEXT:            %s = arith.addf %a, %in : f32
// CHECK-NEXT:            %in_1 = loop.load %w[%r0, %a1] : memref<64x16xf32>
// CHECK-NEXT:            %p = arith.mulf %s, %in_1 : f32
// CHECK-NEXT:            loop.accumulate add %p : f32
// CHECK-NEXT:          }
// CHECK-NEXT:          %r = arith.maximumf %acc, %zero : f32
// CHECK-NEXT:          loop.store %r, %relu[%a0, %a1] : memref<16x16xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %relu : memref<16x16xf32>
