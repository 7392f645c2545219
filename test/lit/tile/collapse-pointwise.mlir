// RUN: dpl-opt %s --split-input-file --pass-pipeline='collapse-pointwise{min-tail-bytes=1000}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='collapse-pointwise' | filecheck %s --check-prefix=TAIL
// collapse-pointwise runs a pointwise tile whose accesses all follow its row-major layout as one
// flat axis %f, each access at the row-major indices of %f in its buffer. Cases: silu(x) * y over
// 4 x 7 (collapsed: 28 elements, 4 divides them); an output with a leading dim of 1 (the same
// offsets, other indices); a bias broadcast along the last dim (read at %f mod 7); 5 x 7
// elements: split into 32 elements and a tail kernel of 3 ({kernel.tail_of}), or declined with
// min-tail-bytes=1000 (4 does not divide 35 and the tile moves fewer bytes); 35 elements
// of one axis likewise; declined: a fastest axis that 4 divides, a transposed read. A statistic
// per row (%stat[%a0]) keeps the first axis, the others flat; declined where they hold 35.

func.func @main(%x: memref<4x7xf32>, %y: memref<4x7xf32>) -> memref<4x7xf32> {
  %mul = memref.alloc() : memref<4x7xf32>
  tile.kernel @k_silu_mul ins(%y, %x : memref<4x7xf32>, memref<4x7xf32>) outs(%mul : memref<4x7xf32>) {
    %one = arith.constant 1.000000e+00 : f32
    tile.tile (%a0 : 4 = thread, %a1 : 7 = thread) {
      %a = loop.load %x[%a0, %a1] : memref<4x7xf32>
      %n = arith.negf %a : f32
      %e = math.exp %n : f32
      %d = arith.addf %one, %e : f32
      %s = arith.divf %a, %d : f32
      %b = loop.load %y[%a0, %a1] : memref<4x7xf32>
      %r = arith.mulf %s, %b : f32
      loop.store %r, %mul[%a0, %a1] : memref<4x7xf32>
    }
  }
  func.return %mul : memref<4x7xf32>
}
// CHECK-LABEL: tile.kernel @k_silu_mul
// CHECK:         tile.tile (%f : 28 = thread) {
// CHECK-NEXT:      %a = loop.load %x[%f floordiv 7, %f mod 7] : memref<4x7xf32>
// CHECK:           %b = loop.load %y[%f floordiv 7, %f mod 7] : memref<4x7xf32>
// CHECK:           loop.store %{{.*}}, %mul[%f floordiv 7, %f mod 7] : memref<4x7xf32>
// CHECK-NEXT:    }

// -----

func.func @main(%x: memref<2x3x6xf32>) -> memref<1x6x6xf32> {
  %out = memref.alloc() : memref<1x6x6xf32>
  tile.kernel @k_view ins(%x : memref<2x3x6xf32>) outs(%out : memref<1x6x6xf32>) {
    tile.tile (%a0 : 2 = thread, %a1 : 3 = thread, %a2 : 6 = thread) {
      %v = loop.load %x[%a0, %a1, %a2] : memref<2x3x6xf32>
      loop.store %v, %out[0, %a0 * 3 + %a1, %a2] : memref<1x6x6xf32>
    }
  }
  func.return %out : memref<1x6x6xf32>
}
// CHECK-LABEL: tile.kernel @k_view
// CHECK:         tile.tile (%f : 36 = thread) {
// CHECK-NEXT:      %v = loop.load %x[%f floordiv 18, %f floordiv 6 mod 3, %f mod 6] : memref<2x3x6xf32>
// CHECK-NEXT:      loop.store %v, %out[%f floordiv 36, %f floordiv 6 mod 6, %f mod 6] : memref<1x6x6xf32>
// CHECK-NEXT:    }

// -----

func.func @main(%x: memref<4x7xf32>, %bias: memref<7xf32>) -> memref<4x7xf32> {
  %out = memref.alloc() : memref<4x7xf32>
  tile.kernel @k_bias ins(%x, %bias : memref<4x7xf32>, memref<7xf32>) outs(%out : memref<4x7xf32>) {
    tile.tile (%a0 : 4 = thread, %a1 : 7 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<4x7xf32>
      %b = loop.load %bias[%a1] : memref<7xf32>
      %r = arith.addf %v, %b : f32
      loop.store %r, %out[%a0, %a1] : memref<4x7xf32>
    }
  }
  func.return %out : memref<4x7xf32>
}
// CHECK-LABEL: tile.kernel @k_bias
// CHECK:         tile.tile (%f : 28 = thread) {
// CHECK-NEXT:      %v = loop.load %x[%f floordiv 7, %f mod 7] : memref<4x7xf32>
// CHECK-NEXT:      %b = loop.load %bias[%f mod 7] : memref<7xf32>

// -----

func.func @main(%x: memref<3x8xf32>) -> memref<3x8xf32> {
  %out = memref.alloc() : memref<3x8xf32>
  tile.kernel @k_rows_of_8 ins(%x : memref<3x8xf32>) outs(%out : memref<3x8xf32>) {
    tile.tile (%a0 : 3 = thread, %a1 : 8 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<3x8xf32>
      loop.store %v, %out[%a0, %a1] : memref<3x8xf32>
    }
  }
  func.return %out : memref<3x8xf32>
}
// CHECK-LABEL: tile.kernel @k_rows_of_8
// CHECK:         tile.tile (%a0 : 3 = thread, %a1 : 8 = thread) {

// -----

func.func @main(%x: memref<5x7xf32>) -> memref<5x7xf32> {
  %out = memref.alloc() : memref<5x7xf32>
  tile.kernel @k_35 ins(%x : memref<5x7xf32>) outs(%out : memref<5x7xf32>) {
    tile.tile (%a0 : 5 = thread, %a1 : 7 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<5x7xf32>
      loop.store %v, %out[%a0, %a1] : memref<5x7xf32>
    }
  }
  func.return %out : memref<5x7xf32>
}
// CHECK-LABEL: tile.kernel @k_35
// CHECK:         tile.tile (%a0 : 5 = thread, %a1 : 7 = thread) {
// TAIL-LABEL:  tile.kernel @k_35
// TAIL:          tile.tile (%f : 32 = thread) {
// TAIL-NEXT:       %v = loop.load %x[%f floordiv 7, %f mod 7] : memref<5x7xf32>
// TAIL-NEXT:       loop.store %v, %out[%f floordiv 7, %f mod 7] : memref<5x7xf32>
// TAIL:        tile.kernel @k_35_tail
// TAIL:          tile.tile (%f_1 : 3 = thread) {
// TAIL-NEXT:       %v_1 = loop.load %x[(%f_1 + 32) floordiv 7, (%f_1 + 32) mod 7] : memref<5x7xf32>
// TAIL-NEXT:       loop.store %v_1, %out[(%f_1 + 32) floordiv 7, (%f_1 + 32) mod 7] : memref<5x7xf32>
// TAIL:          } {kernel.tail_of = @k_35}

// -----

func.func @main(%x: memref<35xf32>) -> memref<35xf32> {
  %out = memref.alloc() : memref<35xf32>
  tile.kernel @k_flat_35 ins(%x : memref<35xf32>) outs(%out : memref<35xf32>) {
    tile.tile (%a0 : 35 = thread) {
      %v = loop.load %x[%a0] : memref<35xf32>
      loop.store %v, %out[%a0] : memref<35xf32>
    }
  }
  func.return %out : memref<35xf32>
}
// CHECK-LABEL: tile.kernel @k_flat_35
// CHECK:         tile.tile (%a0 : 35 = thread) {
// CHECK-NOT:   @k_flat_35_tail
// TAIL-LABEL:  tile.kernel @k_flat_35
// TAIL:          tile.tile (%f : 32 = thread) {
// TAIL-NEXT:       %v = loop.load %x[%f] : memref<35xf32>
// TAIL-NEXT:       loop.store %v, %out[%f] : memref<35xf32>
// TAIL:        tile.kernel @k_flat_35_tail
// TAIL:          tile.tile (%f_1 : 3 = thread) {
// TAIL-NEXT:       %v_1 = loop.load %x[%f_1 + 32] : memref<35xf32>
// TAIL-NEXT:       loop.store %v_1, %out[%f_1 + 32] : memref<35xf32>
// TAIL:          } {kernel.tail_of = @k_flat_35}

// -----

func.func @main(%x: memref<7x4xf32>) -> memref<4x7xf32> {
  %out = memref.alloc() : memref<4x7xf32>
  tile.kernel @k_transpose ins(%x : memref<7x4xf32>) outs(%out : memref<4x7xf32>) {
    tile.tile (%a0 : 4 = thread, %a1 : 7 = thread) {
      %v = loop.load %x[%a1, %a0] : memref<7x4xf32>
      loop.store %v, %out[%a0, %a1] : memref<4x7xf32>
    }
  }
  func.return %out : memref<4x7xf32>
}
// CHECK-LABEL: tile.kernel @k_transpose
// CHECK:         tile.tile (%a0 : 4 = thread, %a1 : 7 = thread) {

// -----

// A scalar read everywhere (%s[0]) stays as it is.
func.func @main(%x: memref<4x7xf32>, %s: memref<1xf32>) -> memref<4x7xf32> {
  %out = memref.alloc() : memref<4x7xf32>
  tile.kernel @k_scale ins(%x, %s : memref<4x7xf32>, memref<1xf32>) outs(%out : memref<4x7xf32>) {
    tile.tile (%a0 : 4 = thread, %a1 : 7 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<4x7xf32>
      %c = loop.load %s[0] : memref<1xf32>
      %r = arith.mulf %v, %c : f32
      loop.store %r, %out[%a0, %a1] : memref<4x7xf32>
    }
  }
  func.return %out : memref<4x7xf32>
}
// CHECK-LABEL: tile.kernel @k_scale
// CHECK:         tile.tile (%f : 28 = thread) {
// CHECK-NEXT:      %v = loop.load %x[%f floordiv 7, %f mod 7] : memref<4x7xf32>
// CHECK-NEXT:      %c = loop.load %s[0] : memref<1xf32>

// -----

// A statistic per row (%stat[%a0], a norm's normalize kernel) rules out one flat axis; the axes
// after the first are one (4 x 7 = 28, a multiple of 4): %x at %a0 * 28 + %f, the weight
// broadcast over the first trailing axis at %f mod 7, %stat as it was.
func.func @main(%x: memref<3x4x7xf32>, %stat: memref<3xf32>, %w: memref<7xf32>) -> memref<3x4x7xf32> {
  %out = memref.alloc() : memref<3x4x7xf32>
  tile.kernel @k_row_stat ins(%x, %stat, %w : memref<3x4x7xf32>, memref<3xf32>, memref<7xf32>) outs(%out : memref<3x4x7xf32>) {
    tile.tile (%a0 : 3 = thread, %a1 : 4 = thread, %a2 : 7 = thread) {
      %s = loop.load %stat[%a0] : memref<3xf32>
      %v = loop.load %x[%a0, %a1, %a2] : memref<3x4x7xf32>
      %c = loop.load %w[%a2] : memref<7xf32>
      %m = arith.mulf %v, %s : f32
      %r = arith.mulf %m, %c : f32
      loop.store %r, %out[%a0, %a1, %a2] : memref<3x4x7xf32>
    }
  }
  func.return %out : memref<3x4x7xf32>
}
// CHECK-LABEL: tile.kernel @k_row_stat
// CHECK:         tile.tile (%a0 : 3 = thread, %f : 28 = thread) {
// CHECK-NEXT:      %s = loop.load %stat[%a0] : memref<3xf32>
// CHECK-NEXT:      %v = loop.load %x[(%a0 * 28 + %f) floordiv 28, (%a0 * 28 + %f) floordiv 7 mod 4, (%a0 * 28 + %f) mod 7] : memref<3x4x7xf32>
// CHECK-NEXT:      %c = loop.load %w[%f mod 7] : memref<7xf32>
// CHECK:           loop.store %{{.*}}, %out[(%a0 * 28 + %f) floordiv 28, (%a0 * 28 + %f) floordiv 7 mod 4, (%a0 * 28 + %f) mod 7] : memref<3x4x7xf32>

// -----

// Declined: the same with rows of 5 x 7 (35 trailing elements, not a multiple of 4).
func.func @main(%x: memref<3x5x7xf32>, %stat: memref<3xf32>) -> memref<3x5x7xf32> {
  %out = memref.alloc() : memref<3x5x7xf32>
  tile.kernel @k_row_stat_35 ins(%x, %stat : memref<3x5x7xf32>, memref<3xf32>) outs(%out : memref<3x5x7xf32>) {
    tile.tile (%a0 : 3 = thread, %a1 : 5 = thread, %a2 : 7 = thread) {
      %s = loop.load %stat[%a0] : memref<3xf32>
      %v = loop.load %x[%a0, %a1, %a2] : memref<3x5x7xf32>
      %r = arith.mulf %v, %s : f32
      loop.store %r, %out[%a0, %a1, %a2] : memref<3x5x7xf32>
    }
  }
  func.return %out : memref<3x5x7xf32>
}
// CHECK-LABEL: tile.kernel @k_row_stat_35
// CHECK:         tile.tile (%a0 : 3 = thread, %a1 : 5 = thread, %a2 : 7 = thread) {
