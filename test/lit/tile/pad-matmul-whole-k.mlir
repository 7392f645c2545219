// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,pad-matmul{rows=2 cols=2 threads=4 k-tile=8 whole-k=32 sms=4},chunk-matmul-k{k-tile=8}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='tileify,pad-matmul{rows=2 cols=2 threads=4 k-tile=8},chunk-matmul-k{k-tile=8}' | filecheck %s --check-prefix=PAD
// pad-matmul{whole-k}: a ragged K of at most whole-k (21 here) is rounded up only to whole
// float4s, an odd number of them (28), where the block tiles (8 x 8) fill every SM (4 here), its
// loads past 21 masked: chunk-matmul-k then leaves it as one loop (28 is no multiple of 8), which
// stage-inputs stages at once. Without whole-k it is rounded up to k-tile (24) and chunked in
// 3 steps. Declined: a grid of 2 blocks on 4 SMs (padded, so split-matmul-k may spread it), a
// K past whole-k (40: padded), and a K that k-tile divides (16: chunked as it is).

func.func @main(%x: memref<16x21xf32>, %w: memref<21x16xf32>) -> memref<16x16xf32> {
  %y = memref.alloc() : memref<16x16xf32>
  loop.kernel @k_whole ins(%x, %w : memref<16x21xf32>, memref<21x16xf32>) outs(%y : memref<16x16xf32>) {
    loop.for free %m < 16 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 21 -> f32 {
          %a = loop.load %x[%m, %k] : memref<16x21xf32>
          %c = loop.load %w[%k, %n] : memref<21x16xf32>
          %p = arith.mulf %a, %c : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %y[%m, %n] : memref<16x16xf32>
      }
    }
  }
  func.return %y : memref<16x16xf32>
}
// CHECK-LABEL: tile.kernel @k_whole
// CHECK:         tile.tile (%m : 16 = thread, %n : 16 = thread) {
// CHECK-NEXT:      %acc = loop.for reduce %k < 28 -> f32 {
// CHECK-NEXT:        %a = loop.load %x[%m, %k] {tile.masked = [1 : i64]} : memref<16x21xf32>
// CHECK-NEXT:        %c = loop.load %w[%k, %n] {tile.masked = [0 : i64]} : memref<21x16xf32>
// CHECK-NOT:       loop.for reduce
// PAD-LABEL:     tile.kernel @k_whole
// PAD:             %acc = loop.for reduce %ko < 3 -> f32 {
// PAD-NEXT:          %acc_k = loop.for reduce %ki < 8 -> f32 {
// PAD-NEXT:            %a = loop.load %x[%m, %ko * 8 + %ki] {tile.masked = [1 : i64]} : memref<16x21xf32>

// -----

func.func @main(%x: memref<8x21xf32>, %w: memref<21x16xf32>) -> memref<8x16xf32> {
  %y = memref.alloc() : memref<8x16xf32>
  loop.kernel @k_few ins(%x, %w : memref<8x21xf32>, memref<21x16xf32>) outs(%y : memref<8x16xf32>) {
    loop.for free %m < 8 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 21 -> f32 {
          %a = loop.load %x[%m, %k] : memref<8x21xf32>
          %c = loop.load %w[%k, %n] : memref<21x16xf32>
          %p = arith.mulf %a, %c : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %y[%m, %n] : memref<8x16xf32>
      }
    }
  }
  func.return %y : memref<8x16xf32>
}
// CHECK-LABEL: tile.kernel @k_few
// CHECK:           %acc = loop.for reduce %ko < 3 -> f32 {

// -----

func.func @main(%x: memref<16x37xf32>, %w: memref<37x16xf32>) -> memref<16x16xf32> {
  %y = memref.alloc() : memref<16x16xf32>
  loop.kernel @k_long ins(%x, %w : memref<16x37xf32>, memref<37x16xf32>) outs(%y : memref<16x16xf32>) {
    loop.for free %m < 16 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 37 -> f32 {
          %a = loop.load %x[%m, %k] : memref<16x37xf32>
          %c = loop.load %w[%k, %n] : memref<37x16xf32>
          %p = arith.mulf %a, %c : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %y[%m, %n] : memref<16x16xf32>
      }
    }
  }
  func.return %y : memref<16x16xf32>
}
// CHECK-LABEL: tile.kernel @k_long
// CHECK:           %acc = loop.for reduce %ko < 5 -> f32 {

// -----

func.func @main(%x: memref<16x16xf32>, %w: memref<16x16xf32>) -> memref<16x16xf32> {
  %y = memref.alloc() : memref<16x16xf32>
  loop.kernel @k_even ins(%x, %w : memref<16x16xf32>, memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
    loop.for free %m < 16 {
      loop.for free %n < 16 {
        %acc = loop.for reduce %k < 16 -> f32 {
          %a = loop.load %x[%m, %k] : memref<16x16xf32>
          %c = loop.load %w[%k, %n] : memref<16x16xf32>
          %p = arith.mulf %a, %c : f32
          loop.accumulate add %p : f32
        }
        loop.store %acc, %y[%m, %n] : memref<16x16xf32>
      }
    }
  }
  func.return %y : memref<16x16xf32>
}
// CHECK-LABEL: tile.kernel @k_even
// CHECK:           %acc = loop.for reduce %ko < 2 -> f32 {
