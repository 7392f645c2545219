// RUN: not dpl-translate --to-cuda %s 2>&1 | filecheck %s
// More than 48 KiB of static shared memory is legal IR (dynamic-smem moves it into the
// dynamic buffer) but has no CUDA form: the printer names the kernel.

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.smem : memref<12289xf32, #kernel.smem>
}

// CHECK: dpl-translate: {{.*}}errors_smem.mlir:5:1: error: 'kernel.func' @k declares 49156 bytes of static shared memory, more than CUDA's 49152 (run dynamic-smem)
// CHECK-NOT: Traceback
