// RUN: dpl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per loop-dialect verifier rule.

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 0 {
    }
  }
  func.return
}
// CHECK: 'loop.for' extent must be positive, got 0

// -----

func.func @f(%x: memref<8x8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8x8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %x[%a0] : memref<8x8xf32>
      loop.store %v, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.load' indexes a rank-2 buffer with 1 indices

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %s = loop.for reduce %a1 < 8 -> f32 {
        %v = loop.load %x[%a1] : memref<8xf32>
        loop.store %v, %o[%a1] : memref<8xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'loop.store' inside a reduce loop: reduce loops only accumulate

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %s = loop.for reduce %a1 < 8 -> f32 {
        %v = loop.load %x[%a1] : memref<8xf32>
        loop.yield
      }
    }
  }
  func.return
}
// CHECK: 'loop.for' reduce body must end in 'loop.accumulate'

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %s = loop.for reduce %a1 < 8 -> f64 {
        %v = loop.load %x[%a1] : memref<8xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'loop.for' reduce results must match the types of the accumulated values

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %x[%a0] : memref<8xf32>
      loop.accumulate add %v : f32
    }
  }
  func.return
}
// CHECK: 'loop.accumulate' must terminate a reduce loop

// -----

func.func @f(%x: memref<8xf32>, %y: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %y[%a0] : memref<8xf32>
      loop.store %v, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.load' uses a buffer that is not among its kernel's ins/outs

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %o[%a0] : memref<8xf32>
      loop.store %v, %x[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.store' writes a buffer that is not a kernel out

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %x[%a0] : memref<8xf32>
      %i = arith.fptosi %v : f32 to i32
      loop.store %i, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: operand is used with type f32, but has been previously used or defined with type i32

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) {
    %v = loop.load %x[0] : memref<8xf32>
  }
  func.return
}
// CHECK: 'loop.kernel' @k has no outs

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  %c = arith.constant 1.0 : f32
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      loop.store %c, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.kernel' @k uses an outside value that is not one of its ins/outs

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %s, %t = loop.for reduce %a1 < 8 -> f32, f32 {
        %v = loop.load %x[%a1] : memref<8xf32>
        loop.accumulate add %v : f32
      }
    }
  }
  func.return
}
// CHECK: 'loop.for' reduce results must match the types of the accumulated values

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  "loop.kernel"(%x, %o) <{sym_name = "k", operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%a: index):
    "loop.yield"() : () -> ()
  }) : (memref<8xf32>, memref<8xf32>) -> ()
  func.return
}
// CHECK: 'loop.kernel' body takes no arguments

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = "loop.load"(%x, %a0) <{map = affine_map<()[s0] -> (s0)>}> : (memref<8xf32>, index) -> f32
      loop.store %v, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.load' index map must not have symbols

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = "loop.load"(%x, %a0, %a0) <{map = affine_map<(d0) -> (d0)>}> : (memref<8xf32>, index, index) -> f32
      loop.store %v, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.load' index map takes 1 values but 2 were given

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = "loop.load"(%x, %a0) <{map = affine_map<(d0) -> (d0)>}> : (memref<8xf32>, index) -> f64
    }
  }
  func.return
}
// CHECK: 'loop.load' result type f64 differs from the element type of memref<8xf32>

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    %c = arith.constant 1.0 : f64
    loop.for free %a0 < 8 {
      "loop.store"(%c, %o, %a0) <{map = affine_map<(d0) -> (d0)>}> : (f64, memref<8xf32>, index) -> ()
    }
  }
  func.return
}
// CHECK: 'loop.store' value type f64 differs from the element type of memref<8xf32>

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %s = loop.for reduce %a1 < 8 -> f32 {
        %v = loop.load %x[%a1] : memref<8xf32>
        "loop.accumulate"(%v) <{kinds = [#loop<combine add>, #loop<combine max>]}> : (f32) -> ()
      }
      loop.store %s, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.accumulate' has 2 combiners for 1 values

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    "loop.for"() <{kind = #loop<iter_kind free>, extent = #builtin.int<8>}> ({
    ^bb0(%a0: f32):
      "loop.yield"() : () -> ()
    }) : () -> ()
  }
  func.return
}
// CHECK: 'loop.for' body must take one index induction variable

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    %r = "loop.for"() <{kind = #loop<iter_kind free>, extent = #builtin.int<8>}> ({
    ^bb0(%a0: index):
      "loop.yield"() : () -> ()
    }) : () -> f32
  }
  func.return
}
// CHECK: 'loop.for' free loops have no results

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    "loop.for"() <{kind = #loop<iter_kind free>, extent = #builtin.int<8>}> ({
    ^bb0(%a0: index):
      %v = loop.load %x[%a0] : memref<8xf32>
      loop.accumulate add %v : f32
    }) : () -> ()
  }
  func.return
}
// CHECK: 'loop.accumulate' must terminate a reduce loop

// -----

func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {
    "loop.for"() <{kind = #loop<iter_kind free>, extent = #builtin.int<8>}> ({
    ^bb0(%a0: index):
      "kernel.yield"() : () -> ()
    }) : () -> ()
  }
  func.return
}
// CHECK: 'loop.for' free body must end in 'loop.yield'

// -----

// A view holds its source's element count (12 for 3 x 4, not 8).
func.func @f(%x: memref<3x4xf32>) {
  %v = loop.view %x : memref<3x4xf32> -> memref<8xf32>
  func.return
}
// CHECK: 'loop.view' of 12 elements as 8 (memref<3x4xf32> -> memref<8xf32>)

// -----

// A view keeps the element type.
func.func @f(%x: memref<3x4xf32>) {
  %v = loop.view %x : memref<3x4xf32> -> memref<12xf64>
  func.return
}
// CHECK: 'loop.view' changes the element type or memory space (memref<3x4xf32> -> memref<12xf64>)

// -----

// A view's shapes are static.
func.func @f(%x: memref<?xf32>) {
  %v = loop.view %x : memref<?xf32> -> memref<12xf32>
  func.return
}
// CHECK: 'loop.view' needs static shapes

// -----

// An atomic folds with add, max or min.
func.func @f(%s: memref<8xf32>, %i: memref<8xi64>, %o: memref<4xf32>) {
  loop.kernel @k ins(%s, %i : memref<8xf32>, memref<8xi64>) outs(%o : memref<4xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %s[%a0] : memref<8xf32>
      %id = loop.load %i[%a0] : memref<8xi64>
      %at = arith.index_cast %id : i64 to index
      loop.atomic mul %v, %o[%at] : memref<4xf32>
    }
  }
  func.return
}
// CHECK: 'loop.atomic' supports add, max and min, not mul

// -----

// An atomic folds into a kernel out, which no store of the kernel also writes.
func.func @f(%s: memref<8xf32>, %i: memref<8xi64>, %o: memref<4xf32>) {
  loop.kernel @k ins(%s, %i : memref<8xf32>, memref<8xi64>) outs(%o : memref<4xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %s[%a0] : memref<8xf32>
      %id = loop.load %i[%a0] : memref<8xi64>
      %at = arith.index_cast %id : i64 to index
      loop.atomic add %v, %o[%at] : memref<4xf32>
    }
    loop.for free %a1 < 4 {
      %z = arith.constant 0.0 : f32
      loop.store %z, %o[%a1] : memref<4xf32>
    }
  }
  func.return
}
// CHECK: 'loop.atomic' folds into a buffer that a 'loop.store' of its kernel also writes

// -----

// An atomic is no accumulate: not inside a reduce loop.
func.func @f(%s: memref<8xf32>, %i: memref<8xi64>, %o: memref<4xf32>) {
  loop.kernel @k ins(%s, %i : memref<8xf32>, memref<8xi64>) outs(%o : memref<4xf32>) {
    %r = loop.for reduce %a0 < 8 -> f32 {
      %v = loop.load %s[%a0] : memref<8xf32>
      %id = loop.load %i[%a0] : memref<8xi64>
      %at = arith.index_cast %id : i64 to index
      loop.atomic add %v, %o[%at] : memref<4xf32>
      loop.accumulate add %v : f32
    }
  }
  func.return
}
// CHECK: 'loop.atomic' inside a reduce loop: reduce loops only accumulate


// -----

// Its value has the buffer's element type (the generic form: the custom one takes the type from the buffer).
func.func @f(%x: memref<4xf32>, %o: memref<4xf32>) {
  loop.kernel @k ins(%x : memref<4xf32>) outs(%o : memref<4xf32>) {
    %c = arith.constant 1.0 : f64
    loop.for free %a0 < 4 {
      "loop.atomic"(%c, %o, %a0) <{kind = #loop<combine add>, map = affine_map<(d0) -> (d0)>}> : (f64, memref<4xf32>, index) -> ()
    }
  }
  func.return
}
// CHECK: 'loop.atomic' value type f64 differs from the element type of memref<4xf32>

// -----

// It folds into a kernel out.
func.func @f(%s: memref<8xf32>, %o: memref<4xf32>) {
  loop.kernel @k ins(%s, %o : memref<8xf32>, memref<4xf32>) outs(%s : memref<8xf32>) {
    loop.for free %a0 < 4 {
      %v = loop.load %s[%a0] : memref<8xf32>
      loop.atomic add %v, %o[%a0] : memref<4xf32>
    }
  }
  func.return
}
// CHECK: 'loop.atomic' writes a buffer that is not a kernel out

// -----

func.func @f(%x: memref<8x3xf32>, %o: memref<8xf32>) {
  loop.kernel @k ins(%x : memref<8x3xf32>) outs(%o : memref<8xf32>) {
    loop.for free %a0 < 8 {
      %v = loop.load %x[%a0, %a0 mod 0] : memref<8x3xf32>
      loop.store %v, %o[%a0] : memref<8xf32>
    }
  }
  func.return
}
// CHECK: 'loop.load' index map divides by 0 in (d0 mod 0): a divisor must be a positive constant
