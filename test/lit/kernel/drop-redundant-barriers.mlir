// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(drop-redundant-barriers)' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='builtin.module(drop-redundant-barriers)' | dpl-translate --to-cuda | filecheck %s --check-prefix=CUDA
// drop-redundant-barriers: a barrier goes when no write on one side of it (back to the previous
// barrier, up to the next) meets an access of the same buffer on the other side.

// Kept: the fill's writes are read by other threads after the barrier. Dropped: the barrier at
// the start (nothing before it), the second of two consecutive barriers, the one at the end.
kernel.func @k_fill(%x: memref<256xf32>, %y: memref<256xf32>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<256xf32, #kernel.smem>
  kernel.barrier
  %v = kernel.load %x[%t] : memref<256xf32>
  kernel.store %v, %s[%t] : memref<256xf32, #kernel.smem>
  kernel.barrier
  kernel.barrier
  %r = kernel.load %s[255 - %t] : memref<256xf32, #kernel.smem>
  kernel.store %r, %y[%t] : memref<256xf32>
  kernel.barrier
}
// CHECK-LABEL: kernel.func @k_fill
// CHECK:         %s = kernel.smem : memref<256xf32, #kernel.smem>
// CHECK-NEXT:    %v = kernel.load %x[%t] : memref<256xf32>
// CHECK-NEXT:    kernel.store %v, %s[%t] : memref<256xf32, #kernel.smem>
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %r = kernel.load %s[{{.*}}] : memref<256xf32, #kernel.smem>
// CHECK-NEXT:    kernel.store %r, %y[%t] : memref<256xf32>
// CHECK-NEXT:  }

// CUDA-LABEL: void k_fill(
// CUDA-COUNT-1: __syncthreads();
// CUDA-NOT:     __syncthreads();
// CUDA:         }

// -----

// Dropped: only reads on both sides (read-read needs no order), and a write of one buffer
// against a read of another. Kept: the write-after-read of %s (other threads may still read it).
kernel.func @k_rw(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  %u = kernel.smem : memref<64xf32, #kernel.smem>
  %v = kernel.load %x[%t] : memref<64xf32>
  kernel.store %v, %s[%t] : memref<64xf32, #kernel.smem>
  kernel.barrier
  %a = kernel.load %s[63 - %t] : memref<64xf32, #kernel.smem>
  kernel.barrier
  %b = kernel.load %s[%t] : memref<64xf32, #kernel.smem>
  kernel.store %b, %u[%t] : memref<64xf32, #kernel.smem>
  kernel.barrier
  kernel.store %a, %s[%t] : memref<64xf32, #kernel.smem>
  kernel.store %b, %y[%t] : memref<64xf32>
}
// CHECK-LABEL: kernel.func @k_rw
// CHECK:         kernel.store %v, %s[%t] : memref<64xf32, #kernel.smem>
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %a = kernel.load %s[{{.*}}] : memref<64xf32, #kernel.smem>
// CHECK-NEXT:    %b = kernel.load %s[%t] : memref<64xf32, #kernel.smem>
// CHECK-NEXT:    kernel.store %b, %u[%t] : memref<64xf32, #kernel.smem>
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    kernel.store %a, %s[%t] : memref<64xf32, #kernel.smem>

// -----

// Loops: in a loop body the edges of the body count as touching everything, so the barriers
// that order the loop's iterations stay; of two consecutive ones the second goes. A loop whose
// body writes shared memory keeps the barrier after it.
kernel.func @k_loop(%x: memref<4x64xf32>, %y: memref<4x64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %c0 = arith.constant 0.0 : f32
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  kernel.for %r = 0 to 4 step 1 {
    %v = kernel.load %x[%r, %t] : memref<4x64xf32>
    kernel.store %v, %s[%t] : memref<64xf32, #kernel.smem>
    kernel.barrier
    kernel.barrier
    %w = kernel.load %s[63 - %t] : memref<64xf32, #kernel.smem>
    kernel.store %w, %y[%r, %t] : memref<4x64xf32>
    kernel.barrier
  }
  kernel.barrier
  kernel.for %c = %t to 64 step 64 {
    kernel.store %c0, %s[%c] : memref<64xf32, #kernel.smem>
  }
  kernel.barrier
  %z = kernel.load %s[63 - %t] : memref<64xf32, #kernel.smem>
  kernel.store %z, %y[0, %t] : memref<4x64xf32>
}
// CHECK-LABEL: kernel.func @k_loop
// CHECK:         kernel.for %r = 0 to 4 step 1 {
// CHECK-NEXT:      %v = kernel.load
// CHECK-NEXT:      kernel.store %v, %s[%t]
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:      %w = kernel.load
// CHECK-NEXT:      kernel.store %w
// CHECK-NEXT:      kernel.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    kernel.for %c
// CHECK-NEXT:      kernel.store
// CHECK-NEXT:    }
// CHECK-NEXT:    kernel.barrier
// CHECK-NEXT:    %z = kernel.load

// -----

// Kept: waiting for cp.async copies completes writes to shared memory that the barrier then
// publishes; dynamic shared buffers may overlap, so a write of one orders a read of another.
kernel.func @k_async(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 512 {
  %t = kernel.thread_id x
  %s = kernel.smem dynamic offset 0 : memref<64xf32, #kernel.smem>
  %d = kernel.smem dynamic offset 256 : memref<64xf32, #kernel.smem>
  kernel.cp_async %s[%t], %x[%t] bytes 4 : memref<64xf32, #kernel.smem>, memref<64xf32>
  kernel.cp_async_commit
  kernel.cp_async_wait 0
  kernel.barrier
  %v = kernel.load %s[63 - %t] : memref<64xf32, #kernel.smem>
  kernel.store %v, %d[%t] : memref<64xf32, #kernel.smem>
  kernel.barrier
  %w = kernel.load %s[%t] : memref<64xf32, #kernel.smem>
  kernel.store %w, %y[%t] : memref<64xf32>
}
// CHECK-LABEL: kernel.func @k_async
// CHECK:         kernel.cp_async_wait 0
// CHECK-NEXT:    kernel.barrier
// CHECK:         kernel.store %v, %d[%t]
// CHECK-NEXT:    kernel.barrier
