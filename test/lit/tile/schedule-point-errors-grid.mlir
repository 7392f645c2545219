// RUN: not dpl-opt %s -p schedule 2>&1 | filecheck %s
// A tensor-core point whose tiles have block axes no grid holds (the batch of 4 x 8 heads beside
// 16 x 16 tiles of 64 x 64: four) is an error naming the point, not a crash in materialize-mma.
func.func @main(%q: memref<4x8x1024x128xf32>, %k: memref<4x8x1024x128xf32>) -> memref<4x8x1024x1x1024xf32> {
  %s = memref.alloc() : memref<4x8x1024x1x1024xf32>
  loop.kernel @k_scores ins(%q, %k : memref<4x8x1024x128xf32>, memref<4x8x1024x128xf32>) outs(%s : memref<4x8x1024x1x1024xf32>) {
    loop.for free %a0 < 4 {
      loop.for free %a1 < 8 {
        loop.for free %a2 < 1024 {
          loop.for free %a3 < 1 {
            loop.for free %a4 < 1024 {
              %acc = loop.for reduce %r0 < 128 -> f32 {
                %in = loop.load %q[%a0, %a1, %a2, %r0] : memref<4x8x1024x128xf32>
                %in_1 = loop.load %k[%a0, %a1, %a4, %r0] : memref<4x8x1024x128xf32>
                %in_2 = arith.mulf %in, %in_1 : f32
                loop.accumulate add %in_2 : f32
              }
              loop.store %acc, %s[%a0, %a1, %a2, %a3, %a4] : memref<4x8x1024x1x1024xf32>
            }
          }
        }
      }
    }
  } {tile.point = {tensor_cores = true, bm = 64 : i64, bn = 64 : i64}}
  func.return %s : memref<4x8x1024x1x1024xf32>
}
// CHECK: error: schedule: @k_scores: tile.point: the tensor-core tiles at {tensor_cores=true, bm=64, bn=64} have block axes that do not fit a grid (more than three, or one past grid y / z)
