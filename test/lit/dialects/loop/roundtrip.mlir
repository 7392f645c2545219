// RUN: dpl-opt %s | filecheck %s
// RUN: dpl-opt %s | dpl-opt | filecheck %s
// The seeds' RMSNorm nest and relu(matmul(x + bias, w)) in loop form survive parse -> print -> parse.

func.func @rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>, %out: memref<1x32x2048xf32>) {
  loop.kernel @k_rms_norm ins(%x, %p_weight : memref<1x32x2048xf32>, memref<2048xf32>) outs(%out : memref<1x32x2048xf32>) {
    %v0 = arith.constant 4.8828125e-04 : f32
    %eps = arith.constant 1.0e-06 : f32
    loop.for free %a0 < 32 {
      %acc0 = loop.for reduce %a1 < 2048 -> f32 {
        %in2 = loop.load %x[0, %a0, %a1] : memref<1x32x2048xf32>
        %v1 = arith.mulf %in2, %in2 : f32
        loop.accumulate add %v1 : f32
      }
      %v2 = arith.mulf %acc0, %v0 : f32
      %v3 = arith.addf %v2, %eps : f32
      %v4 = math.rsqrt %v3 : f32
      loop.for free %a2 < 2048 {
        %in3 = loop.load %x[0, %a0, %a2] : memref<1x32x2048xf32>
        %in4 = loop.load %p_weight[%a2] : memref<2048xf32>
        %v5 = arith.mulf %in3, %v4 : f32
        %v6 = arith.mulf %v5, %in4 : f32
        loop.store %v6, %out[0, %a0, %a2] : memref<1x32x2048xf32>
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @rms_norm
// CHECK:       loop.kernel @k_rms_norm ins(%x, %p_weight : memref<1x32x2048xf32>, memref<2048xf32>) outs(%out : memref<1x32x2048xf32>) {
// CHECK:         loop.for free %a0 < 32 {
// CHECK-NEXT:      %acc0 = loop.for reduce %a1 < 2048 -> f32 {
// CHECK-NEXT:        %in2 = loop.load %x[0, %a0, %a1] : memref<1x32x2048xf32>
// CHECK-NEXT:        %v1 = arith.mulf %in2, %in2 : f32
// CHECK-NEXT:        loop.accumulate add %v1 : f32
// CHECK-NEXT:      }
// CHECK:           %v4 = math.rsqrt %v3 : f32
// CHECK-NEXT:      loop.for free %a2 < 2048 {
// CHECK:             loop.store %v6, %out[0, %a0, %a2] : memref<1x32x2048xf32>

func.func @relu_matmul(%x: memref<16x64xf32>, %bias: memref<64xf32>, %w: memref<64x16xf32>, %relu: memref<16x16xf32>) {
  loop.kernel @k_relu_reduce ins(%bias, %x, %w : memref<64xf32>, memref<16x64xf32>, memref<64x16xf32>) outs(%relu : memref<16x16xf32>) {
    %zero = arith.constant 0.0 : f32
    loop.for free %a0 < 16 {
      loop.for free %a1 < 16 {
        %acc0, %acc1 = loop.for reduce %a2 < 64 -> f32, f32 {
          %in0 = loop.load %bias[%a2] : memref<64xf32>
          %in1 = loop.load %x[%a0, %a2] : memref<16x64xf32>
          %in2 = loop.load %w[%a2, %a1] : memref<64x16xf32>
          %v0 = arith.addf %in1, %in0 : f32
          %v1 = arith.mulf %v0, %in2 : f32
          loop.accumulate add %v1, max %v1 : f32, f32
        }
        %v2 = arith.maximumf %acc0, %zero : f32
        loop.store %v2, %relu[%a0, %a1] : memref<16x16xf32>
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @relu_matmul
// CHECK:       %acc0, %acc1 = loop.for reduce %a2 < 64 -> f32, f32 {
// CHECK:         loop.accumulate add %v1, max %v1 : f32, f32
// CHECK:       loop.store %v2, %relu[%a0, %a1] : memref<16x16xf32>

func.func @view(%x: memref<3x4xf32>) -> memref<12xf32> {
  %v = loop.view %x : memref<3x4xf32> -> memref<12xf32>
  func.return %v : memref<12xf32>
}

// CHECK-LABEL: func.func @view
// CHECK-NEXT:  %v = loop.view %x : memref<3x4xf32> -> memref<12xf32>

func.func @scatter_add(%s: memref<8x3xf32>, %i: memref<8x3xi64>, %o: memref<5x3xf32>) {
  loop.kernel @k_scatter ins(%s, %i : memref<8x3xf32>, memref<8x3xi64>) outs(%o : memref<5x3xf32>) {
    loop.for free %a0 < 8 {
      loop.for free %a1 < 3 {
        %id = loop.load %i[%a0, %a1] : memref<8x3xi64>
        %at = arith.index_cast %id : i64 to index
        %v = loop.load %s[%a0, %a1] : memref<8x3xf32>
        loop.atomic add %v, %o[%at, %a1] : memref<5x3xf32>
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @scatter_add
// CHECK:       loop.atomic add %v, %o[%at, %a1] : memref<5x3xf32>
