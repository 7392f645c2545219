// RUN: not dpl-translate --to-cuda %s 2>&1 | filecheck %s
// RUN: echo "kernel.func @k(" | not dpl-translate --to-cuda 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: echo "func.func @f() { func.return }" | not dpl-translate --manifest 2>&1 | filecheck %s --check-prefix=EMPTY
// IR that does not verify, does not parse, or holds no kernel: one line each.

kernel.func @k(%x: memref<32xf32>, %y: memref<32xf32>) grid [1, 1, 1] block [64, 32, 1] smem 0 {
}

// CHECK: dpl-translate: {{.*}}errors_verify.mlir:6:1: error: 'kernel.func' @k block of 2048 threads exceeds 1024
// CHECK-NOT: Traceback
// PARSE: dpl-translate: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error:
// PARSE-NOT: Traceback
// EMPTY: dpl-translate: error: <stdin>: no 'kernel.func' to translate
