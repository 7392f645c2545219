// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per kernel-dialect verifier rule.
kernel.func @k(%x: memref<64xf32>) grid [0, 1, 1] block [64, 1, 1] smem 0 {
}
// CHECK: 'kernel.func' @k grid must be three positive extents

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1] smem 0 {
}
// CHECK: 'kernel.func' @k block must be three positive extents

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 32, 1] smem 0 {
}
// CHECK: 'kernel.func' @k block of 2048 threads exceeds 1024

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem -16 {
}
// CHECK: 'kernel.func' @k dynamic shared memory must be non-negative

// -----

kernel.func @k(%x: memref<64xf32>) grid [2147483648, 1, 1] block [64, 1, 1] smem 0 {
}
// CHECK: 'kernel.func' @k grid x of 2147483648 exceeds the target's 2147483647

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 65536, 1] block [64, 1, 1] smem 0 {
}
// CHECK: 'kernel.func' @k grid y of 65536 exceeds the target's 65535

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [1, 1, 128] smem 0 {
}
// CHECK: 'kernel.func' @k block z of 128 exceeds the target's 64

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 100000000000000000000000 {
}
// CHECK: 'kernel.func' @k uses 100000000000000000000000 bytes of shared memory, more than the target's 232448 per block

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 index_bits 16 {
}
// CHECK: 'kernel.func' @k index_bits must be 32 or 64, got 16

// -----

kernel.func @k(%x: memref<64xf32, #kernel.smem>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
}
// CHECK: 'kernel.func' @k arguments must be statically shaped global memrefs or scalars

// -----

func.func @f() {
  %t = kernel.thread_id x
  func.return
}
// CHECK: 'kernel.thread_id' must be inside a 'kernel.func'

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.for %i = %t to 64 step 0 {
  }
}
// CHECK: 'kernel.for' step must be positive, got 0

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  kernel.for %i = 0 to 64 step 1 unroll -2 {
  }
}
// CHECK: 'kernel.for' unroll factor must be positive (or absent for full), got -2

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.for %i = 0 to 64 step 1 -> f32 {
    kernel.yield
  }
}
// CHECK: 'kernel.for' with results must end its body in 'kernel.accumulate'

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.for %i = 0 to 64 step 1 -> f64 {
    %v = kernel.load %x[%i] : memref<64xf32>
    kernel.accumulate add %v : f32
  }
}
// CHECK: 'kernel.for' results must match the types of the accumulated values

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  kernel.for %i = 0 to 64 step 1 {
    %v = kernel.load %x[%i] : memref<64xf32>
    kernel.accumulate add %v : f32
  }
}
// CHECK: 'kernel.accumulate' must end a 'kernel.for' with results

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.for %i = 0 to 64 step 1 -> f32 {
    %v = kernel.load %x[%i] : memref<64xf32>
    "kernel.accumulate"(%v, %v) <{kinds = [#loop<combine add>]}> : (f32, f32) -> ()
  }
}
// CHECK: 'kernel.accumulate' has 1 combiners for 2 values

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.smem : memref<64xf32>
}
// CHECK: 'kernel.smem' result must be a memref in the #kernel.smem memory space

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.smem : memref<?xf32, #kernel.smem>
}
// CHECK: 'kernel.smem' buffers must have a static shape

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 64 {
  %s = kernel.smem dynamic offset 8 : memref<4xf32, #kernel.smem>
}
// CHECK: 'kernel.smem' dynamic offset must be a non-negative multiple of 16, got 8

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 128 {
  %s = kernel.smem dynamic offset 0 : memref<64xf32, #kernel.smem>
}
// CHECK: 'kernel.smem' dynamic buffer ends at byte 256, past the kernel's 128 bytes of dynamic shared memory

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %r = kernel.alloca : memref<4xf32, #kernel.smem>
}
// CHECK: 'kernel.alloca' register arrays have a static shape and no memory space

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t, 0] : memref<64xf32>
}
// CHECK: 'kernel.load' indexes its rank-1 buffer with 2 indices

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = "kernel.load"(%x, %t) <{map = affine_map<()[s0, s1] -> (s0 + s1)>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<64xf32>, index) -> f32
}
// CHECK: 'kernel.load' index map takes 2 values but 1 were given

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = "kernel.load"(%x, %t) <{map = affine_map<()[s0] -> (s0)>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<64xf32>, index) -> f64
}
// CHECK: 'kernel.load' result type f64 differs from the element type of memref<64xf32>

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %c = arith.constant 1.0 : f64
  "kernel.store"(%c, %y, %t) <{map = affine_map<()[s0] -> (s0)>}> : (f64, memref<64xf32>, index) -> ()
}
// CHECK: 'kernel.store' value type f64 differs from the element type of memref<64xf32>

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %m = memref.alloca() : memref<64xf32>
  %v = kernel.load %m[%t] : memref<64xf32>
}
// CHECK: 'kernel.load' buffer must be a kernel argument, a 'kernel.smem' or a 'kernel.alloca'

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  kernel.cp_async %s[%t], %x[%t] bytes 12 : memref<64xf32, #kernel.smem>, memref<64xf32>
}
// CHECK: 'kernel.cp_async' copies 4, 8 or 16 bytes, got 12

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  kernel.cp_async %y[%t], %x[%t] bytes 4 : memref<64xf32>, memref<64xf32>
}
// CHECK: 'kernel.cp_async' destination must be shared memory

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  %u = kernel.smem : memref<64xf32, #kernel.smem>
  kernel.cp_async %s[%t], %u[%t] bytes 4 : memref<64xf32, #kernel.smem>, memref<64xf32, #kernel.smem>
}
// CHECK: 'kernel.cp_async' source must be a global kernel argument

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf64, #kernel.smem>
  kernel.cp_async %s[%t], %x[%t] bytes 8 : memref<64xf64, #kernel.smem>, memref<64xf32>
}
// CHECK: 'kernel.cp_async' source and destination element types differ

// -----

kernel.func @k(%z: memref<64xf64>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf64, #kernel.smem>
  kernel.cp_async %s[%t], %z[%t] bytes 4 : memref<64xf64, #kernel.smem>, memref<64xf64>
}
// CHECK: 'kernel.cp_async' byte count must be a multiple of the element size

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  "kernel.cp_async_wait"() <{pending = #builtin.int<-1>}> : () -> ()
}
// CHECK: 'kernel.cp_async_wait' pending group count must be non-negative, got -1

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %s = kernel.shuffle_xor %t, 16 : index
}
// CHECK: 'kernel.shuffle_xor' shuffles 32- or 64-bit scalars, got index

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %c = arith.constant 1.0 : f32
  %s = kernel.shuffle_down %c, 1 width 12 : f32
}
// CHECK: 'kernel.shuffle_down' width must be a power of two up to 32, got 12

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %c = arith.constant 1.0 : f32
  %s = kernel.shuffle_xor %c, 32 : f32
}
// CHECK: 'kernel.shuffle_xor' offset must be in [1, 32), got 32

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  %b = kernel.smem : memref<1xi64, #kernel.smem>
  kernel.tma_load %s[0], %x[0] bytes 8 barrier %b[0] : memref<64xf32, #kernel.smem>, memref<64xf32>, memref<1xi64, #kernel.smem>
}
// CHECK: 'kernel.tma_load' byte count must be a positive multiple of 16, got 8

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.smem : memref<1xi64, #kernel.smem>
  kernel.tma_load %y[0], %x[0] bytes 256 barrier %b[0] : memref<64xf32>, memref<64xf32>, memref<1xi64, #kernel.smem>
}
// CHECK: 'kernel.tma_load' destination must be shared memory

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  %u = kernel.smem : memref<64xf32, #kernel.smem>
  %b = kernel.smem : memref<1xi64, #kernel.smem>
  kernel.tma_load %s[0], %u[0] bytes 256 barrier %b[0] : memref<64xf32, #kernel.smem>, memref<64xf32, #kernel.smem>, memref<1xi64, #kernel.smem>
}
// CHECK: 'kernel.tma_load' source must be global memory

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.smem : memref<2xi32, #kernel.smem>
  kernel.mbarrier_init %b[0] count 1 : memref<2xi32, #kernel.smem>
}
// CHECK: 'kernel.mbarrier_init' barrier must be an i64 'kernel.smem' buffer

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.smem : memref<1xi64, #kernel.smem>
  kernel.mbarrier_init %b[0] count 0 : memref<1xi64, #kernel.smem>
}
// CHECK: 'kernel.mbarrier_init' arrival count must be positive, got 0

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %b = kernel.smem : memref<1xi64, #kernel.smem>
  kernel.mbarrier_arrive_expect_tx %b[0] bytes -4 : memref<1xi64, #kernel.smem>
}
// CHECK: 'kernel.mbarrier_arrive_expect_tx' byte count must be non-negative, got -4

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %c = arith.constant true
  "kernel.if"(%c) ({
    loop.yield
  }, {
  }) : (i1) -> ()
}
// CHECK: 'kernel.if' regions must end in 'kernel.yield'

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  "kernel.for"() <{lb_const = #builtin.int<0>, ub_const = #builtin.int<4>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: index):
    kernel.yield
  }) : () -> ()
}
// CHECK: 'kernel.for' step must be exactly one of an SSA value or a constant

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  "kernel.for"() <{lb_const = #builtin.int<0>, ub_const = #builtin.int<4>, step_const = #builtin.int<1>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: f32):
    kernel.yield
  }) : () -> ()
}
// CHECK: 'kernel.for' body must take one index induction variable

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  "kernel.for"() <{lb_const = #builtin.int<0>, ub_const = #builtin.int<4>, step_const = #builtin.int<1>, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
  ^bb0(%i: index):
    loop.yield
  }) : () -> ()
}
// CHECK: 'kernel.for' without results must end in 'kernel.yield'

// -----

func.func @main(%x: memref<4xf32>) {
  kernel.launch @missing(%x) : memref<4xf32>
  func.return
}
// CHECK: 'kernel.launch' @missing names no kernel.func of the module

// -----

kernel.func @k(%x: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
}
func.func @main(%x: memref<8xf32>) {
  kernel.launch @k(%x) : memref<8xf32>
  func.return
}
// CHECK: 'kernel.launch' @k argument types ['memref<8xf32>'] do not match the kernel's ['memref<4xf32>']

// -----

kernel.func @k(%x: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
}
kernel.func @host(%x: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  kernel.launch @k(%x) : memref<4xf32>
}
// CHECK: 'kernel.launch' @k must be inside a func.func (the host program)

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %c = arith.constant 1.0 : f64
  "kernel.atomic"(%c, %x, %t) <{kind = #loop<combine add>, map = affine_map<(d0) -> (d0)>}> : (f64, memref<64xf32>, index) -> ()
}
// CHECK: 'kernel.atomic' value type f64 differs from the element type of memref<64xf32>

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<64xf32>
  kernel.atomic mul %v, %x[%t] : memref<64xf32>
}
// CHECK: 'kernel.atomic' supports add, max and min, not mul

// -----

kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<64xf32>
  %s = kernel.smem : memref<64xf32, #kernel.smem>
  kernel.atomic add %v, %s[%t] : memref<64xf32, #kernel.smem>
}
// CHECK: 'kernel.atomic' writes a global buffer (a kernel argument)

// -----

// The module's #kernel.target bounds a block's shared memory (sm_80: 163 KiB).
builtin.module attributes {kernel.target = #kernel.target<sm_80, sms = 108, smem = 166912>} {
  kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 200000 {
  }
}
// CHECK: 'kernel.func' @k uses 200000 bytes of shared memory, more than the target's 166912 per block

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_75, sms = 108, smem = 166912>} {
}
// CHECK: #kernel.target arch must be one of sm_80, sm_90, sm_120, got 'sm_75'

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_90, sms = 0, smem = 232448>} {
}
// CHECK: #kernel.target sms must be at least 1, got 0

// -----

builtin.module attributes {kernel.target = #kernel.target<sm_120, sms = 170, smem = 166912>} {
}
// CHECK: #kernel.target smem must be in [1, 101376] on sm_120, got 166912

// -----

// A view must hold the buffer's element count (12 for 3 x 4, not 8).
kernel.func @k(%x: memref<8xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
}
func.func @main(%x: memref<3x4xf32>) {
  kernel.launch @k(%x) : memref<3x4xf32>
  func.return
}
// CHECK: 'kernel.launch' @k argument types ['memref<3x4xf32>'] do not match the kernel's ['memref<8xf32>']

// -----

// A masked load's mask is an i1.
kernel.func @k(%x: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = "kernel.load"(%x, %t, %t) <{map = affine_map<()[s0] -> (s0)>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (memref<64xf32>, index, index) -> f32
}
// CHECK: operand 'mask' at position 2 does not verify

// -----

kernel.func @k(%x: memref<64xf32>, %y: memref<64xf32>) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t floordiv 0] : memref<64xf32>
}
// CHECK: 'kernel.load' index map divides by 0 in (s0 floordiv 0): a divisor must be a positive constant
