// RUN: dpl compile -c "torch.randn(4, 5).view(torch.int32) >> 23" --ir torch | filecheck %s --check-prefix=BITS
// RUN: dpl compile -c "torch.randn(4, 5).view(torch.int32)" --ir tensor | filecheck %s --check-prefix=TENSOR
// RUN: dpl compile -c "torch.randn(4, 5).view(20)" --ir torch | filecheck %s --check-prefix=SHAPE
// RUN: not dpl compile -c "torch.randn(4, 6).view(torch.float16)" 2>&1 | filecheck %s --check-prefix=WIDTH-ERR
// view(dtype) reads the same bits as another dtype (torch.bitcast), where a value conversion
// (torch.to_dtype) would give other numbers; view(shape) stays a reshape.

// BITS:      %view = torch.bitcast %x : (tensor<4x5xf32>) -> tensor<4x5xi32>
// BITS-NEXT: torch.constant {value = dense<23> : tensor<i32>}
// BITS-NEXT: torch.bitwise_right_shift %view
// BITS-NOT:  torch.to_dtype

// decompose-elementwise: one arith.bitcast per element.
// TENSOR:      tensor.elementwise ins(%x : tensor<4x5xf32>) -> tensor<4x5xi32> {
// TENSOR-NEXT: ^bb0(%a: f32):
// TENSOR-NEXT:   %0 = arith.bitcast %a : f32 to i32
// TENSOR-NEXT:   tensor.yield %0 : i32

// SHAPE: torch.reshape %x : (tensor<4x5xf32>) -> tensor<20xf32>

// Declined: a view to a dtype of another width changes the shape (not supported).
// WIDTH-ERR: dpl: error: unsupported view of a torch.float32 tensor as torch.float16 (bitcasts between 32-bit or between 64-bit types only) (at <expression>)
