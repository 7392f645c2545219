// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(fuse-launches)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(fuse-launches)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// RUN: not dpl-opt %s --split-input-file --pass-pipeline='builtin.module(fuse-launches{window=-1})' 2>&1 | filecheck %s --check-prefix=ERR
// fuse-launches: launches of @main with no data between them, the same block shape and shared
// memory of one kind become one launch; each block runs the part its linear index falls in, with
// that part's block indices recomputed from it (x fastest) and its grid extents as constants.

// ERR: dpl-opt: error: fuse-launches: option window must be at least 0, got -1

// Siblings: @k_a and @k_b read %x and write their own buffers (grids of 4 and 8 blocks).
kernel.func @k_a(%x: memref<8x32xf32>, %a: memref<4x32xf32>) grid [2, 2, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %bx = kernel.block_id x
  %by = kernel.block_id y
  %v = kernel.load %x[%by * 4 + %bx * 2, %t] : memref<8x32xf32>
  %w = arith.mulf %v, %v : f32
  kernel.store %w, %a[%by * 2 + %bx, %t] : memref<4x32xf32>
}
kernel.func @k_b(%x: memref<8x32xf32>, %b: memref<8x32xf32>) grid [2, 2, 2] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %bx = kernel.block_id x
  %by = kernel.block_id y
  %bz = kernel.block_id z
  %gx = kernel.grid_dim x
  %v = kernel.load %x[%bz * 4 + %by * 2 + %bx, %t] : memref<8x32xf32>
  %s = arith.index_cast %gx : index to i32
  %f = arith.sitofp %s : i32 to f32
  %w = arith.addf %v, %f : f32
  kernel.store %w, %b[%bz * 4 + %by * 2 + %bx, %t] : memref<8x32xf32>
}
func.func @main(%x: memref<8x32xf32>) -> (memref<4x32xf32>, memref<8x32xf32>) {
  %a = memref.alloc() : memref<4x32xf32>
  kernel.launch @k_a(%x, %a) : memref<8x32xf32>, memref<4x32xf32>
  %b = memref.alloc() : memref<8x32xf32>
  kernel.launch @k_b(%x, %b) : memref<8x32xf32>, memref<8x32xf32>
  func.return %a, %b : memref<4x32xf32>, memref<8x32xf32>
}
// CHECK-LABEL: kernel.func @k_a__k_b(%x: memref<8x32xf32>, %a: memref<4x32xf32>, %b: memref<8x32xf32>) grid [12, 1, 1] block [32, 1, 1] smem 0 {
// CHECK-NEXT:    %block = kernel.block_id x
// CHECK-NEXT:    %[[END_A:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %in_k_a = arith.cmpi ult, %block, %[[END_A]] : index
// CHECK-NEXT:    kernel.if %in_k_a {
// CHECK-NEXT:      %[[GX:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %block_x = arith.remui %block, %[[GX]] : index
// CHECK-NEXT:      %block_y = arith.divui %block, %[[GX]] : index
// CHECK-NEXT:      %t = kernel.thread_id x
// CHECK-NEXT:      %v = kernel.load %x[%block_y * 4 + %block_x * 2, %t] : memref<8x32xf32>
// CHECK-NEXT:      %w = arith.mulf %v, %v : f32
// CHECK-NEXT:      kernel.store %w, %a[%block_y * 2 + %block_x, %t] : memref<4x32xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[START_B:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %local = arith.subi %block, %[[START_B]] : index
// CHECK-NEXT:      %[[GX_B:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %block_x_1 = arith.remui %local, %[[GX_B]] : index
// CHECK-NEXT:      %block_yz = arith.divui %local, %[[GX_B]] : index
// CHECK-NEXT:      %[[GY_B:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %block_y_1 = arith.remui %block_yz, %[[GY_B]] : index
// CHECK-NEXT:      %block_z = arith.divui %block_yz, %[[GY_B]] : index
// CHECK-NEXT:      %t_1 = kernel.thread_id x
// CHECK-NEXT:      %grid_x = arith.constant 2 : index
// CHECK-NEXT:      %v_1 = kernel.load %x[%block_z * 4 + %block_y_1 * 2 + %block_x_1, %t_1] : memref<8x32xf32>
// CHECK-NEXT:      %s = arith.index_cast %grid_x : index to i32
// CHECK:           kernel.store %w_1, %b[%block_z * 4 + %block_y_1 * 2 + %block_x_1, %t_1] : memref<8x32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {kernel.fused = ["k_a", "k_b"]}
// CHECK-NOT:   kernel.func @k_a(
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %a = memref.alloc() : memref<4x32xf32>
// CHECK-NEXT:    %b = memref.alloc() : memref<8x32xf32>
// CHECK-NEXT:    kernel.launch @k_a__k_b(%x, %a, %b) : memref<8x32xf32>, memref<4x32xf32>, memref<8x32xf32>
// CHECK-NEXT:    func.return %a, %b

// CUDA-LABEL: __launch_bounds__(32) void k_a__k_b(const float* __restrict__ x, float* __restrict__ a, float* __restrict__ b) {
// CUDA-NEXT:      int block = blockIdx.x;
// CUDA-NEXT:      bool in_k_a = block < 4;
// CUDA-NEXT:      if (in_k_a) {
// CUDA-NEXT:          int block_x = block % 2;
// CUDA-NEXT:          int block_y = block / 2;
// CUDA:           } else {
// CUDA-NEXT:          int local = block - 4;

// -----

// A chain: @k_sq reads what @k_copy writes, so the two stay two launches.
kernel.func @k_copy(%x: memref<64xf32>, %a: memref<64xf32>) grid [2, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %b = kernel.block_id x
  %v = kernel.load %x[%b * 32 + %t] : memref<64xf32>
  kernel.store %v, %a[%b * 32 + %t] : memref<64xf32>
}
kernel.func @k_sq(%a: memref<64xf32>, %y: memref<64xf32>) grid [2, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %b = kernel.block_id x
  %v = kernel.load %a[%b * 32 + %t] : memref<64xf32>
  %w = arith.mulf %v, %v : f32
  kernel.store %w, %y[%b * 32 + %t] : memref<64xf32>
}
func.func @main(%x: memref<64xf32>) -> memref<64xf32> {
  %a = memref.alloc() : memref<64xf32>
  kernel.launch @k_copy(%x, %a) : memref<64xf32>, memref<64xf32>
  %y = memref.alloc() : memref<64xf32>
  kernel.launch @k_sq(%a, %y) : memref<64xf32>, memref<64xf32>
  func.return %y : memref<64xf32>
}
// CHECK-LABEL: kernel.func @k_copy(
// CHECK-LABEL: kernel.func @k_sq(
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %a = memref.alloc()
// CHECK-NEXT:    kernel.launch @k_copy(%x, %a)
// CHECK-NEXT:    %y = memref.alloc()
// CHECK-NEXT:    kernel.launch @k_sq(%a, %y)

// -----

// Split-K outputs and their zero fills: @k_p_init and @k_q_init fill the two outputs, @k_p and
// @k_q add partial sums into them with atomics. A fill may move ahead of up to `window` (3)
// groups, so @k_q_init joins @k_p_init and @k_q then finds @k_p's group free of its own fill:
// four launches become two, the fills first, the two sums together.
kernel.func @k_p_init(%p: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %zero = arith.constant 0.0 : f32
  kernel.store %zero, %p[%t] : memref<4xf32>
}
kernel.func @k_p(%x: memref<2x4xf32>, %p: memref<4xf32>) grid [2, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %k = kernel.block_id x
  %v = kernel.load %x[%k, %t] : memref<2x4xf32>
  kernel.atomic add %v, %p[%t] : memref<4xf32>
}
kernel.func @k_q_init(%q: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %zero = arith.constant 0.0 : f32
  kernel.store %zero, %q[%t] : memref<4xf32>
}
kernel.func @k_q(%x: memref<2x4xf32>, %q: memref<4xf32>) grid [2, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %k = kernel.block_id x
  %v = kernel.load %x[%k, %t] : memref<2x4xf32>
  %w = arith.mulf %v, %v : f32
  kernel.atomic add %w, %q[%t] : memref<4xf32>
}
func.func @main(%x: memref<2x4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %p = memref.alloc() : memref<4xf32>
  kernel.launch @k_p_init(%p) : memref<4xf32>
  kernel.launch @k_p(%x, %p) : memref<2x4xf32>, memref<4xf32>
  %q = memref.alloc() : memref<4xf32>
  kernel.launch @k_q_init(%q) : memref<4xf32>
  kernel.launch @k_q(%x, %q) : memref<2x4xf32>, memref<4xf32>
  func.return %p, %q : memref<4xf32>, memref<4xf32>
}
// CHECK-LABEL: kernel.func @k_p_init__k_q_init(%p: memref<4xf32>, %q: memref<4xf32>) grid [2, 1, 1] block [4, 1, 1] smem 0 {
// CHECK:       } {kernel.fused = ["k_p_init", "k_q_init"]}
// CHECK-LABEL: kernel.func @k_p__k_q(%x: memref<2x4xf32>, %p: memref<4xf32>, %q: memref<4xf32>) grid [4, 1, 1] block [4, 1, 1] smem 0 {
// CHECK:       } {kernel.fused = ["k_p", "k_q"]}
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %p = memref.alloc()
// CHECK-NEXT:    %q = memref.alloc()
// CHECK-NEXT:    kernel.launch @k_p_init__k_q_init(%p, %q)
// CHECK-NEXT:    kernel.launch @k_p__k_q(%x, %p, %q)
// CHECK-NEXT:    func.return

// -----

// Declined: @k_wide and @k_half differ in block shape (a barrier must see all of a block's threads), and a
// kernel that stages 32 KiB or more of tiles (@k_tiles, a matmul's stand-in) does not take in one that stages none (@k_half), so
// neither's registers and shared memory set the other's blocks per SM.
kernel.func @k_wide(%x: memref<64xf32>, %a: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<64xf32>
  kernel.store %v, %a[%t] : memref<64xf32>
}
kernel.func @k_half(%x: memref<64xf32>, %b: memref<64xf32>) grid [2, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %k = kernel.block_id x
  %v = kernel.load %x[%k * 32 + %t] : memref<64xf32>
  kernel.store %v, %b[%k * 32 + %t] : memref<64xf32>
}
kernel.func @k_tiles(%x: memref<64xf32>, %c: memref<64xf32>) grid [2, 1, 1] block [32, 1, 1] smem 32768 {
  %t = kernel.thread_id x
  %k = kernel.block_id x
  %s = kernel.smem dynamic offset 0 : memref<32xf32, #kernel.smem>
  %v = kernel.load %x[%k * 32 + %t] : memref<64xf32>
  kernel.store %v, %s[%t] : memref<32xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %s[31 - %t] : memref<32xf32, #kernel.smem>
  kernel.store %w, %c[%k * 32 + %t] : memref<64xf32>
}
func.func @main(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>, memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  kernel.launch @k_wide(%x, %a) : memref<64xf32>, memref<64xf32>
  kernel.launch @k_half(%x, %b) : memref<64xf32>, memref<64xf32>
  kernel.launch @k_tiles(%x, %c) : memref<64xf32>, memref<64xf32>
  func.return %a, %b, %c : memref<64xf32>, memref<64xf32>, memref<64xf32>
}
// CHECK-LABEL: func.func @main
// CHECK:         kernel.launch @k_wide(%x, %a)
// CHECK-NEXT:    kernel.launch @k_half(%x, %b)
// CHECK-NEXT:    kernel.launch @k_tiles(%x, %c)

// -----

// Static shared buffers become views of the dynamic pool after the part's own dynamic bytes, so
// the parts of one launch share one pool (a block runs one part) instead of adding up.
kernel.func @k_s(%x: memref<64xf32>, %a: memref<64xf32>) grid [2, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %k = kernel.block_id x
  %s = kernel.smem : memref<32xf32, #kernel.smem>
  %v = kernel.load %x[%k * 32 + %t] : memref<64xf32>
  kernel.store %v, %s[%t] : memref<32xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %s[31 - %t] : memref<32xf32, #kernel.smem>
  kernel.store %w, %a[%k * 32 + %t] : memref<64xf32>
}
kernel.func @k_d(%x: memref<64xf32>, %b: memref<64xf32>) grid [2, 1, 1] block [32, 1, 1] smem 128 {
  %t = kernel.thread_id x
  %k = kernel.block_id x
  %d = kernel.smem dynamic offset 0 : memref<32xf32, #kernel.smem>
  %s = kernel.smem : memref<32xf32, #kernel.smem>
  %v = kernel.load %x[%k * 32 + %t] : memref<64xf32>
  kernel.store %v, %d[%t] : memref<32xf32, #kernel.smem>
  %v2 = arith.mulf %v, %v : f32
  kernel.store %v2, %s[%t] : memref<32xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %d[31 - %t] : memref<32xf32, #kernel.smem>
  %w2 = kernel.load %s[%t + 1 - %t] : memref<32xf32, #kernel.smem>
  %sum = arith.addf %w, %w2 : f32
  kernel.store %sum, %b[%k * 32 + %t] : memref<64xf32>
}
func.func @main(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  kernel.launch @k_s(%x, %a) : memref<64xf32>, memref<64xf32>
  kernel.launch @k_d(%x, %b) : memref<64xf32>, memref<64xf32>
  func.return %a, %b : memref<64xf32>, memref<64xf32>
}
// CHECK-LABEL: kernel.func @k_s__k_d({{.*}}) grid [4, 1, 1] block [32, 1, 1] smem 256 {
// CHECK:         %s = kernel.smem dynamic offset 0 : memref<32xf32, #kernel.smem>
// CHECK:         %d = kernel.smem dynamic offset 0 : memref<32xf32, #kernel.smem>
// CHECK-NEXT:    %s_1 = kernel.smem dynamic offset 128 : memref<32xf32, #kernel.smem>
// CUDA-LABEL: void k_s__k_d(
// CUDA-NEXT:      extern __shared__ __align__(16) unsigned char dpl_dyn_smem[];
// CUDA-NOT:       __shared__ __align__(16) float

// -----

// Two kernels reading %x, one as its flat view (flatten-buffers): not fused (the fused kernel
// would have to take %x as both types).
kernel.func @k_flat(%x: memref<256xf32>, %a: memref<256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<256xf32>
  kernel.store %v, %a[%t] : memref<256xf32>
}
kernel.func @k_rows(%x: memref<8x32xf32>, %b: memref<8x32xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t floordiv 32, %t mod 32] : memref<8x32xf32>
  %w = arith.addf %v, %v : f32
  kernel.store %w, %b[%t floordiv 32, %t mod 32] : memref<8x32xf32>
}
func.func @main(%x: memref<8x32xf32>) -> (memref<8x32xf32>, memref<8x32xf32>) {
  %a = memref.alloc() : memref<8x32xf32>
  kernel.launch @k_flat(%x, %a) : memref<8x32xf32>, memref<8x32xf32>
  %b = memref.alloc() : memref<8x32xf32>
  kernel.launch @k_rows(%x, %b) : memref<8x32xf32>, memref<8x32xf32>
  func.return %a, %b : memref<8x32xf32>, memref<8x32xf32>
}
// CHECK-LABEL: kernel.func @k_flat(%x: memref<256xf32>, %a: memref<256xf32>)
// CHECK:       kernel.func @k_rows(%x: memref<8x32xf32>, %b: memref<8x32xf32>)
// CHECK:         kernel.launch @k_flat(%x, %a) : memref<8x32xf32>, memref<8x32xf32>
// CHECK-NEXT:    %b = memref.alloc() : memref<8x32xf32>
// CHECK-NEXT:    kernel.launch @k_rows(%x, %b) : memref<8x32xf32>, memref<8x32xf32>

// -----

// A tail ({kernel.tail_of = @k_main}, collapse-pointwise) writes %out beside @k_main, on a block
// of 3 threads: fused, its body on the first 3 threads of its block. @k_other, of 3 threads too
// but no tail, is refused for its block.
kernel.func @k_main(%x: memref<35xf32>, %out: memref<35xf32>) grid [1, 1, 1] block [8, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4] vector 4 : memref<35xf32>
  kernel.store %v, %out[%t * 4] vector 4 : memref<35xf32>
}
kernel.func @k_main_tail(%x: memref<35xf32>, %out: memref<35xf32>) grid [1, 1, 1] block [3, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t + 32] : memref<35xf32>
  kernel.store %v, %out[%t + 32] : memref<35xf32>
} {kernel.tail_of = @k_main}
kernel.func @k_other(%x: memref<35xf32>, %o: memref<3xf32>) grid [1, 1, 1] block [3, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<35xf32>
  kernel.store %v, %o[%t] : memref<3xf32>
}
func.func @main(%x: memref<35xf32>) -> (memref<35xf32>, memref<3xf32>) {
  %out = memref.alloc() : memref<35xf32>
  %o = memref.alloc() : memref<3xf32>
  kernel.launch @k_main(%x, %out) : memref<35xf32>, memref<35xf32>
  kernel.launch @k_main_tail(%x, %out) : memref<35xf32>, memref<35xf32>
  kernel.launch @k_other(%x, %o) : memref<35xf32>, memref<3xf32>
  func.return %out, %o : memref<35xf32>, memref<3xf32>
}
// CHECK-LABEL: kernel.func @k_main__k_main_tail(%x: memref<35xf32>, %out: memref<35xf32>) grid [2, 1, 1] block [8, 1, 1] smem 0 {
// CHECK:         kernel.if %in_k_main {
// CHECK:           kernel.store %v, %out[%t * 4] vector 4 : memref<35xf32>
// CHECK:         } else {
// CHECK-NEXT:      %tid = kernel.thread_id x
// CHECK-NEXT:      %{{.*}} = arith.constant 3 : index
// CHECK-NEXT:      %in_threads = arith.cmpi ult, %tid, %{{.*}} : index
// CHECK-NEXT:      kernel.if %in_threads {
// CHECK-NEXT:        %t_1 = kernel.thread_id x
// CHECK-NEXT:        %v_1 = kernel.load %x[%t_1 + 32] : memref<35xf32>
// CHECK-NEXT:        kernel.store %v_1, %out[%t_1 + 32] : memref<35xf32>
// CHECK:         } {kernel.fused = ["k_main", "k_main_tail"]}
// CHECK:         kernel.launch @k_main__k_main_tail(%x, %out) : memref<35xf32>, memref<35xf32>
// CHECK-NEXT:    kernel.launch @k_other(%x, %o) : memref<35xf32>, memref<3xf32>
// CUDA-LABEL: void k_main__k_main_tail(
// CUDA:           if (in_threads) {

// -----

// Parts of one concat ({kernel.apart = "k_cat"}, split-nests) write %cat side by side: one
// launch. @k_overwrite writes %cat too but is no part of @k_cat: it waits for them.
kernel.func @k_cat(%x: memref<8xf32>, %cat: memref<24xf32>) grid [1, 1, 1] block [8, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<8xf32>
  kernel.store %v, %cat[%t] : memref<24xf32>
} {kernel.apart = "k_cat"}
kernel.func @k_cat_part1(%y: memref<8xf32>, %cat: memref<24xf32>) grid [2, 1, 1] block [8, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %b = kernel.block_id x
  %v = kernel.load %y[%t] : memref<8xf32>
  kernel.store %v, %cat[%b * 8 + %t + 8] : memref<24xf32>
} {kernel.apart = "k_cat"}
kernel.func @k_overwrite(%y: memref<8xf32>, %cat: memref<24xf32>) grid [1, 1, 1] block [8, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %y[%t] : memref<8xf32>
  kernel.store %v, %cat[%t] : memref<24xf32>
}
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) -> memref<24xf32> {
  %cat = memref.alloc() : memref<24xf32>
  kernel.launch @k_cat(%x, %cat) : memref<8xf32>, memref<24xf32>
  kernel.launch @k_cat_part1(%y, %cat) : memref<8xf32>, memref<24xf32>
  kernel.launch @k_overwrite(%y, %cat) : memref<8xf32>, memref<24xf32>
  func.return %cat : memref<24xf32>
}
// CHECK-LABEL: kernel.func @k_cat__k_cat_part1(%x: memref<8xf32>, %cat: memref<24xf32>, %y: memref<8xf32>) grid [3, 1, 1] block [8, 1, 1] smem 0 {
// CHECK:         } {kernel.fused = ["k_cat", "k_cat_part1"]}
// CHECK:         kernel.launch @k_cat__k_cat_part1(%x, %cat, %y) : memref<8xf32>, memref<24xf32>, memref<8xf32>
// CHECK-NEXT:    kernel.launch @k_overwrite(%y, %cat) : memref<8xf32>, memref<24xf32>
