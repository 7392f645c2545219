// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,blockify-launch{block-size=8},cooperative-reduce,split-reduce{sms=4 blocks-per-sm=1 min-trips=2}' | filecheck %s
// The multiprocessors from the module's #kernel.target: 4 as above; 2 (two rows fill it: declined).
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{sms=4},tileify,blockify-launch{block-size=8},cooperative-reduce,split-reduce{blocks-per-sm=1 min-trips=2}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{sms=2},tileify,blockify-launch{block-size=8},cooperative-reduce,split-reduce{blocks-per-sm=1 min-trips=2}' | filecheck %s --check-prefix=SMS2
// split-reduce spreads the few long rows of a reduction over more blocks (here a GPU of 4
// blocks at once): block %rs of S reads the lane-sized runs %rs, %rs + S, ... and folds its
// partial into the output atomically; the output starts at the combiner's identity. Cases: the
// mean of 2 rows of 100 (a scaled sum; 2 -> 4 blocks); the max of 2 rows (atomic max); an
// RMSNorm of 2 rows (declined: the statistic is read again); 6 rows (declined: enough blocks);
// 3 rows (declined: split in two they would not all run at once).

func.func @main(%x: memref<2x100xf64>) -> memref<2xf64> {
  %y = memref.alloc() : memref<2xf64>
  loop.kernel @k_mean ins(%x : memref<2x100xf64>) outs(%y : memref<2xf64>) {
    %c = arith.constant 0.01 : f64
    loop.for free %a < 2 {
      %s = loop.for reduce %r < 100 -> f64 {
        %v = loop.load %x[%a, %r] : memref<2x100xf64>
        loop.accumulate add %v : f64
      }
      %m = arith.mulf %s, %c : f64
      loop.store %m, %y[%a] : memref<2xf64>
    }
  }
  func.return %y : memref<2xf64>
}
// CHECK-LABEL: tile.kernel @k_mean
// CHECK:         tile.tile (%rs : 2 = block, %lane : 8 = thread, %a : 2 = block) {
// CHECK-NEXT:      %start = affine.apply affine_map<(d0, d1) -> (((d0 * 8) + d1))> (%rs, %lane)
// CHECK-NEXT:      %s_part = tile.strided_for reduce %r = %start to 100 step 16 -> f64 {
// CHECK:           %s = tile.combine add %s_part across [%lane] warp_shuffle : f64
// CHECK-NEXT:      %m = arith.mulf %s, %c : f64
// CHECK-NEXT:      tile.atomic add %m, %y[%a] : memref<2xf64>
// CHECK:         } {tile.zero_init = [0 : i64]}
// SMS2-LABEL:  tile.kernel @k_mean
// SMS2:          tile.tile (%lane : 8 = thread, %a : 2 = block) {
// SMS2-NOT:      tile.atomic
// SMS2:          loop.store

// -----

func.func @main(%x: memref<2x100xf64>) -> memref<2xf64> {
  %y = memref.alloc() : memref<2xf64>
  loop.kernel @k_max ins(%x : memref<2x100xf64>) outs(%y : memref<2xf64>) {
    loop.for free %a < 2 {
      %s = loop.for reduce %r < 100 -> f64 {
        %v = loop.load %x[%a, %r] : memref<2x100xf64>
        loop.accumulate max %v : f64
      }
      loop.store %s, %y[%a] : memref<2xf64>
    }
  }
  func.return %y : memref<2xf64>
}
// CHECK-LABEL: tile.kernel @k_max
// CHECK:         tile.tile (%rs : 2 = block, %lane : 8 = thread, %a : 2 = block) {
// CHECK:           %s = tile.combine max %s_part across [%lane] warp_shuffle : f64
// CHECK-NEXT:      tile.atomic max %s, %y[%a] : memref<2xf64>

// -----

func.func @main(%x: memref<2x100xf64>) -> memref<2x100xf64> {
  %y = memref.alloc() : memref<2x100xf64>
  loop.kernel @k_rms ins(%x : memref<2x100xf64>) outs(%y : memref<2x100xf64>) {
    loop.for free %a < 2 {
      %s = loop.for reduce %r < 100 -> f64 {
        %v = loop.load %x[%a, %r] : memref<2x100xf64>
        %q = arith.mulf %v, %v : f64
        loop.accumulate add %q : f64
      }
      %inv = math.rsqrt %s : f64
      loop.for free %i < 100 {
        %v = loop.load %x[%a, %i] : memref<2x100xf64>
        %w = arith.mulf %v, %inv : f64
        loop.store %w, %y[%a, %i] : memref<2x100xf64>
      }
    }
  }
  func.return %y : memref<2x100xf64>
}
// CHECK-LABEL: tile.kernel @k_rms
// CHECK:         tile.tile (%lane : 8 = thread, %a : 2 = block) {

// -----

func.func @main(%x: memref<6x100xf64>) -> memref<6xf64> {
  %y = memref.alloc() : memref<6xf64>
  loop.kernel @k_six ins(%x : memref<6x100xf64>) outs(%y : memref<6xf64>) {
    loop.for free %a < 6 {
      %s = loop.for reduce %r < 100 -> f64 {
        %v = loop.load %x[%a, %r] : memref<6x100xf64>
        loop.accumulate add %v : f64
      }
      loop.store %s, %y[%a] : memref<6xf64>
    }
  }
  func.return %y : memref<6xf64>
}
// CHECK-LABEL: tile.kernel @k_six
// CHECK:         tile.tile (%lane : 8 = thread, %a : 6 = block) {

// -----

// Declined: 3 rows split in two are 6 blocks, 2 more than run at once; splitting takes only
// as many blocks as run at once (4 // 3 = 1), so the ceiling's second wave never happens.
func.func @main(%x: memref<3x100xf64>) -> memref<3xf64> {
  %y = memref.alloc() : memref<3xf64>
  loop.kernel @k_three ins(%x : memref<3x100xf64>) outs(%y : memref<3xf64>) {
    loop.for free %a < 3 {
      %s = loop.for reduce %r < 100 -> f64 {
        %v = loop.load %x[%a, %r] : memref<3x100xf64>
        loop.accumulate add %v : f64
      }
      loop.store %s, %y[%a] : memref<3xf64>
    }
  }
  func.return %y : memref<3xf64>
}
// CHECK-LABEL: tile.kernel @k_three
// CHECK:         tile.tile (%lane : 8 = thread, %a : 3 = block) {
// CHECK-NOT:     tile.atomic
