// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(vectorize-access)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(vectorize-access)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// vectorize-access: elementwise loops over the innermost index move float4s; the loop runs over
// groups of 4 (N/4) and the body is repeated per lane. Declined loops stay as they are.

// A pointwise kernel: two loads, a product, a store, over a thread-strided row loop.
kernel.func @k_mul(%x: memref<8x1024xf32>, %y: memref<1024xf32>, %out: memref<8x1024xf32>) grid [8, 1, 1] block [128, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  kernel.for %i = %t to 1024 step 128 {
    %a = kernel.load %x[%b, %i] : memref<8x1024xf32>
    %w = kernel.load %y[%i] : memref<1024xf32>
    %p = arith.mulf %a, %w : f32
    kernel.store %p, %out[%b, %i] : memref<8x1024xf32>
  }
}
// CHECK-LABEL: kernel.func @k_mul
// CHECK:         kernel.for %i = %t to 256 step 128 {
// CHECK-NEXT:      %a = kernel.load %x[%b, %i * 4] vector 4 : memref<8x1024xf32>
// CHECK-NEXT:      %a_x = kernel.extract %a[0] : vector<4xf32>
// CHECK-NEXT:      %a_y = kernel.extract %a[1] : vector<4xf32>
// CHECK-NEXT:      %a_z = kernel.extract %a[2] : vector<4xf32>
// CHECK-NEXT:      %a_w = kernel.extract %a[3] : vector<4xf32>
// CHECK-NEXT:      %w = kernel.load %y[%i * 4] vector 4 : memref<1024xf32>
// CHECK:           %p_x = arith.mulf %a_x, %w_x : f32
// CHECK-NEXT:      %p_y = arith.mulf %a_y, %w_y : f32
// CHECK-NEXT:      %p_z = arith.mulf %a_z, %w_z : f32
// CHECK-NEXT:      %p_w = arith.mulf %a_w, %w_w : f32
// CHECK-NEXT:      %p_v = kernel.pack %p_x, %p_y, %p_z, %p_w : vector<4xf32>
// CHECK-NEXT:      kernel.store %p_v, %out[%b, %i * 4] vector 4 : memref<8x1024xf32>
// CHECK-NEXT:    }

// CUDA-LABEL: void k_mul(
// CUDA:         for (int i = t; i < 256; i += 128) {
// CUDA-NEXT:        float4 a = *reinterpret_cast<const float4*>(&x[b * 1024 + i * 4]);
// CUDA-NEXT:        float a_x = a.x;
// CUDA:             float4 p_v = make_float4(p_x, p_y, p_z, p_w);
// CUDA-NEXT:        *reinterpret_cast<float4*>(&out[b * 1024 + i * 4]) = p_v;

// -----

// The seeds' RMSNorm: the smem fill stores the loaded vector as is, the reduce loop adds its 4
// lanes before accumulating, the last loop keeps the uniform scale scalar. The barriers between
// the loops make the new thread-to-element assignment safe.
kernel.func @k_rms_norm(%x: memref<1x32x2048xf32>, %p_weight: memref<2048xf32>, %rms_norm: memref<1x32x2048xf32>) grid [32, 1, 1] block [256, 1, 1] smem 0 {
  %c0 = arith.constant 0 : index
  %eps = arith.constant 1.0e-06 : f32
  %a1 = kernel.block_id x
  %a0 = kernel.thread_id x
  %x_smem = kernel.smem : memref<2048xf32, #kernel.smem>
  kernel.for %f = %a0 to 2048 step 256 {
    %v = kernel.load %x[0, %a1, %f] : memref<1x32x2048xf32>
    kernel.store %v, %x_smem[%f] : memref<2048xf32, #kernel.smem>
  }
  kernel.barrier
  %acc0 = kernel.for %a2 = %a0 to 2048 step 256 -> f32 {
    %in2 = kernel.load %x_smem[%a2] : memref<2048xf32, #kernel.smem>
    %v1 = arith.mulf %in2, %in2 : f32
    kernel.accumulate add %v1 : f32
  }
  %acc_smem = kernel.smem : memref<256xf32, #kernel.smem>
  kernel.store %acc0, %acc_smem[%a0] : memref<256xf32, #kernel.smem>
  kernel.barrier
  %sum = kernel.for %j = 0 to 256 step 1 -> f32 {
    %part = kernel.load %acc_smem[%j] : memref<256xf32, #kernel.smem>
    kernel.accumulate add %part : f32
  }
  %v3 = arith.addf %sum, %eps : f32
  %v4 = math.rsqrt %v3 : f32
  kernel.for %a3 = %a0 to 2048 step 256 {
    %in3 = kernel.load %x_smem[%a3] : memref<2048xf32, #kernel.smem>
    %in4 = kernel.load %p_weight[%a3] : memref<2048xf32>
    %v5 = arith.mulf %in3, %v4 : f32
    %v6 = arith.mulf %v5, %in4 : f32
    kernel.store %v6, %rms_norm[0, %a1, %a3] : memref<1x32x2048xf32>
  }
}
// CHECK-LABEL: kernel.func @k_rms_norm
// CHECK:         kernel.for %f = %a0 to 512 step 256 {
// CHECK-NEXT:      %v = kernel.load %x[0, %a1, %f * 4] vector 4 : memref<1x32x2048xf32>
// CHECK-NEXT:      kernel.store %v, %x_smem[%f * 4] vector 4 : memref<2048xf32, #kernel.smem>
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %acc0 = kernel.for %a2 = %a0 to 512 step 256 -> f32 {
// CHECK-NEXT:      %in2 = kernel.load %x_smem[%a2 * 4] vector 4 : memref<2048xf32, #kernel.smem>
// CHECK-COUNT-4:   kernel.extract %in2
// CHECK-COUNT-4:   arith.mulf
// CHECK-NEXT:      %v1_xy = arith.addf %v1_x, %v1_y : f32
// CHECK-NEXT:      %v1_zw = arith.addf %v1_z, %v1_w : f32
// CHECK-NEXT:      %v1_xyzw = arith.addf %v1_xy, %v1_zw : f32
// CHECK-NEXT:      kernel.accumulate add %v1_xyzw : f32
// CHECK-NEXT:    }
// CHECK:         %sum = kernel.for %j = 0 to 64 step 1 -> f32 {
// CHECK-NEXT:      %part = kernel.load %acc_smem[%j * 4] vector 4 : memref<256xf32, #kernel.smem>
// CHECK:         kernel.for %a3 = %a0 to 512 step 256 {
// CHECK-NEXT:      %in3 = kernel.load %x_smem[%a3 * 4] vector 4 : memref<2048xf32, #kernel.smem>
// CHECK-COUNT-4:   kernel.extract %in3
// CHECK-NEXT:      %in4 = kernel.load %p_weight[%a3 * 4] vector 4 : memref<2048xf32>
// CHECK-COUNT-4:   kernel.extract %in4
// CHECK-NEXT:      %v5_x = arith.mulf %in3_x, %v4 : f32
// CHECK:           kernel.store %v6_v, %rms_norm[0, %a1, %a3 * 4] vector 4 : memref<1x32x2048xf32>

// CUDA-LABEL: void k_rms_norm(
// CUDA:         *reinterpret_cast<float4*>(&x_smem[f * 4]) = v;
// CUDA:         float4 in2 = *reinterpret_cast<const float4*>(&x_smem[a2 * 4]);

// -----

// The loop variable used as a value (an iota) becomes `%i * 4 + k` per lane; a per-thread loop
// from a constant keeps its elements (lower bound 8 -> 2).
kernel.func @k_iota(%out: memref<64xf32>) grid [1, 1, 1] block [1, 1, 1] smem 0 {
  kernel.for %i = 8 to 64 step 1 {
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    kernel.store %f, %out[%i] : memref<64xf32>
  }
}
// CHECK-LABEL: kernel.func @k_iota
// CHECK:         kernel.for %i = 2 to 16 step 1 {
// CHECK-NEXT:      %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[B:.*]] = arith.muli %i, %[[C4]] : index
// CHECK:           %n_x = arith.index_cast %[[B]] : index to i32
// CHECK:           %n_w = arith.index_cast %{{.*}} : index to i32
// CHECK:           kernel.store %f_v, %out[%i * 4] vector 4 : memref<64xf32>

// -----

// The exact-trip shape `materialize` emits: `%e = %t + %j * 256` over `%j = 0 to 8`; the loop
// runs over 8 / 4 trips and the accesses take `%e * 4`. Declined: 2 trips (not a multiple of 4).
kernel.func @k_exact(%x: memref<4x2048xf32>, %y: memref<4x2048xf32>, %z: memref<4x512xf32>, %u: memref<4x512xf32>) grid [4, 1, 1] block [256, 1, 1] smem 0 {
  %c256 = arith.constant 256 : index
  %b = kernel.block_id x
  %t = kernel.thread_id x
  kernel.for %j = 0 to 8 step 1 unroll {
    %m = arith.muli %j, %c256 : index
    %e = arith.addi %t, %m : index
    %v = kernel.load %x[%b, %e] : memref<4x2048xf32>
    %r = arith.maximumf %v, %v : f32
    kernel.store %r, %y[%b, %e] : memref<4x2048xf32>
  }
  kernel.for %k = 0 to 2 step 1 {
    %m2 = arith.muli %k, %c256 : index
    %e2 = arith.addi %t, %m2 : index
    %w = kernel.load %z[%b, %e2] : memref<4x512xf32>
    kernel.store %w, %u[%b, %e2] : memref<4x512xf32>
  }
}
// CHECK-LABEL: kernel.func @k_exact
// CHECK:         kernel.for %j = 0 to 2 step 1 unroll {
// CHECK-NEXT:      %m = arith.muli %j, %c256 : index
// CHECK-NEXT:      %e = arith.addi %t, %m : index
// CHECK-NEXT:      %v = kernel.load %x[%b, %e * 4] vector 4 : memref<4x2048xf32>
// CHECK:           kernel.store %r_v, %y[%b, %e * 4] vector 4 : memref<4x2048xf32>
// CHECK:         kernel.for %k = 0 to 2 step 1 {
// CHECK:           %w = kernel.load %z[%b, %e2] : memref<4x512xf32>

// -----

// Declined: f64 buffers (the vector form is float4 only).
kernel.func @k_f64(%x: memref<64xf64>, %y: memref<64xf64>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.for %i = %t to 64 step 16 {
    %v = kernel.load %x[%i] : memref<64xf64>
    kernel.store %v, %y[%i] : memref<64xf64>
  }
}
// CHECK-LABEL: kernel.func @k_f64
// CHECK:         kernel.for %i = %t to 64 step 16 {
// CHECK-NEXT:      %v = kernel.load %x[%i] : memref<64xf64>

// -----

// A masked load whose mask does not vary with the loop (the row is inside its buffer or not):
// the float4 load keeps the mask.
kernel.func @k_masked_row(%x: memref<3x64xf32>, %y: memref<4x64xf32>) grid [4, 1, 1] block [16, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %in = arith.cmpi ult, %b, %c3 : index
  %r = arith.minsi %b, %c2 : index
  kernel.for %i = %t to 64 step 16 {
    %v = kernel.load %x[%r, %i] if %in : memref<3x64xf32>
    kernel.store %v, %y[%b, %i] : memref<4x64xf32>
  }
}
// CHECK-LABEL: kernel.func @k_masked_row
// CHECK:         kernel.for %i = %t to 16 step 16 {
// CHECK-NEXT:      %v = kernel.load %x[%r, %i * 4] vector 4 if %in : memref<3x64xf32>
// CHECK-NEXT:      kernel.store %v, %y[%b, %i * 4] vector 4 : memref<4x64xf32>
// CUDA-LABEL: void k_masked_row(
// CUDA:         float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
// CUDA-NEXT:    if (in) v = *reinterpret_cast<const float4*>(&x[r * 64 + i * 4]);

// -----

// A store guarded by a condition that does not vary with the loop (a packed row past the last
// row stores nothing): the float4 store keeps the guard.
kernel.func @k_guarded_row(%x: memref<3x8xf32>, %y: memref<3x8xf32>) grid [2, 1, 1] block [4, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lane = arith.remui %t, %c2 : index
  %half = arith.divui %t, %c2 : index
  %b2 = arith.muli %b, %c2 : index
  %row = arith.addi %b2, %half : index
  %in = arith.cmpi ult, %row, %c3 : index
  %r = arith.minsi %row, %c2 : index
  kernel.for %i = %lane to 8 step 2 {
    %v = kernel.load %x[%r, %i] if %in : memref<3x8xf32>
    %w = arith.mulf %v, %v : f32
    %in2 = arith.cmpi ult, %row, %c3 : index
    kernel.if %in2 {
      kernel.store %w, %y[%row, %i] : memref<3x8xf32>
    }
  }
}
// CHECK-LABEL: kernel.func @k_guarded_row
// CHECK:         kernel.for %i = %lane to 2 step 2 {
// CHECK-NEXT:      %v = kernel.load %x[%r, %i * 4] vector 4 if %in : memref<3x8xf32>
// CHECK:           %in2 = arith.cmpi ult, %row, %c3 : index
// CHECK-NEXT:      kernel.if %in2 {
// CHECK-NEXT:        %w_v = kernel.pack %w_x, %w_y, %w_z, %w_w : vector<4xf32>
// CHECK-NEXT:        kernel.store %w_v, %y[%row, %i * 4] vector 4 : memref<3x8xf32>
// CHECK-NEXT:      }
// CUDA-LABEL: void k_guarded_row(
// CUDA:           if (in2) {
// CUDA-NEXT:          float4 w_v = make_float4(w_x, w_y, w_z, w_w);
// CUDA-NEXT:          *reinterpret_cast<float4*>(&y[row * 8 + i * 4]) = w_v;

// -----

// Declined: a store guard whose condition varies with the loop variable (each lane its own).
kernel.func @k_guard_varies(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %n = arith.constant 61 : index
  kernel.for %i = %t to 64 step 16 {
    %v = kernel.load %x[%i] : memref<64xf32>
    %in = arith.cmpi ult, %i, %n : index
    kernel.if %in {
      kernel.store %v, %y[%i] : memref<64xf32>
    }
  }
}
// CHECK-LABEL: kernel.func @k_guard_varies
// CHECK:         kernel.for %i = %t to 64 step 16 {
// CHECK-NEXT:      %v = kernel.load %x[%i] : memref<64xf32>

// -----

// Declined: a guard with an else branch.
kernel.func @k_guard_else(%x: memref<64xf32>, %y: memref<64xf32>, %z: memref<64xf32>) grid [2, 1, 1] block [16, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %c1 = arith.constant 1 : index
  %first = arith.cmpi ult, %b, %c1 : index
  kernel.for %i = %t to 64 step 16 {
    %v = kernel.load %x[%i] : memref<64xf32>
    kernel.if %first {
      kernel.store %v, %y[%i] : memref<64xf32>
    } else {
      kernel.store %v, %z[%i] : memref<64xf32>
    }
  }
}
// CHECK-LABEL: kernel.func @k_guard_else
// CHECK:         kernel.for %i = %t to 64 step 16 {
// CHECK-NEXT:      %v = kernel.load %x[%i] : memref<64xf32>

// -----

// Declined: a masked load indexed by the loop variable (each lane has its own mask).
kernel.func @k_masked(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %n = arith.constant 61 : index
  kernel.for %i = %t to 64 step 16 {
    %in = arith.cmpi ult, %i, %n : index
    %v = kernel.load %x[%i] if %in : memref<64xf32>
    kernel.store %v, %y[%i] : memref<64xf32>
  }
}
// CHECK-LABEL: kernel.func @k_masked
// CHECK:         kernel.for %i = %t to 64 step 16 {
// CHECK-NEXT:      %in = arith.cmpi ult, %i, %n : index
// CHECK-NEXT:      %v = kernel.load %x[%i] if %in : memref<64xf32>

// -----

// Declined: an upper bound that is not a multiple of 4.
kernel.func @k_odd(%x: memref<66xf32>, %y: memref<66xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.for %i = %t to 66 step 16 {
    %v = kernel.load %x[%i] : memref<66xf32>
    kernel.store %v, %y[%i] : memref<66xf32>
  }
}
// CHECK-LABEL: kernel.func @k_odd
// CHECK:         kernel.for %i = %t to 66 step 16 {

// -----

// Declined: an offset of one element (not 16-byte aligned).
kernel.func @k_shift(%x: memref<68xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.for %i = %t to 64 step 16 {
    %v = kernel.load %x[%i + 1] : memref<68xf32>
    kernel.store %v, %y[%i] : memref<64xf32>
  }
}
// CHECK-LABEL: kernel.func @k_shift
// CHECK:         %v = kernel.load %x[%i + 1] : memref<68xf32>

// -----

// Declined: the loop variable indexes rows (a strided, not contiguous, access).
kernel.func @k_col(%x: memref<64x4xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [16, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.for %i = %t to 64 step 16 {
    %v = kernel.load %x[%i, 0] : memref<64x4xf32>
    kernel.store %v, %y[%i] : memref<64xf32>
  }
}
// CHECK-LABEL: kernel.func @k_col
// CHECK:         %v = kernel.load %x[%i, 0] : memref<64x4xf32>

// -----

// Declined: the thread index does not range over the step (threads 64..127 would be missed).
kernel.func @k_step(%x: memref<1024xf32>, %y: memref<1024xf32>) grid [1, 1, 1] block [128, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.for %i = %t to 1024 step 64 {
    %v = kernel.load %x[%i] : memref<1024xf32>
    kernel.store %v, %y[%i] : memref<1024xf32>
  }
}
// CHECK-LABEL: kernel.func @k_step
// CHECK:         kernel.for %i = %t to 1024 step 64 {

// -----

// Declined: each thread re-reads its own smem elements without a barrier, which the new
// thread-to-element assignment would break. The second loop reads %s only and has no conflict
// with a later writer, but the first one conflicts with it.
kernel.func @k_own(%x: memref<256xf32>, %y: memref<256xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<256xf32, #kernel.smem>
  kernel.for %i = %t to 256 step 64 {
    %v = kernel.load %x[%i] : memref<256xf32>
    kernel.store %v, %s[%i] : memref<256xf32, #kernel.smem>
  }
  kernel.for %j = %t to 256 step 64 {
    %w = kernel.load %s[%j] : memref<256xf32, #kernel.smem>
    kernel.store %w, %y[%j] : memref<256xf32>
  }
}
// CHECK-LABEL: kernel.func @k_own
// CHECK:         kernel.for %i = %t to 256 step 64 {
// CHECK:         kernel.for %j = %t to 256 step 64 {

// -----

// Declined: the written buffer is also read at another index in the loop.
kernel.func @k_alias(%x: memref<260xf32>) grid [1, 1, 1] block [1, 1, 1] smem 0 {
  kernel.for %i = 0 to 256 step 1 {
    %v = kernel.load %x[%i + 4] : memref<260xf32>
    kernel.store %v, %x[%i] : memref<260xf32>
  }
}
// CHECK-LABEL: kernel.func @k_alias
// CHECK:         kernel.for %i = 0 to 256 step 1 {

// -----

// A load marked `gather` (vectorize-pointwise's tile.gather: a bias along an odd last dim, read
// at `mod 7`) is read once per lane; the flat views of %x and %y move float4s.
kernel.func @k_gather(%x: memref<224xf32>, %bias: memref<7xf32>, %y: memref<224xf32>) grid [1, 1, 1] block [56, 1, 1] smem 0 {
  %f_v = kernel.thread_id x
  kernel.for %f_l = 0 to 4 step 1 unroll {
    %v = kernel.load %x[%f_v * 4 + %f_l] : memref<224xf32>
    %b = kernel.load %bias[(%f_v * 4 + %f_l) mod 7] gather : memref<7xf32>
    %r = arith.addf %v, %b : f32
    kernel.store %r, %y[%f_v * 4 + %f_l] : memref<224xf32>
  }
}
// CHECK-LABEL: kernel.func @k_gather
// CHECK:         kernel.for %f_l = 0 to 1 step 1 unroll {
// CHECK-NEXT:      %v = kernel.load %x[%f_v * 4 + %f_l * 4] vector 4 : memref<224xf32>
// CHECK:           %b_x = kernel.load %bias[(%f_v * 4 + %{{.*}}) mod 7] gather : memref<7xf32>
// CHECK-NEXT:      %b_y = kernel.load %bias[(%f_v * 4 + %{{.*}}) mod 7] gather : memref<7xf32>
// CHECK-NEXT:      %b_z = kernel.load %bias[(%f_v * 4 + %{{.*}}) mod 7] gather : memref<7xf32>
// CHECK-NEXT:      %b_w = kernel.load %bias[(%f_v * 4 + %{{.*}}) mod 7] gather : memref<7xf32>
// CHECK:           kernel.store %{{.*}}, %y[%f_v * 4 + %f_l * 4] vector 4 : memref<224xf32>
// CUDA-LABEL: void k_gather(
// CUDA:         float4 v = *reinterpret_cast<const float4*>(&x[f_v * 4 + f_l * 4]);
// CUDA:         float b_x = bias[(f_v * 4 + t{{[0-9]+}}) % 7];
// CUDA:         float b_w = bias[(f_v * 4 + t{{[0-9]+}}) % 7];
