// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,blockify-launch{block-size=8},cooperative-reduce,split-reduce{sms=4 blocks-per-sm=1 min-trips=2}' | filecheck %s
// Several sums into one scalar (losses added: a mean of x plus half the sum of y * y) split like
// one: each reduce strided over the same 4 blocks, each block adding its scaled sum of partials
// atomically (the stored value is linear in the partials). Declined: a sum plus 1 (each block
// would add the 1), and a sum plus a max (not all sums).

func.func @main(%x: memref<100xf64>, %y: memref<60xf64>) -> memref<f64> {
  %z = memref.alloc() : memref<f64>
  loop.kernel @k_losses ins(%x, %y : memref<100xf64>, memref<60xf64>) outs(%z : memref<f64>) {
    %c = arith.constant 100.0 : f64
    %h = arith.constant 0.5 : f64
    %s = loop.for reduce %r < 100 -> f64 {
      %v = loop.load %x[%r] : memref<100xf64>
      loop.accumulate add %v : f64
    }
    %t = loop.for reduce %q < 60 -> f64 {
      %w = loop.load %y[%q] : memref<60xf64>
      %ww = arith.mulf %w, %w : f64
      loop.accumulate add %ww : f64
    }
    %m = arith.divf %s, %c : f64
    %u = arith.mulf %h, %t : f64
    %l = arith.addf %m, %u : f64
    loop.store %l, %z[] : memref<f64>
  }
  func.return %z : memref<f64>
}
// CHECK-LABEL: tile.kernel @k_losses
// CHECK:         tile.tile (%rs : 4 = block, %lane : 8 = thread, %one : 1 = block) {
// CHECK:           %s_part = tile.strided_for reduce %r = %start to 100 step 32 -> f64 {
// CHECK:           %t_part = tile.strided_for reduce %q = %start_1 to 60 step 32 -> f64 {
// CHECK:           %l = arith.addf %m, %u : f64
// CHECK-NEXT:      tile.atomic add %l, %z[] : memref<f64>
// CHECK:         } {tile.zero_init = [0 : i64]}

// -----

func.func @main(%x: memref<100xf64>, %y: memref<60xf64>) -> memref<f64> {
  %z = memref.alloc() : memref<f64>
  loop.kernel @k_plus_one ins(%x, %y : memref<100xf64>, memref<60xf64>) outs(%z : memref<f64>) {
    %one = arith.constant 1.0 : f64
    %s = loop.for reduce %r < 100 -> f64 {
      %v = loop.load %x[%r] : memref<100xf64>
      loop.accumulate add %v : f64
    }
    %t = loop.for reduce %q < 60 -> f64 {
      %w = loop.load %y[%q] : memref<60xf64>
      loop.accumulate add %w : f64
    }
    %a = arith.addf %s, %t : f64
    %b = arith.addf %a, %one : f64
    loop.store %b, %z[] : memref<f64>
  }
  func.return %z : memref<f64>
}
// CHECK-LABEL: tile.kernel @k_plus_one
// CHECK-NOT:     tile.atomic
// CHECK:         loop.store %b

// -----

func.func @main(%x: memref<100xf64>, %y: memref<60xf64>) -> memref<f64> {
  %z = memref.alloc() : memref<f64>
  loop.kernel @k_sum_max ins(%x, %y : memref<100xf64>, memref<60xf64>) outs(%z : memref<f64>) {
    %s = loop.for reduce %r < 100 -> f64 {
      %v = loop.load %x[%r] : memref<100xf64>
      loop.accumulate add %v : f64
    }
    %t = loop.for reduce %q < 60 -> f64 {
      %w = loop.load %y[%q] : memref<60xf64>
      loop.accumulate max %w : f64
    }
    %a = arith.addf %s, %t : f64
    loop.store %a, %z[] : memref<f64>
  }
  func.return %z : memref<f64>
}
// CHECK-LABEL: tile.kernel @k_sum_max
// CHECK-NOT:     tile.atomic
// CHECK:         loop.store %a
