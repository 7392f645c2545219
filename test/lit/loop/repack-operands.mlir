// RUN: dpl-opt %s --split-input-file --pass-pipeline='repack-operands' | filecheck %s
// repack-operands: a contraction's inputs whose rows are not a multiple of 4 elements are copied
// into zero-padded buffers with aligned rows (along K: to a multiple of the k-tile, 32), and
// the contraction reads the copies; where every K-indexed load reads a copy padded along K,
// the reduce loop runs to the padded K.

// x @ y.T with K = 37: both rows are along K, both padded to 64, K runs to 64.
func.func @main(%x: memref<6x37xf32>, %y: memref<5x37xf32>) -> memref<6x5xf32> {
  %out = memref.alloc() : memref<6x5xf32>
  loop.kernel @k_matmul ins(%x, %y : memref<6x37xf32>, memref<5x37xf32>) outs(%out : memref<6x5xf32>) {
    loop.for free %i < 6 {
      loop.for free %j < 5 {
        %acc = loop.for reduce %r < 37 -> f32 {
          %a = loop.load %x[%i, %r] : memref<6x37xf32>
          %b = loop.load %y[%j, %r] : memref<5x37xf32>
          %p = arith.mulf %a, %b : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %out[%i, %j] : memref<6x5xf32>
      }
    }
  }
  func.return %out : memref<6x5xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<6x37xf32>, %y: memref<5x37xf32>)
// CHECK:         %x_pad = memref.alloc() : memref<6x64xf32>
// CHECK-NEXT:    loop.kernel @k_matmul_pad_x ins(%x : memref<6x37xf32>) outs(%x_pad : memref<6x64xf32>) {
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %cols = arith.constant 37 : index
// CHECK-NEXT:      loop.for free %a0 < 6 {
// CHECK-NEXT:        loop.for free %a1 < 64 {
// CHECK-NEXT:          %in = loop.load %x[%a0, %a1 mod 37] : memref<6x37xf32>
// CHECK-NEXT:          %inside = arith.cmpi ult, %a1, %cols : index
// CHECK-NEXT:          %v = arith.select %inside, %in, %zero : f32
// CHECK-NEXT:          loop.store %v, %x_pad[%a0, %a1] : memref<6x64xf32>
// CHECK:         %y_pad = memref.alloc() : memref<5x64xf32>
// CHECK-NEXT:    loop.kernel @k_matmul_pad_y ins(%y : memref<5x37xf32>) outs(%y_pad : memref<5x64xf32>) {
// CHECK:         loop.kernel @k_matmul ins(%x_pad, %y_pad : memref<6x64xf32>, memref<5x64xf32>) outs(%out : memref<6x5xf32>) {
// CHECK:           %acc = loop.for reduce %r < 64 -> f32 {
// CHECK-NEXT:        %a = loop.load %x_pad[%i, %r] : memref<6x64xf32>
// CHECK-NEXT:        %b = loop.load %y_pad[%j, %r] : memref<5x64xf32>

// -----

// A batched x @ y with K = 37 and N = 7: %x padded along K to 64, %y along N to 8 (its K rows
// are not padded, so K stays 37: pad-matmul masks %y's reads past it).
func.func @main(%x: memref<2x6x37xf32>, %y: memref<2x37x7xf32>) -> memref<2x6x7xf32> {
  %out = memref.alloc() : memref<2x6x7xf32>
  loop.kernel @k_bmm ins(%x, %y : memref<2x6x37xf32>, memref<2x37x7xf32>) outs(%out : memref<2x6x7xf32>) {
    loop.for free %b < 2 {
      loop.for free %i < 6 {
        loop.for free %j < 7 {
          %acc = loop.for reduce %r < 37 -> f32 {
            %a = loop.load %x[%b, %i, %r] : memref<2x6x37xf32>
            %w = loop.load %y[%b, %r, %j] : memref<2x37x7xf32>
            %p = arith.mulf %a, %w : f32
            loop.accumulate add %p : f32
          }
          loop.store %acc, %out[%b, %i, %j] : memref<2x6x7xf32>
        }
      }
    }
  }
  func.return %out : memref<2x6x7xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<2x6x37xf32>, %y: memref<2x37x7xf32>)
// CHECK:         %x_pad = memref.alloc() : memref<2x6x64xf32>
// CHECK:         loop.kernel @k_bmm_pad_x ins(%x : memref<2x6x37xf32>) outs(%x_pad : memref<2x6x64xf32>) {
// CHECK:         loop.load %x[%{{.*}}, %{{.*}}, %{{.*}} mod 37] : memref<2x6x37xf32>
// CHECK:         %y_pad = memref.alloc() : memref<2x37x8xf32>
// CHECK:         loop.kernel @k_bmm_pad_y ins(%y : memref<2x37x7xf32>) outs(%y_pad : memref<2x37x8xf32>) {
// CHECK:         loop.load %y[%{{.*}}, %{{.*}}, %{{.*}} mod 7] : memref<2x37x7xf32>
// CHECK:         loop.kernel @k_bmm ins(%x_pad, %y_pad : memref<2x6x64xf32>, memref<2x37x8xf32>) outs(%out : memref<2x6x7xf32>) {
// CHECK:           %acc = loop.for reduce %r < 37 -> f32 {

// -----

// Declined: every row is a multiple of 4 elements (nothing to gain).
func.func @main(%x: memref<6x36xf32>, %y: memref<36x8xf32>) -> memref<6x5xf32> {
  %out = memref.alloc() : memref<6x5xf32>
  loop.kernel @k_aligned ins(%x, %y : memref<6x36xf32>, memref<36x8xf32>) outs(%out : memref<6x5xf32>) {
    loop.for free %i < 6 {
      loop.for free %j < 5 {
        %acc = loop.for reduce %r < 36 -> f32 {
          %a = loop.load %x[%i, %r] : memref<6x36xf32>
          %b = loop.load %y[%r, %j] : memref<36x8xf32>
          %p = arith.mulf %a, %b : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %out[%i, %j] : memref<6x5xf32>
      }
    }
  }
  func.return %out : memref<6x5xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<6x36xf32>
// CHECK-NOT:     _pad
// CHECK:         loop.kernel @k_aligned ins(%x, %y

// -----

// Declined: not a contraction (a row sum of misaligned rows).
func.func @main(%x: memref<6x37xf32>) -> memref<6xf32> {
  %out = memref.alloc() : memref<6xf32>
  loop.kernel @k_sum ins(%x : memref<6x37xf32>) outs(%out : memref<6xf32>) {
    loop.for free %i < 6 {
      %acc = loop.for reduce %r < 37 -> f32 {
        %a = loop.load %x[%i, %r] : memref<6x37xf32>
        loop.accumulate add %a : f32
      }
      loop.store %acc, %out[%i] : memref<6xf32>
    }
  }
  func.return %out : memref<6xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<6x37xf32>) -> memref<6xf32>
// CHECK-NOT:     _pad
// CHECK:         loop.kernel @k_sum ins(%x

// -----

// %x has 39 columns of which K reads 37: padded to 40, K kept (its columns 37..39 are data).
func.func @main(%x: memref<6x39xf32>, %y: memref<5x37xf32>) -> memref<6x5xf32> {
  %out = memref.alloc() : memref<6x5xf32>
  loop.kernel @k_slice ins(%x, %y : memref<6x39xf32>, memref<5x37xf32>) outs(%out : memref<6x5xf32>) {
    loop.for free %i < 6 {
      loop.for free %j < 5 {
        %acc = loop.for reduce %r < 37 -> f32 {
          %a = loop.load %x[%i, %r] : memref<6x39xf32>
          %b = loop.load %y[%j, %r] : memref<5x37xf32>
          %p = arith.mulf %a, %b : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %out[%i, %j] : memref<6x5xf32>
      }
    }
  }
  func.return %out : memref<6x5xf32>
}
// CHECK-LABEL: func.func @main(%x: memref<6x39xf32>, %y: memref<5x37xf32>)
// CHECK:         %x_pad = memref.alloc() : memref<6x40xf32>
// CHECK:         %y_pad = memref.alloc() : memref<5x64xf32>
// CHECK:         loop.kernel @k_slice ins(%x_pad, %y_pad : memref<6x40xf32>, memref<5x64xf32>)
// CHECK:           %acc = loop.for reduce %r < 37 -> f32 {
