// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// A row kernel whose row is read more than once and is longer than 48 KB (a softmax over 16384 f64)
// but fits a block's shared memory (227 KB on sm_90, less 4 KB for the combines) is staged
// whole, in dynamic shared memory, by blocks of 1024 threads (one or two such blocks fill an
// SM): the row is read from memory once instead of once per pass. A row past that (65536:
// 512 KB) is read from memory by every pass; a row of 48 KB or less keeps blocks of 256.

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
// CHECK:         tile.schedule = "{{.*}}blockify-launch{sms=132 block-size=1024}{{.*}}stage-inputs{smem-bytes=228352}

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
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 2048 = block) {
// CHECK-NOT:       tile.stage
// CHECK:         tile.schedule = "collapse-loops,tileify,pad-columns,blockify-launch{sms=132},cooperative-reduce,split-reduce{sms=132},stage-inputs,hold-rows,mark-unroll{max-extent=24}"

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
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 8 = block) {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [%a0, 0] slab [r0 : 6144 at 1]
// CHECK:         tile.schedule = "collapse-loops,tileify,pad-columns,blockify-launch{sms=132},cooperative-reduce,split-reduce{sms=132},stage-inputs,hold-rows,mark-unroll{max-extent=24}"
