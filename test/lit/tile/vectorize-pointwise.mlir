// RUN: dpl-opt %s --split-input-file --pass-pipeline='vectorize-pointwise{min-threads=32}' | filecheck %s
// min-threads from the module's #kernel.target (a warp per multiprocessor): 1 SM as above; 16 SMs
// leave @k_mul's 1024 elements one per thread (256 threads of 4 would be fewer than 512).
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{sms=1},vectorize-pointwise' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{sms=16},vectorize-pointwise' | filecheck %s --check-prefix=SMS16
// vectorize-pointwise gives each thread of a pointwise tile 4 consecutive elements of its fastest
// axis, as a free loop that vectorize-access makes one float4 access per buffer after
// materialize. Declined: an access that reads the axis outside the innermost dim (a transpose),
// an offset that is not a multiple of 4, an index computed by ops from the axis, a fastest axis
// that 4 does not divide, and a tile that would keep fewer than min-threads threads.

// silu(x) * y over 16 x 64: 16 x 16 threads of 4 elements each.
func.func @main(%x: memref<16x64xf32>, %y: memref<16x64xf32>) -> memref<16x64xf32> {
  %mul = memref.alloc() : memref<16x64xf32>
  tile.kernel @k_mul ins(%y, %x : memref<16x64xf32>, memref<16x64xf32>) outs(%mul : memref<16x64xf32>) {
    %0 = arith.constant 1.000000e+00 : f32
    tile.tile (%a0 : 16 = thread, %a1 : 64 = thread) {
      %a = loop.load %x[%a0, %a1] : memref<16x64xf32>
      %1 = arith.negf %a : f32
      %2 = math.exp %1 : f32
      %3 = arith.addf %0, %2 : f32
      %4 = arith.divf %0, %3 : f32
      %a_1 = arith.mulf %a, %4 : f32
      %b = loop.load %y[%a0, %a1] : memref<16x64xf32>
      %5 = arith.mulf %a_1, %b : f32
      loop.store %5, %mul[%a0, %a1] : memref<16x64xf32>
    }
  }
  func.return %mul : memref<16x64xf32>
}
// CHECK-LABEL: tile.kernel @k_mul
// SMS16-LABEL: tile.kernel @k_mul
// SMS16:         tile.tile (%a0 : 16 = thread, %a1 : 64 = thread) {
// CHECK:         tile.tile (%a0 : 16 = thread, %a1_v : 16 = thread) {
// CHECK-NEXT:      loop.for free %a1_l < 4 {
// CHECK-NEXT:        %a = loop.load %x[%a0, %a1_v * 4 + %a1_l] : memref<16x64xf32>
// CHECK:             %b = loop.load %y[%a0, %a1_v * 4 + %a1_l] : memref<16x64xf32>
// CHECK:             loop.store %{{.*}}, %mul[%a0, %a1_v * 4 + %a1_l] : memref<16x64xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// -----

// A broadcast row (bias[%a1]) and an offset that is a multiple of 4 (the second half of a
// rotate_half) keep one vector access each.
func.func @main(%x: memref<8x64xf32>, %bias: memref<32xf32>) -> memref<8x32xf32> {
  %out = memref.alloc() : memref<8x32xf32>
  tile.kernel @k_half ins(%x, %bias : memref<8x64xf32>, memref<32xf32>) outs(%out : memref<8x32xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 32 = thread) {
      %v = loop.load %x[%a0, %a1 + 32] : memref<8x64xf32>
      %b = loop.load %bias[%a1] : memref<32xf32>
      %s = arith.addf %v, %b : f32
      loop.store %s, %out[%a0, %a1] : memref<8x32xf32>
    }
  }
  func.return %out : memref<8x32xf32>
}
// CHECK-LABEL: tile.kernel @k_half
// CHECK:         tile.tile (%a0 : 8 = thread, %a1_v : 8 = thread) {
// CHECK-NEXT:      loop.for free %a1_l < 4 {
// CHECK-NEXT:        %v = loop.load %x[%a0, %a1_v * 4 + %a1_l + 32] : memref<8x64xf32>
// CHECK-NEXT:        %b = loop.load %bias[%a1_v * 4 + %a1_l] : memref<32xf32>

// -----

// A weight per channel (w[%a0], its access carrying the fastest axis without using it, as
// lower-to-loops writes it) is the same element for the 4: it does not stop the others.
func.func @main(%x: memref<8x64xf32>, %w: memref<8xf32>) -> memref<8x64xf32> {
  %out = memref.alloc() : memref<8x64xf32>
  tile.kernel @k_channel ins(%x, %w : memref<8x64xf32>, memref<8xf32>) outs(%out : memref<8x64xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<8x64xf32>
      %c = "loop.load"(%w, %a0, %a1) <{map = affine_map<(d0, d1) -> (d0)>}> : (memref<8xf32>, index, index) -> f32
      %s = arith.mulf %v, %c : f32
      loop.store %s, %out[%a0, %a1] : memref<8x64xf32>
    }
  }
  func.return %out : memref<8x64xf32>
}
// CHECK-LABEL: tile.kernel @k_channel
// CHECK:         tile.tile (%a0 : 8 = thread, %a1_v : 16 = thread) {
// CHECK-NEXT:      loop.for free %a1_l < 4 {
// CHECK-NEXT:        %v = loop.load %x[%a0, %a1_v * 4 + %a1_l] : memref<8x64xf32>
// CHECK-NEXT:        %c = loop.load %w[%a0] : memref<8xf32>

// -----

// x.t() + y: x is read along its outer dim, so the tile stays one element per thread.
func.func @main(%x: memref<64x16xf32>, %y: memref<16x64xf32>) -> memref<16x64xf32> {
  %add = memref.alloc() : memref<16x64xf32>
  tile.kernel @k_transpose ins(%y, %x : memref<16x64xf32>, memref<64x16xf32>) outs(%add : memref<16x64xf32>) {
    tile.tile (%a0 : 16 = thread, %a1 : 64 = thread) {
      %in = loop.load %x[%a1, %a0] : memref<64x16xf32>
      %b = loop.load %y[%a0, %a1] : memref<16x64xf32>
      %0 = arith.addf %in, %b : f32
      loop.store %0, %add[%a0, %a1] : memref<16x64xf32>
    }
  }
  func.return %add : memref<16x64xf32>
}
// CHECK-LABEL: tile.kernel @k_transpose
// CHECK:         tile.tile (%a0 : 16 = thread, %a1 : 64 = thread) {
// CHECK-NEXT:      %in = loop.load %x[%a1, %a0] : memref<64x16xf32>

// -----

// An offset of 1 (x[..., a + 1]) would start a float4 off its 16-byte boundary.
func.func @main(%x: memref<8x68xf32>) -> memref<8x64xf32> {
  %out = memref.alloc() : memref<8x64xf32>
  tile.kernel @k_shift ins(%x : memref<8x68xf32>) outs(%out : memref<8x64xf32>) {
    tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {
      %v = loop.load %x[%a0, %a1 + 1] : memref<8x68xf32>
      loop.store %v, %out[%a0, %a1] : memref<8x64xf32>
    }
  }
  func.return %out : memref<8x64xf32>
}
// CHECK-LABEL: tile.kernel @k_shift
// CHECK:         tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {

// -----

// An index computed by ops from the axis (every other element, x[..., 2 * a]) is not read in
// an access map, so the tile stays one element per thread.
func.func @main(%x: memref<8x128xf32>) -> memref<8x64xf32> {
  %out = memref.alloc() : memref<8x64xf32>
  tile.kernel @k_stride ins(%x : memref<8x128xf32>) outs(%out : memref<8x64xf32>) {
    %c2 = arith.constant 2 : index
    tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {
      %j = arith.muli %a1, %c2 : index
      %v = loop.load %x[%a0, %j] : memref<8x128xf32>
      loop.store %v, %out[%a0, %a1] : memref<8x64xf32>
    }
  }
  func.return %out : memref<8x64xf32>
}
// CHECK-LABEL: tile.kernel @k_stride
// CHECK:         tile.tile (%a0 : 8 = thread, %a1 : 64 = thread) {

// -----

// A fastest axis of 30 is not a multiple of 4; 8 x 4 = 32 elements leave 8 threads < 32.
func.func @main(%x: memref<64x30xf32>, %y: memref<8x4xf32>) -> (memref<64x30xf32>, memref<8x4xf32>) {
  %a = memref.alloc() : memref<64x30xf32>
  %b = memref.alloc() : memref<8x4xf32>
  tile.kernel @k_ragged ins(%x : memref<64x30xf32>) outs(%a : memref<64x30xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 30 = thread) {
      %v = loop.load %x[%a0, %a1] : memref<64x30xf32>
      %n = arith.negf %v : f32
      loop.store %n, %a[%a0, %a1] : memref<64x30xf32>
    }
  }
  tile.kernel @k_small ins(%y : memref<8x4xf32>) outs(%b : memref<8x4xf32>) {
    tile.tile (%b0 : 8 = thread, %b1 : 4 = thread) {
      %w = loop.load %y[%b0, %b1] : memref<8x4xf32>
      %m = arith.negf %w : f32
      loop.store %m, %b[%b0, %b1] : memref<8x4xf32>
    }
  }
  func.return %a, %b : memref<64x30xf32>, memref<8x4xf32>
}
// CHECK-LABEL: tile.kernel @k_ragged
// CHECK:         tile.tile (%a0 : 64 = thread, %a1 : 30 = thread) {
// CHECK-LABEL: tile.kernel @k_small
// CHECK:         tile.tile (%b0 : 8 = thread, %b1 : 4 = thread) {

// -----

// collapse-pointwise's flat form: 32 rows of 7 collapsed into one axis of 224; each thread takes 4
// consecutive flat offsets (the buffer read as 1-D after flatten-buffers).
func.func @main(%x: memref<32x7xf32>) -> memref<32x7xf32> {
  %out = memref.alloc() : memref<32x7xf32>
  tile.kernel @k_flat ins(%x : memref<32x7xf32>) outs(%out : memref<32x7xf32>) {
    tile.tile (%f : 224 = thread) {
      %v = loop.load %x[%f floordiv 7, %f mod 7] : memref<32x7xf32>
      %r = arith.negf %v : f32
      loop.store %r, %out[%f floordiv 7, %f mod 7] : memref<32x7xf32>
    }
  }
  func.return %out : memref<32x7xf32>
}
// CHECK-LABEL: tile.kernel @k_flat
// CHECK:         tile.tile (%f_v : 56 = thread) {
// CHECK-NEXT:      loop.for free %f_l < 4 {
// CHECK-NEXT:        %v = loop.load %x[(%f_v * 4 + %f_l) floordiv 7, (%f_v * 4 + %f_l) mod 7] : memref<32x7xf32>
// CHECK:             loop.store %{{.*}}, %out[(%f_v * 4 + %f_l) floordiv 7, (%f_v * 4 + %f_l) mod 7] : memref<32x7xf32>

// -----

// A bias along an odd last dim after collapse-pointwise (%bias[%f mod 7]) cannot be one vector
// access: it is read once per element (tile.gather) beside the vector accesses of %x and %out.
func.func @main(%x: memref<32x7xf32>, %bias: memref<7xf32>) -> memref<32x7xf32> {
  %out = memref.alloc() : memref<32x7xf32>
  tile.kernel @k_gather ins(%x, %bias : memref<32x7xf32>, memref<7xf32>) outs(%out : memref<32x7xf32>) {
    tile.tile (%f : 224 = thread) {
      %v = loop.load %x[%f floordiv 7, %f mod 7] : memref<32x7xf32>
      %b = loop.load %bias[%f mod 7] : memref<7xf32>
      %r = arith.addf %v, %b : f32
      loop.store %r, %out[%f floordiv 7, %f mod 7] : memref<32x7xf32>
    }
  }
  func.return %out : memref<32x7xf32>
}
// CHECK-LABEL: tile.kernel @k_gather
// CHECK:         tile.tile (%f_v : 56 = thread) {
// CHECK-NEXT:      loop.for free %f_l < 4 {
// CHECK-NEXT:        %v = loop.load %x[(%f_v * 4 + %f_l) floordiv 7, (%f_v * 4 + %f_l) mod 7] : memref<32x7xf32>
// CHECK-NEXT:        %b = loop.load %bias[(%f_v * 4 + %f_l) mod 7] {tile.gather} : memref<7xf32>
