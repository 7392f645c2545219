// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// A row kernel whose row is read more than once and is longer than 48 KB (a softmax over 16384 f64)
// but fits a block's shared memory (227 KB on sm_90, less 4 KB for the combines) runs blocks of
// 1024 threads; with fewer rows than 4 an SM (8 here) the row is staged whole, in dynamic shared
// memory (one or two such blocks fill an SM): read from memory once instead of once per pass.
// Many such rows (16 of 16384 f32 on 4 SMs: 16 a thread) are held in registers instead. A row past
// shared memory (65536: 512 KB, 64 a thread) is read from memory by every pass; a row of 48 KB
// or less in few rows is staged by the fewest lanes from 256 that pass over it in 12 trips (6144:
// 512 lanes; 3000: 256).

func.func @main(%x: memref<8x16384xf64>) -> memref<8x16384xf64> {
  %y = memref.alloc() : memref<8x16384xf64>
  loop.kernel @k_softmax ins(%x : memref<8x16384xf64>) outs(%y : memref<8x16384xf64>) {
    loop.for free %a0 < 8 {
      %m = loop.for reduce %r0 < 16384 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<8x16384xf64>
        loop.accumulate max %v : f64
      }
      %s = loop.for reduce %r1 < 16384 -> f64 {
        %v1 = loop.load %x[%a0, %r1] : memref<8x16384xf64>
        %d = arith.subf %v1, %m : f64
        %e = math.exp %d : f64
        loop.accumulate add %e : f64
      }
      loop.for free %a1 < 16384 {
        %v2 = loop.load %x[%a0, %a1] : memref<8x16384xf64>
        %d2 = arith.subf %v2, %m : f64
        %e2 = math.exp %d2 : f64
        %q = arith.divf %e2, %s : f64
        loop.store %q, %y[%a0, %a1] : memref<8x16384xf64>
      }
    }
  }
  func.return %y : memref<8x16384xf64>
}
// CHECK-LABEL: tile.kernel @k_softmax
// CHECK:         tile.tile (%lane : 1024 = thread, %a0 : 8 = block) {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [%a0, 0] slab [r0 : 16384 at 1]
// CHECK:         tile.schedule = "{{.*}}blockify-launch{sms=132 block-size=1024 row-trips=0}{{.*}}hold-rows{max-trips=0},stage-inputs{smem-bytes=228352}

// -----

func.func @main(%x: memref<2048x65536xf64>) -> memref<2048x65536xf64> {
  %y = memref.alloc() : memref<2048x65536xf64>
  loop.kernel @k_too_long ins(%x : memref<2048x65536xf64>) outs(%y : memref<2048x65536xf64>) {
    loop.for free %a0 < 2048 {
      %s = loop.for reduce %r0 < 65536 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<2048x65536xf64>
        loop.accumulate add %v : f64
      }
      loop.for free %a1 < 65536 {
        %v2 = loop.load %x[%a0, %a1] : memref<2048x65536xf64>
        %q = arith.divf %v2, %s : f64
        loop.store %q, %y[%a0, %a1] : memref<2048x65536xf64>
      }
    }
  }
  func.return %y : memref<2048x65536xf64>
}
// CHECK-LABEL: tile.kernel @k_too_long
// CHECK:         tile.tile (%lane : 1024 = thread, %a0 : 2048 = block) {
// CHECK-NOT:       tile.stage
// CHECK-NOT:       tile.hold
// CHECK:         tile.schedule = "collapse-loops,merge-dims,tileify,merge-columns{sms=132},pad-columns,blockify-launch{sms=132 row-trips=12},cooperative-reduce,split-reduce{sms=132},hold-rows,stage-inputs,mark-unroll{max-extent=24}"

// -----

func.func @main(%x: memref<8x6144xf64>) -> memref<8x6144xf64> {
  %y = memref.alloc() : memref<8x6144xf64>
  loop.kernel @k_fits ins(%x : memref<8x6144xf64>) outs(%y : memref<8x6144xf64>) {
    loop.for free %a0 < 8 {
      %s = loop.for reduce %r0 < 6144 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<8x6144xf64>
        loop.accumulate add %v : f64
      }
      loop.for free %a1 < 6144 {
        %v2 = loop.load %x[%a0, %a1] : memref<8x6144xf64>
        %q = arith.divf %v2, %s : f64
        loop.store %q, %y[%a0, %a1] : memref<8x6144xf64>
      }
    }
  }
  func.return %y : memref<8x6144xf64>
}
// CHECK-LABEL: tile.kernel @k_fits
// CHECK:         tile.tile (%lane : 512 = thread, %a0 : 8 = block) {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [%a0, 0] slab [r0 : 6144 at 1]
// CHECK:         tile.schedule = "collapse-loops,merge-dims,tileify,merge-columns{sms=132},pad-columns,blockify-launch{sms=132 block-size=512 row-trips=0},cooperative-reduce,split-reduce{sms=132},hold-rows{max-trips=0},stage-inputs,mark-unroll{max-extent=24}"

// -----

func.func @main(%x: memref<8x3000xf64>) -> memref<8x3000xf64> {
  %y = memref.alloc() : memref<8x3000xf64>
  loop.kernel @k_short ins(%x : memref<8x3000xf64>) outs(%y : memref<8x3000xf64>) {
    loop.for free %a0 < 8 {
      %s = loop.for reduce %r0 < 3000 -> f64 {
        %v = loop.load %x[%a0, %r0] : memref<8x3000xf64>
        loop.accumulate add %v : f64
      }
      loop.for free %a1 < 3000 {
        %v2 = loop.load %x[%a0, %a1] : memref<8x3000xf64>
        %q = arith.divf %v2, %s : f64
        loop.store %q, %y[%a0, %a1] : memref<8x3000xf64>
      }
    }
  }
  func.return %y : memref<8x3000xf64>
}
// CHECK-LABEL: tile.kernel @k_short
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 8 = block) {
// CHECK:         tile.schedule = "collapse-loops,merge-dims,tileify,merge-columns{sms=132},pad-columns,blockify-launch{sms=132 row-trips=0},cooperative-reduce,split-reduce{sms=132},hold-rows{max-trips=0},stage-inputs,mark-unroll{max-extent=24}"

// -----

// (the module's GPU has 4 SMs, so 16 rows are 4 an SM)
builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 4, smem = 232448>} {
  func.func @main(%x: memref<16x16384xf32>) -> memref<16x16384xf32> {
    %y = memref.alloc() : memref<16x16384xf32>
    loop.kernel @k_held ins(%x : memref<16x16384xf32>) outs(%y : memref<16x16384xf32>) {
      loop.for free %a0 < 16 {
        %s = loop.for reduce %r0 < 16384 -> f32 {
          %v = loop.load %x[%a0, %r0] : memref<16x16384xf32>
          loop.accumulate max %v : f32
        }
        loop.for free %a1 < 16384 {
          %v2 = loop.load %x[%a0, %a1] : memref<16x16384xf32>
          %q = arith.subf %v2, %s : f32
          loop.store %q, %y[%a0, %a1] : memref<16x16384xf32>
        }
      }
    }
    func.return %y : memref<16x16384xf32>
  }
}
// CHECK-LABEL: tile.kernel @k_held
// CHECK:         tile.tile (%lane : 1024 = thread, %a0 : 16 = block) {
// CHECK-NEXT:      %x_reg = tile.hold %x[%a0, %lane] step 1024 : memref<16x16384xf32> -> memref<16xf32>
// CHECK-NOT:       tile.stage
// CHECK:         tile.schedule = "{{.*}}blockify-launch{sms=4 block-size=1024 row-trips=12}{{.*}}hold-rows,stage-inputs{smem-bytes=228352}
