// RUN: dpl-opt %s --split-input-file --pass-pipeline='split-row-stats' | filecheck %s
// split-row-stats moves each reduce of a row kernel's body into a kernel of its own that stores
// one statistic per row; the rest reads it back. Cases: a LayerNorm-like row (mean, then the
// variance around it, then the normalised row: two statistic kernels, the second reading the
// first); a plain row sum (declined: nothing to split off); a kernel with no outer free loop,
// one row (x / max |x|); a sum of the whole tensor (declined).

func.func @main(%x: memref<3x10xf64>) -> memref<3x10xf64> {
  %y = memref.alloc() : memref<3x10xf64>
  loop.kernel @k_norm ins(%x : memref<3x10xf64>) outs(%y : memref<3x10xf64>) {
    %inv = arith.constant 0.1 : f64
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 10 -> f64 {
        %v = loop.load %x[%a, %r] : memref<3x10xf64>
        loop.accumulate add %v : f64
      }
      %m = arith.mulf %s, %inv : f64
      %q = loop.for reduce %r < 10 -> f64 {
        %v = loop.load %x[%a, %r] : memref<3x10xf64>
        %d = arith.subf %v, %m : f64
        %d2 = arith.mulf %d, %d : f64
        loop.accumulate add %d2 : f64
      }
      %var = arith.mulf %q, %inv : f64
      %rs = math.rsqrt %var : f64
      loop.for free %i < 10 {
        %v = loop.load %x[%a, %i] : memref<3x10xf64>
        %d = arith.subf %v, %m : f64
        %w = arith.mulf %d, %rs : f64
        loop.store %w, %y[%a, %i] : memref<3x10xf64>
      }
    }
  }
  func.return %y : memref<3x10xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         %norm_stat0 = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    loop.kernel @k_norm_stat0 ins(%x : memref<3x10xf64>) outs(%norm_stat0 : memref<3xf64>) {
// CHECK:             %s = loop.for reduce %r < 10 -> f64 {
// CHECK:             loop.store %s, %norm_stat0[%a] : memref<3xf64>
// CHECK:         %norm_stat1 = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    loop.kernel @k_norm_stat1 ins(%x, %norm_stat0 : memref<3x10xf64>, memref<3xf64>) outs(%norm_stat1 : memref<3xf64>) {
// CHECK:             %s{{.*}} = loop.load %norm_stat0[%a{{.*}}] : memref<3xf64>
// CHECK:             %q = loop.for reduce
// CHECK:             loop.store %q, %norm_stat1[%a{{.*}}] : memref<3xf64>
// CHECK:         loop.kernel @k_norm ins(%x, %norm_stat0, %norm_stat1 : memref<3x10xf64>, memref<3xf64>, memref<3xf64>) outs(%y : memref<3x10xf64>) {
// CHECK-NOT:         loop.for reduce
// CHECK:             loop.for free %i

// -----

func.func @main(%x: memref<3x10xf64>) -> memref<3xf64> {
  %y = memref.alloc() : memref<3xf64>
  loop.kernel @k_sum ins(%x : memref<3x10xf64>) outs(%y : memref<3xf64>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 10 -> f64 {
        %v = loop.load %x[%a, %r] : memref<3x10xf64>
        loop.accumulate add %v : f64
      }
      loop.store %s, %y[%a] : memref<3xf64>
    }
  }
  func.return %y : memref<3xf64>
}
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %y = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    loop.kernel @k_sum ins(%x : memref<3x10xf64>) outs(%y : memref<3xf64>) {

// -----

// No outer free loop: the whole tensor is the row (x / max |x|); its statistic goes to a buffer
// of one element.

func.func @main(%x: memref<3x10xf64>) -> memref<3x10xf64> {
  %y = memref.alloc() : memref<3x10xf64>
  loop.kernel @k_div ins(%x : memref<3x10xf64>) outs(%y : memref<3x10xf64>) {
    %m = loop.for reduce %r0 < 3 -> f64 {
      %mr = loop.for reduce %r1 < 10 -> f64 {
        %v = loop.load %x[%r0, %r1] : memref<3x10xf64>
        %a = math.absf %v : f64
        loop.accumulate max %a : f64
      }
      loop.accumulate max %mr : f64
    }
    loop.for free %i < 3 {
      loop.for free %j < 10 {
        %v = loop.load %x[%i, %j] : memref<3x10xf64>
        %w = arith.divf %v, %m : f64
        loop.store %w, %y[%i, %j] : memref<3x10xf64>
      }
    }
  }
  func.return %y : memref<3x10xf64>
}
// CHECK-LABEL: func.func @main
// CHECK:         %div_stat0 = memref.alloc() : memref<1xf64>
// CHECK-NEXT:    loop.kernel @k_div_stat0 ins(%x : memref<3x10xf64>) outs(%div_stat0 : memref<1xf64>) {
// CHECK-NEXT:      %m = loop.for reduce %r0 < 3 -> f64 {
// CHECK:           loop.store %m, %div_stat0[0] : memref<1xf64>
// CHECK-NEXT:    }
// CHECK:         loop.kernel @k_div ins(%x, %div_stat0 : memref<3x10xf64>, memref<1xf64>) outs(%y : memref<3x10xf64>) {
// CHECK-NEXT:      %m{{.*}} = loop.load %div_stat0[0] : memref<1xf64>
// CHECK-NOT:       loop.for reduce
// CHECK:           loop.for free %i < 3 {

// -----

// No outer free loop and a plain reduction of the whole tensor (declined).

func.func @main(%x: memref<3x10xf64>) -> memref<1xf64> {
  %y = memref.alloc() : memref<1xf64>
  loop.kernel @k_sum ins(%x : memref<3x10xf64>) outs(%y : memref<1xf64>) {
    %s = loop.for reduce %r < 30 -> f64 {
      %v = loop.load %x[%r floordiv 10, %r mod 10] : memref<3x10xf64>
      loop.accumulate add %v : f64
    }
    loop.store %s, %y[0] : memref<1xf64>
  }
  func.return %y : memref<1xf64>
}
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %y = memref.alloc() : memref<1xf64>
// CHECK-NEXT:    loop.kernel @k_sum ins(%x : memref<3x10xf64>) outs(%y : memref<1xf64>) {
// CHECK-NEXT:      %s = loop.for reduce %r < 30 -> f64 {
