// RUN: dpl-opt %s --split-input-file --pass-pipeline='blockify-launch{block-size=16}' | filecheck %s
// blockify-launch: a row body (RMSNorm; a demodulation, whose reduce reads like a matmul's) puts
// rows on blocks and adds a lane thread axis; its free column loop becomes a strided loop over
// the lanes (the reduce is left to cooperative-reduce). A
// pointwise tile too big for one block splits its fastest axis into block x thread. A tile that
// already has block axes is declined.

func.func @main(%x: memref<1x4x64xf64>, %w: memref<64xf64>) -> memref<1x4x64xf64> {
  %out = memref.alloc() : memref<1x4x64xf64>
  tile.kernel @k_rms_norm ins(%x, %w : memref<1x4x64xf64>, memref<64xf64>) outs(%out : memref<1x4x64xf64>) {
    %c = arith.constant 1.562500e-02 : f64
    %eps = arith.constant 1.000000e-06 : f64
    tile.tile (%a1 : 4 = thread) {
      %acc = loop.for reduce %r0 < 64 -> f64 {
        %in2 = loop.load %x[0, %a1, %r0] : memref<1x4x64xf64>
        %v1 = arith.mulf %in2, %in2 : f64
        loop.accumulate add %v1 : f64
      }
      %v2 = arith.mulf %acc, %c : f64
      %v3 = arith.addf %v2, %eps : f64
      %v4 = math.rsqrt %v3 : f64
      loop.for free %a2 < 64 {
        %in3 = loop.load %x[0, %a1, %a2] : memref<1x4x64xf64>
        %in4 = loop.load %w[%a2] : memref<64xf64>
        %v5 = arith.mulf %in3, %v4 : f64
        %v6 = arith.mulf %v5, %in4 : f64
        loop.store %v6, %out[0, %a1, %a2] : memref<1x4x64xf64>
      }
    }
  }
  func.return %out : memref<1x4x64xf64>
}


// CHECK-LABEL: tile.kernel @k_rms_norm
// CHECK:       tile.tile (%lane : 16 = thread, %a1 : 4 = block) {
// CHECK-NEXT:    %acc = loop.for reduce %r0 < 64 -> f64 {
// CHECK:         tile.strided_for free %a2 = %lane to 64 step 16 {
// CHECK-NEXT:      %in3 = loop.load %x[0, %a1, %a2] : memref<1x4x64xf64>

// -----

// StyleGAN2's demodulation: the reduce multiplies loads with axes of their own (w by %o, s by %b),
// as a matmul's do, but a normalizing loop follows it over the row: a row body (lanes), not a
// matmul's 16 x 16 threads each summing a row alone.
func.func @main(%w: memref<4x64xf64>, %s: memref<2x64xf64>) -> memref<2x4x64xf64> {
  %out = memref.alloc() : memref<2x4x64xf64>
  tile.kernel @k_demod ins(%w, %s : memref<4x64xf64>, memref<2x64xf64>) outs(%out : memref<2x4x64xf64>) {
    tile.tile (%b : 2 = thread, %o : 4 = thread) {
      %acc = loop.for reduce %r < 64 -> f64 {
        %wv = loop.load %w[%o, %r] : memref<4x64xf64>
        %sv = loop.load %s[%b, %r] : memref<2x64xf64>
        %m = arith.mulf %wv, %sv : f64
        %q = arith.mulf %m, %m : f64
        loop.accumulate add %q : f64
      }
      %d = math.rsqrt %acc : f64
      loop.for free %i < 64 {
        %wv2 = loop.load %w[%o, %i] : memref<4x64xf64>
        %sv2 = loop.load %s[%b, %i] : memref<2x64xf64>
        %m2 = arith.mulf %wv2, %sv2 : f64
        %n = arith.mulf %m2, %d : f64
        loop.store %n, %out[%b, %o, %i] : memref<2x4x64xf64>
      }
    }
  }
  func.return %out : memref<2x4x64xf64>
}


// CHECK-LABEL: tile.kernel @k_demod
// CHECK:       tile.tile (%lane : 16 = thread, %b : 2 = block, %o : 4 = block) {
// CHECK:         tile.strided_for free %i = %lane to 64 step 16 {

// -----

func.func @main(%x: memref<8x512xf64>, %y: memref<8x512xf64>) -> memref<8x512xf64> {
  %out = memref.alloc() : memref<8x512xf64>
  tile.kernel @k_add ins(%x, %y : memref<8x512xf64>, memref<8x512xf64>) outs(%out : memref<8x512xf64>) {
    tile.tile (%i : 8 = thread, %j : 512 = thread) {
      %a = loop.load %x[%i, %j] : memref<8x512xf64>
      %b = loop.load %y[%i, %j] : memref<8x512xf64>
      %c = arith.addf %a, %b : f64
      loop.store %c, %out[%i, %j] : memref<8x512xf64>
    }
  }
  func.return %out : memref<8x512xf64>
}


// CHECK-LABEL: tile.kernel @k_add
// CHECK:       tile.tile (%i : 8 = block, %j_b : 32 = block, %j_t : 16 = thread) {
// CHECK-NEXT:    %j = affine.apply affine_map<(d0, d1) -> (((d0 * 16) + d1))> (%j_b, %j_t)
// CHECK-NEXT:    %a = loop.load %x[%i, %j] : memref<8x512xf64>

// -----

func.func @main(%x: memref<8x4xf64>) -> memref<8x4xf64> {
  %out = memref.alloc() : memref<8x4xf64>
  tile.kernel @k_done ins(%x : memref<8x4xf64>) outs(%out : memref<8x4xf64>) {
    tile.tile (%i : 8 = block, %j : 4 = thread) {
      %a = loop.load %x[%i, %j] : memref<8x4xf64>
      loop.store %a, %out[%i, %j] : memref<8x4xf64>
    }
  }
  func.return %out : memref<8x4xf64>
}

// CHECK-LABEL: tile.kernel @k_done
// CHECK-NEXT:    tile.tile (%i : 8 = block, %j : 4 = thread) {

// -----

// A matmul: M and N each keep min(extent, 4) threads (4 x 4 fits block-size 16) and put the rest
// on blocks; N = 12 is not a multiple of 8 but 4 divides it, so it gets 3 blocks of 4. The K
// reduce stays a sequential loop (no lane axis, unlike a row body).
func.func @main(%x: memref<8x32xf64>, %w: memref<32x12xf64>) -> memref<8x12xf64> {
  %out = memref.alloc() : memref<8x12xf64>
  tile.kernel @k_matmul ins(%x, %w : memref<8x32xf64>, memref<32x12xf64>) outs(%out : memref<8x12xf64>) {
    tile.tile (%i : 8 = thread, %j : 12 = thread) {
      %acc = loop.for reduce %k < 32 -> f64 {
        %a = loop.load %x[%i, %k] : memref<8x32xf64>
        %b = loop.load %w[%k, %j] : memref<32x12xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i, %j] : memref<8x12xf64>
    }
  }
  func.return %out : memref<8x12xf64>
}

// CHECK-LABEL: tile.kernel @k_matmul
// CHECK-NEXT:    tile.tile (%i_b : 2 = block, %i_t : 4 = thread, %j_b : 3 = block, %j_t : 4 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 32 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%i_b * 4 + %i_t, %k] : memref<8x32xf64>
// CHECK-NEXT:        %b = loop.load %w[%k, %j_b * 4 + %j_t] : memref<32x12xf64>
// CHECK:         loop.store %acc, %out[%i_b * 4 + %i_t, %j_b * 4 + %j_t] : memref<8x12xf64>

// -----

// A register-tiled matmul (cell axes) is partitioned too: 2 blocks x 4 threads x 4 cells per row
// axis, a 16 x 8 block tile.
func.func @main(%x: memref<32x8xf64>, %w: memref<8x16xf64>) -> memref<32x16xf64> {
  %out = memref.alloc() : memref<32x16xf64>
  tile.kernel @k_cells ins(%x, %w : memref<32x8xf64>, memref<8x16xf64>) outs(%out : memref<32x16xf64>) {
    tile.tile (%i : 8 = thread, %j : 8 = thread, %c : 4 = cell, %d : 2 = cell) {
      %acc = loop.for reduce %k < 8 -> f64 {
        %a = loop.load %x[%i * 4 + %c, %k] : memref<32x8xf64>
        %b = loop.load %w[%k, %j * 2 + %d] : memref<8x16xf64>
        %p = arith.mulf %a, %b : f64
        loop.accumulate add %p : f64
      }
      loop.store %acc, %out[%i * 4 + %c, %j * 2 + %d] : memref<32x16xf64>
    }
  }
  func.return %out : memref<32x16xf64>
}

// CHECK-LABEL: tile.kernel @k_cells
// CHECK-NEXT:    tile.tile (%i_b : 2 = block, %i_t : 4 = thread, %j_b : 2 = block, %j_t : 4 = thread, %c : 4 = cell, %d : 2 = cell) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 8 -> f64 {
// CHECK-NEXT:        %a = loop.load %x[%i_b * 16 + %i_t * 4 + %c, %k] : memref<32x8xf64>
// CHECK-NEXT:        %b = loop.load %w[%k, %j_b * 8 + %j_t * 2 + %d] : memref<8x16xf64>
