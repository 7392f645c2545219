// RUN: not dpl-opt %s -p 'async-copy{target=sm_91x}' 2>&1 | filecheck %s
// RUN: not dpl-opt %s -p 'tma-copy{target=hopper}' 2>&1 | filecheck %s --check-prefix=NAME
// A malformed target option of the target-dependent tile passes ends in one line, not a
// traceback (the same parser serves async-copy and tma-copy).

func.func @main() {
  func.return
}

// CHECK: dpl-opt: error: bad target 'sm_91x': expected sm_<compute capability> such as sm_80, sm_90 or sm_120
// CHECK-NOT: Traceback
// NAME: dpl-opt: error: bad target 'hopper': expected sm_<compute capability>
// NAME-NOT: Traceback
