// RUN: dpl-opt %s --split-input-file --pass-pipeline='schedule' | filecheck %s
// The row pipeline on a GPU of 4 SMs (the module's #kernel.target), rows read twice: 16 rows
// (4 an SM) of 1117 f32 take the lanes that pass over a row in at most 12 trips (128: 9 trips,
// the last part past the row) and hold it in registers, not staged; f32 rows of 2048..8191 that
// are a multiple of 4 (`staged_row`: float4 fills) keep 256 lanes and are staged, hold-rows told
// to hold nothing; so are 15 rows (fewer than 4 an SM, `few_rows`); f64 rows of 2048 are held
// (256 lanes, 8 trips: 16 registers).

builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 4, smem = 232448>} {
  func.func @main(%x: memref<16x1117xf32>) -> memref<16x1117xf32> {
    %y = memref.alloc() : memref<16x1117xf32>
    loop.kernel @k_odd ins(%x : memref<16x1117xf32>) outs(%y : memref<16x1117xf32>) {
      loop.for free %a0 < 16 {
        %s = loop.for reduce %r0 < 1117 -> f32 {
          %v = loop.load %x[%a0, %r0] : memref<16x1117xf32>
          loop.accumulate max %v : f32
        }
        loop.for free %a1 < 1117 {
          %v2 = loop.load %x[%a0, %a1] : memref<16x1117xf32>
          %q = arith.subf %v2, %s : f32
          loop.store %q, %y[%a0, %a1] : memref<16x1117xf32>
        }
      }
    }
    func.return %y : memref<16x1117xf32>
  }
}
// CHECK-LABEL: tile.kernel @k_odd
// CHECK:         tile.tile (%lane : 128 = thread, %a0 : 16 = block) {
// CHECK-NEXT:      %x_reg = tile.hold %x[%a0, %lane] step 128 {tile.masked = [1 : i64]} : memref<16x1117xf32> -> memref<9xf32>
// CHECK-NOT:       tile.stage
// CHECK:         tile.schedule = "collapse-loops,merge-dims,tileify,merge-columns{sms=4},pad-columns,blockify-launch{sms=4 row-trips=12},cooperative-reduce,split-reduce{sms=4},hold-rows,stage-inputs,mark-unroll{max-extent=24}"

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 4, smem = 232448>} {
  func.func @main(%x: memref<16x2048xf32>) -> memref<16x2048xf32> {
    %y = memref.alloc() : memref<16x2048xf32>
    loop.kernel @k_float4 ins(%x : memref<16x2048xf32>) outs(%y : memref<16x2048xf32>) {
      loop.for free %a0 < 16 {
        %s = loop.for reduce %r0 < 2048 -> f32 {
          %v = loop.load %x[%a0, %r0] : memref<16x2048xf32>
          loop.accumulate max %v : f32
        }
        loop.for free %a1 < 2048 {
          %v2 = loop.load %x[%a0, %a1] : memref<16x2048xf32>
          %q = arith.subf %v2, %s : f32
          loop.store %q, %y[%a0, %a1] : memref<16x2048xf32>
        }
      }
    }
    func.return %y : memref<16x2048xf32>
  }
}
// CHECK-LABEL: tile.kernel @k_float4
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 16 = block) {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [%a0, 0] slab [r0 : 2048 at 1]
// CHECK-NOT:       tile.hold
// CHECK:         tile.schedule = "collapse-loops,merge-dims,tileify,merge-columns{sms=4},pad-columns,blockify-launch{sms=4 row-trips=0},cooperative-reduce,split-reduce{sms=4},hold-rows{max-trips=0},stage-inputs,mark-unroll{max-extent=24}"

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 4, smem = 232448>} {
  func.func @main(%x: memref<15x1117xf32>) -> memref<15x1117xf32> {
    %y = memref.alloc() : memref<15x1117xf32>
    loop.kernel @k_few ins(%x : memref<15x1117xf32>) outs(%y : memref<15x1117xf32>) {
      loop.for free %a0 < 15 {
        %s = loop.for reduce %r0 < 1117 -> f32 {
          %v = loop.load %x[%a0, %r0] : memref<15x1117xf32>
          loop.accumulate max %v : f32
        }
        loop.for free %a1 < 1117 {
          %v2 = loop.load %x[%a0, %a1] : memref<15x1117xf32>
          %q = arith.subf %v2, %s : f32
          loop.store %q, %y[%a0, %a1] : memref<15x1117xf32>
        }
      }
    }
    func.return %y : memref<15x1117xf32>
  }
}
// CHECK-LABEL: tile.kernel @k_few
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 15 = block) {
// CHECK-NEXT:      %x_smem = tile.stage %x origin [%a0, 0] slab [r0 : 1117 at 1]
// CHECK-NOT:       tile.hold
// CHECK:         tile.schedule = "{{.*}}blockify-launch{sms=4 row-trips=0}{{.*}}hold-rows{max-trips=0},stage-inputs,

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 4, smem = 232448>} {
  func.func @main(%x: memref<16x2048xf64>) -> memref<16x2048xf64> {
    %y = memref.alloc() : memref<16x2048xf64>
    loop.kernel @k_f64 ins(%x : memref<16x2048xf64>) outs(%y : memref<16x2048xf64>) {
      loop.for free %a0 < 16 {
        %s = loop.for reduce %r0 < 2048 -> f64 {
          %v = loop.load %x[%a0, %r0] : memref<16x2048xf64>
          loop.accumulate max %v : f64
        }
        loop.for free %a1 < 2048 {
          %v2 = loop.load %x[%a0, %a1] : memref<16x2048xf64>
          %q = arith.subf %v2, %s : f64
          loop.store %q, %y[%a0, %a1] : memref<16x2048xf64>
        }
      }
    }
    func.return %y : memref<16x2048xf64>
  }
}
// CHECK-LABEL: tile.kernel @k_f64
// CHECK:         tile.tile (%lane : 256 = thread, %a0 : 16 = block) {
// CHECK-NEXT:      %x_reg = tile.hold %x[%a0, %lane] step 256 : memref<16x2048xf64> -> memref<8xf64>
