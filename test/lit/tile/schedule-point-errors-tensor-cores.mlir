// RUN: not dpl-opt %s -p schedule 2>&1 | filecheck %s --check-prefix=DECLINED
// RUN: not dpl-opt %s -p 'schedule{precision=ieee}' 2>&1 | filecheck %s --check-prefix=IEEE
// A tensor-core point tensorize-matmul declines (an f64 matmul: the tensor cores take f32) is an
// error, not a silent SIMT fallback; so is a tensor-core point under precision ieee.
func.func @main(%x: memref<64x128xf64>, %w: memref<64x128xf64>) -> memref<64x64xf64> {
  %y = memref.alloc() : memref<64x64xf64>
  loop.kernel @k_tc_bad ins(%x, %w : memref<64x128xf64>, memref<64x128xf64>) outs(%y : memref<64x64xf64>) {
    loop.for free %a0 < 64 {
      loop.for free %a1 < 64 {
        %acc = loop.for reduce %r0 < 128 -> f64 {
          %in = loop.load %x[%a0, %r0] : memref<64x128xf64>
          %in_1 = loop.load %w[%a1, %r0] : memref<64x128xf64>
          %in_2 = arith.mulf %in, %in_1 : f64
          loop.accumulate add %in_2 : f64
        }
        loop.store %acc, %y[%a0, %a1] : memref<64x64xf64>
      }
    }
  } {tile.point = {tensor_cores = true, bm = 256 : i64}}
  func.return %y : memref<64x64xf64>
}
// DECLINED: error: schedule: @k_tc_bad: tile.point: tensorize-matmul declined the kernel at {tensor_cores=true, bm=256} (dpl compile -v says why)
// IEEE: error: schedule: @k_tc_bad: tile.point: tensor_cores=true needs tensor cores: precision ieee on sm_90 has none
