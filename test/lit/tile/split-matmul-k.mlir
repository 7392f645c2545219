// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-matmul-k{splits=2}' | filecheck %s
// split-matmul-k: the K-outer loop of a matmul whose epilogue stores the accumulator is spread
// over a new block axis %ks; each block adds its partial into the output with tile.atomic, and the
// kernel asks for that output to be zeroed before the launch ({tile.zero_init = [0]}). With 2
// K-outer trips and 2 splits the loop disappears (%ko -> %ks). An additive epilogue (a bias add;
// a residual added to it, operands in either order) stays, but only split 0 adds its terms: the
// atomic adds `select(%ks == 0, acc + terms, acc)`. Declined: a relu or a multiply epilogue
// (neither distributes over partial sums); a K reduce that is not chunked.

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_matmul ins(%x, %w : memref<8x64xf64>, memref<64x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<8x64xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<64x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_matmul
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:        %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ks * 32 + %ko * 16 + %ki] : memref<8x64xf64>
// CHECK-NEXT:          %b = loop.load %w[%ks * 32 + %ko * 16 + %ki, %j] : memref<64x8xf64>
// CHECK:           loop.accumulate add %acc_k : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      tile.atomic add %acc, %out[%i, %j] : memref<8x8xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<1x4x32xf64>, %wt: memref<8x32xf64>) -> memref<1x4x8xf64> {
  %out = memref.alloc() : memref<1x4x8xf64>
  tile.kernel @k_proj ins(%x, %wt : memref<1x4x32xf64>, memref<8x32xf64>) outs(%out : memref<1x4x8xf64>) {
    tile.tile (%a1 : 4 = thread, %a2 : 8 = thread) {
      %acc = loop.for reduce %ko < 2 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %in = loop.load %x[0, %a1, %ko * 16 + %ki] : memref<1x4x32xf64>
          %in_1 = loop.load %wt[%a2, %ko * 16 + %ki] : memref<8x32xf64>
          %p = arith.mulf %in, %in_1 : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      loop.store %acc, %out[0, %a1, %a2] : memref<1x4x8xf64>
    }
  }
  func.return %out : memref<1x4x8xf64>
}

// CHECK-LABEL: tile.kernel @k_proj
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %a1 : 4 = thread, %a2 : 8 = thread) {
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK-NEXT:        %in = loop.load %x[0, %a1, %ks * 16 + %ki] : memref<1x4x32xf64>
// CHECK-NEXT:        %in_1 = loop.load %wt[%a2, %ks * 16 + %ki] : memref<8x32xf64>
// CHECK:         tile.atomic add %acc_k, %out[0, %a1, %a2] : memref<1x4x8xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_relu ins(%x, %w : memref<8x64xf64>, memref<64x8xf64>) outs(%out : memref<8x8xf64>) {
    %zero = arith.constant 0.000000e+00 : f64
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<8x64xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<64x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      %r = arith.maximumf %acc, %zero : f64
      loop.store %r, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_relu
// CHECK:         tile.tile (%i : 8 = thread, %j : 8 = thread) {
// CHECK:           loop.store %r, %out[%i, %j] : memref<8x8xf64>
// CHECK-NOT:   tile.atomic

// -----

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_flat ins(%x, %w : memref<8x64xf64>, memref<64x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %k < 64 -> f64 {
        %a = loop.load %x[%i, %k] : memref<8x64xf64>
        %b = loop.load %w[%k, %j] : memref<64x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_flat
// CHECK-NEXT:    tile.tile (%i : 8 = thread, %j : 8 = thread) {
// CHECK-NOT:   tile.atomic

// -----

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>, %bias: memref<8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_bias ins(%x, %w, %bias : memref<8x64xf64>, memref<64x8xf64>, memref<8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<8x64xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<64x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      %bv = loop.load %bias[%j] : memref<8xf64>
      %v = arith.addf %acc, %bv : f64
      loop.store %v, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_bias
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 2 -> f64 {
// CHECK:           %bv = loop.load %bias[%j] : memref<8xf64>
// CHECK-NEXT:      %v = arith.addf %acc, %bv : f64
// CHECK-NEXT:      %c0 = arith.constant 0 : index
// CHECK-NEXT:      %first = arith.cmpi eq, %ks, %c0 : index
// CHECK-NEXT:      %part = arith.select %first, %v, %acc : f64
// CHECK-NEXT:      tile.atomic add %part, %out[%i, %j] : memref<8x8xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<1x4x32xf64>, %wt: memref<8x32xf64>, %bias: memref<8xf64>, %res: memref<1x4x8xf64>) -> memref<1x4x8xf64> {
  %out = memref.alloc() : memref<1x4x8xf64>
  tile.kernel @k_residual ins(%x, %wt, %bias, %res : memref<1x4x32xf64>, memref<8x32xf64>, memref<8xf64>, memref<1x4x8xf64>) outs(%out : memref<1x4x8xf64>) {
    tile.tile (%a1 : 4 = thread, %a2 : 8 = thread) {
      %acc = loop.for reduce %ko < 2 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %in = loop.load %x[0, %a1, %ko * 16 + %ki] : memref<1x4x32xf64>
          %in_1 = loop.load %wt[%a2, %ko * 16 + %ki] : memref<8x32xf64>
          %p = arith.mulf %in, %in_1 : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      %bv = loop.load %bias[%a2] : memref<8xf64>
      %v = arith.addf %bv, %acc : f64
      %r = loop.load %res[0, %a1, %a2] : memref<1x4x8xf64>
      %s = arith.addf %r, %v : f64
      loop.store %s, %out[0, %a1, %a2] : memref<1x4x8xf64>
    }
  }
  func.return %out : memref<1x4x8xf64>
}

// CHECK-LABEL: tile.kernel @k_residual
// CHECK-NEXT:    tile.tile (%ks : 2 = block, %a1 : 4 = thread, %a2 : 8 = thread) {
// CHECK-NEXT:      %acc_k = loop.for reduce %ki < 16 -> f64 {
// CHECK:           %v = arith.addf %bv, %acc_k : f64
// CHECK-NEXT:      %r = loop.load %res[0, %a1, %a2] : memref<1x4x8xf64>
// CHECK-NEXT:      %s = arith.addf %r, %v : f64
// CHECK-NEXT:      %c0 = arith.constant 0 : index
// CHECK-NEXT:      %first = arith.cmpi eq, %ks, %c0 : index
// CHECK-NEXT:      %part = arith.select %first, %s, %acc_k : f64
// CHECK-NEXT:      tile.atomic add %part, %out[0, %a1, %a2] : memref<1x4x8xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>, %scale: memref<8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_mul ins(%x, %w, %scale : memref<8x64xf64>, memref<64x8xf64>, memref<8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %ko < 4 -> f64 {
        %acc_k = loop.for reduce %ki < 16 -> f64 {
          %a = loop.load %x[%i, %ko * 16 + %ki] : memref<8x64xf64>
          %b = loop.load %w[%ko * 16 + %ki, %j] : memref<64x8xf64>
          %p = arith.mulf %a, %b : f64
          loop.accumulate add %p : f64
        }
        loop.accumulate add %acc_k : f64
      }
      %sv = loop.load %scale[%j] : memref<8xf64>
      %v = arith.mulf %acc, %sv : f64
      loop.store %v, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_mul
// CHECK-NEXT:    tile.tile (%i : 8 = thread, %j : 8 = thread) {
// CHECK:           %v = arith.mulf %acc, %sv : f64
// CHECK-NEXT:      loop.store %v, %out[%i, %j] : memref<8x8xf64>
// CHECK-NOT:   tile.atomic
