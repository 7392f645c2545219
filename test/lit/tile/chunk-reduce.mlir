// RUN: dpl-opt %s --split-input-file --pass-pipeline='chunk-reduce{smem-bytes=256}' | filecheck %s
// chunk-reduce: a row reduce reading 64 doubles (512 bytes) does not fit 256 bytes, so it becomes
// 2 chunks of 32 (a cooperative strided reduce, then a plain per-thread one). Declined: a row of
// 16 doubles that fits; a matmul (chunk-matmul-k's job).

func.func @main(%x: memref<4x64xf64>) -> memref<4xf64> {
  %out = memref.alloc() : memref<4xf64>
  tile.kernel @k_rowsum ins(%x : memref<4x64xf64>) outs(%out : memref<4xf64>) {
    tile.tile (%lane : 8 = thread, %i : 4 = block) {
      %acc_part = tile.strided_for reduce %k = %lane to 64 step 8 -> f64 {
        %a = loop.load %x[%i, %k] : memref<4x64xf64>
        loop.accumulate add %a : f64
      }
      %acc = tile.combine add %acc_part across [%lane] tree : f64
      loop.store %acc, %out[%i] : memref<4xf64>
    }
  }
  func.return %out : memref<4xf64>
}

// CHECK-LABEL: tile.kernel @k_rowsum
// CHECK-NEXT:    tile.tile (%lane : 8 = thread, %i : 4 = block) {
// CHECK-NEXT:      %acc_part = loop.for reduce %ko < 2 -> f64 {
// CHECK-NEXT:        %acc_part_chunk = tile.strided_for reduce %k = %lane to 32 step 8 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ko * 32 + %k] : memref<4x64xf64>
// CHECK-NEXT:          loop.accumulate add %a : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.accumulate add %acc_part_chunk : f64
// CHECK-NEXT:      }
// CHECK-NEXT:      %acc = tile.combine add %acc_part across [%lane] tree : f64

// -----

func.func @main(%x: memref<4x64xf64>) -> memref<4xf64> {
  %out = memref.alloc() : memref<4xf64>
  tile.kernel @k_rowmax ins(%x : memref<4x64xf64>) outs(%out : memref<4xf64>) {
    tile.tile (%i : 4 = thread) {
      %m = loop.for reduce %r < 64 -> f64 {
        %a = loop.load %x[%i, %r] : memref<4x64xf64>
        loop.accumulate max %a : f64
      }
      loop.store %m, %out[%i] : memref<4xf64>
    }
  }
  func.return %out : memref<4xf64>
}

// CHECK-LABEL: tile.kernel @k_rowmax
// CHECK-NEXT:    tile.tile (%i : 4 = thread) {
// CHECK-NEXT:      %m = loop.for reduce %ro < 2 -> f64 {
// CHECK-NEXT:        %m_chunk = loop.for reduce %r < 32 -> f64 {
// CHECK-NEXT:          %a = loop.load %x[%i, %ro * 32 + %r] : memref<4x64xf64>
// CHECK-NEXT:          loop.accumulate max %a : f64
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.accumulate max %m_chunk : f64

// -----

func.func @main(%x: memref<4x16xf64>) -> memref<4xf64> {
  %out = memref.alloc() : memref<4xf64>
  tile.kernel @k_short ins(%x : memref<4x16xf64>) outs(%out : memref<4xf64>) {
    tile.tile (%i : 4 = thread) {
      %s = loop.for reduce %r < 16 -> f64 {
        %a = loop.load %x[%i, %r] : memref<4x16xf64>
        loop.accumulate add %a : f64
      }
      loop.store %s, %out[%i] : memref<4xf64>
    }
  }
  func.return %out : memref<4xf64>
}

// CHECK-LABEL: tile.kernel @k_short
// CHECK-NEXT:    tile.tile (%i : 4 = thread) {
// CHECK-NEXT:      %s = loop.for reduce %r < 16 -> f64 {

// -----

func.func @main(%x: memref<8x64xf64>, %w: memref<64x8xf64>) -> memref<8x8xf64> {
  %out = memref.alloc() : memref<8x8xf64>
  tile.kernel @k_matmul ins(%x, %w : memref<8x64xf64>, memref<64x8xf64>) outs(%out : memref<8x8xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread) {
      %acc = loop.for reduce %k < 64 -> f64 {
        %a = loop.load %x[%i, %k] : memref<8x64xf64>
        %b = loop.load %w[%k, %j] : memref<64x8xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x8xf64>
    }
  }
  func.return %out : memref<8x8xf64>
}

// CHECK-LABEL: tile.kernel @k_matmul
// CHECK-NEXT:    tile.tile (%i : 8 = thread, %j : 8 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 64 -> f64 {
