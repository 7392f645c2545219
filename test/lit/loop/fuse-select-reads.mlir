// RUN: dpl-opt %s --pass-pipeline='fuse-loops' | filecheck %s
// RUN: dpl-opt %s --pass-pipeline='fuse-loops{max-select-reads=2}' | filecheck %s --check-prefix=SHORT
// A padded input's select (a comparison of loop indices) fuses into a reader that reads each
// padded value at most max-select-reads (16) times: @k_win, a window sum of 3, reads the 16
// values 36 times (2.25 each), so by default it reads %x and selects in its reduce body. With
// max-select-reads=2 it declines: the padded copy stays its own pass over memory and @k_win
// reads it (the select would run at each of the reads).

func.func @main(%x: memref<2x6xf64>) -> memref<2x6xf64> {
  %p = memref.alloc() : memref<2x8xf64>
  loop.kernel @k_padded ins(%x : memref<2x6xf64>) outs(%p : memref<2x8xf64>) {
    %lo = arith.constant 1 : index
    %hi = arith.constant 7 : index
    %zero = arith.constant 0.0 : f64
    loop.for free %n < 2 {
      loop.for free %o < 8 {
        %v = loop.load %x[%n, (%o + 5) mod 6] : memref<2x6xf64>
        %a = arith.cmpi uge, %o, %lo : index
        %b = arith.cmpi ult, %o, %hi : index
        %in = arith.andi %a, %b : i1
        %s = arith.select %in, %v, %zero : f64
        loop.store %s, %p[%n, %o] : memref<2x8xf64>
      }
    }
  }
  %z = memref.alloc() : memref<2x6xf64>
  loop.kernel @k_win ins(%p : memref<2x8xf64>) outs(%z : memref<2x6xf64>) {
    loop.for free %n < 2 {
      loop.for free %o < 6 {
        %acc = loop.for reduce %k < 3 -> f64 {
          %u = loop.load %p[%n, %o + %k] : memref<2x8xf64>
          loop.accumulate add %u : f64
        }
        loop.store %acc, %z[%n, %o] : memref<2x6xf64>
      }
    }
  }
  func.return %z : memref<2x6xf64>
}
// CHECK-LABEL: func.func @main
// CHECK-NOT:     loop.kernel @k_padded
// CHECK:         loop.kernel @k_win ins(%x : memref<2x6xf64>) outs(%z : memref<2x6xf64>)
// CHECK:           loop.for reduce
// CHECK:             arith.cmpi uge
// CHECK:             arith.select

// SHORT-LABEL: func.func @main
// SHORT:         loop.kernel @k_padded ins(%x : memref<2x6xf64>) outs(%p : memref<2x8xf64>)
// SHORT:         loop.kernel @k_win ins(%p : memref<2x8xf64>) outs(%z : memref<2x6xf64>)
// SHORT-NOT:       arith.select
