// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{arch=sm_80}' | filecheck %s
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target' | filecheck %s --check-prefix=DEFAULT
// RUN: dpl-opt %s --split-input-file --pass-pipeline='set-target{arch=sm_90 sms=114 smem-bytes=65536}' | filecheck %s --check-prefix=PCIE
// RUN: not dpl-opt %s --pass-pipeline='set-target{arch=sm_75}' 2>&1 | filecheck %s --check-prefix=BAD-ARCH
// RUN: not dpl-opt %s --pass-pipeline='set-target{arch=sm_120 smem-bytes=166912}' 2>&1 | filecheck %s --check-prefix=BAD-SMEM
// set-target records the GPU as the module's #kernel.target: the arch's multiprocessors and
// shared memory per block unless given (sm_90 by default). A target already there is replaced
// (the second case). A bad arch, or more shared memory than the arch has, is a one-line error.

func.func @main() {
  func.return
}

// CHECK-LABEL: builtin.module attributes {kernel.target = #kernel.target<sm_80, sms = 108, smem = 166912>}
// DEFAULT-LABEL: builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 132, smem = 232448>}
// PCIE-LABEL: builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 114, smem = 65536>}

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_120, sms = 170, smem = 101376>} {
  func.func @main() {
    func.return
  }
}

// CHECK-LABEL: builtin.module attributes {kernel.target = #kernel.target<sm_80, sms = 108, smem = 166912>}
// DEFAULT-LABEL: builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 132, smem = 232448>}

// BAD-ARCH: dpl-opt: error: set-target: option arch must be one of sm_80, sm_90, sm_120, got sm_75
// BAD-ARCH-NOT: Traceback
// BAD-SMEM: dpl-opt: error: set-target: #kernel.target smem must be in [1, 101376] on sm_120, got 166912
