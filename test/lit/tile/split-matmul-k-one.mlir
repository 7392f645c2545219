// RUN: dpl-opt %s --pass-pipeline='split-matmul-k{splits=1}' | filecheck %s
// split-matmul-k{splits=1} keeps K whole: the schedule's unsplit tiles (a SIMT tile it models
// faster unsplit, a batched tensor-core tile whose split would leave a fourth block axis) and a
// tuned point with splits = 1 run it so; the kernel is left as it is (no %ks axis, no atomics).

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
// CHECK-NOT:     tile.zero_init
// CHECK-NEXT:    tile.tile (%i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %ko < 4 -> f64 {
// CHECK-NOT:     tile.atomic
// CHECK:           loop.store %acc, %out[%i, %j] : memref<8x8xf64>
