// RUN: dpl compile -c "torch.nn.functional.grid_sample(torch.randn(1, 2, 5, 7), torch.rand(1, 3, 4, 2) * 2 - 1, align_corners=False)" --ir torch | filecheck %s --check-prefix=GRID
// RUN: dpl compile -c "torch.lgamma(torch.randn(3, 4))" --ir torch | filecheck %s --check-prefix=LGAMMA
// RUN: dpl compile -c "torch.digamma(torch.randn(3, 4))" --ir torch | filecheck %s --check-prefix=DIGAMMA
// RUN: dpl compile -c "torch.randint(-9, 9, (4,)) >> torch.randint(0, 9, (4,))" --ir torch | filecheck %s --check-prefix=SHIFT
// RUN: not dpl compile -c "torch.randint(0, 9, (4,), dtype=torch.uint8) >> 1" 2>&1 | filecheck %s --check-prefix=SHIFT-ERR
// ATen ops written with the torch ops that already lower (frontend/aten.py): before, the ATen op
// (in the RUN line); after, the torch ops it becomes. Each declined use ends in one line
// (PyTorch itself refuses grid_sample's bicubic mode on 5-D input, before dpl sees it).

// grid_sample, bilinear: each spatial dim's two taps along a trailing dim of their own (x's
// along the last), their flat positions one i64 tensor in the output's shape (no flattening),
// one embedding lookup of the input as a column, taps outside the input zeroed, weighted, summed.
// GRID:      %[[X:.*]] = torch.slice %sub {dim = 3, end = 2, start = 1, step = 1}
// GRID:      torch.iota {dim = 4} : () -> tensor<1x1x1x1x2x1xi64>
// GRID:      torch.floor
// GRID:      torch.iota {dim = 5} : () -> tensor<1x1x1x1x1x2xi64>
// GRID:      %[[POS:.*]] = torch.add %{{.*}}, %{{.*}} : (tensor<1x2x3x4x2x1xi64>, tensor<1x1x3x4x1x2xi64>) -> tensor<1x2x3x4x2x2xi64>
// GRID:      %[[IN:.*]] = torch.logical_and %{{.*}}, %{{.*}} : (tensor<1x1x3x4x2x1xi1>, tensor<1x1x3x4x1x2xi1>) -> tensor<1x1x3x4x2x2xi1>
// GRID:      %[[W:.*]] = torch.mul %{{.*}}, %{{.*}} : (tensor<1x1x3x4x2x1xf32>, tensor<1x1x3x4x1x2xf32>) -> tensor<1x1x3x4x2x2xf32>
// GRID:      %[[COL:.*]] = torch.reshape %x : (tensor<1x2x5x7xf32>) -> tensor<70x1xf32>
// GRID-NEXT: %[[PICK:.*]] = torch.embedding %[[COL]], %[[POS]] : (tensor<70x1xf32>, tensor<1x2x3x4x2x2xi64>) -> tensor<1x2x3x4x2x2x1xf32>
// GRID-NEXT: %[[VAL:.*]] = torch.reshape %[[PICK]]
// GRID:      %[[Z:.*]] = torch.where %[[IN]], %[[VAL]], %{{.*}}
// GRID-NEXT: %[[T:.*]] = torch.mul %[[Z]], %[[W]]
// GRID-NEXT: %grid_sampler = torch.sum %[[T]] {dims = [4, 5], keepdim = false} : (tensor<1x2x3x4x2x2xf32>) -> tensor<1x2x3x4xf32>

// lgamma is its own op (math.lgamma: CUDA's lgammaf, as PyTorch's kernel); digamma, which CUDA
// lacks, is written in float64: x shifted up by 8 (1/x + .. + 1/(x + 7) subtracted), the
// asymptotic series by Horner's rule, tan for x < 0.
// LGAMMA:      %lgamma = torch.lgamma %x : (tensor<3x4xf32>) -> tensor<3x4xf32>
// DIGAMMA:     torch.to_dtype %x : (tensor<3x4xf32>) -> tensor<3x4xf64>
// DIGAMMA:     torch.tan
// DIGAMMA-NOT: torch.sum
// DIGAMMA:     %digamma = torch.to_dtype %{{.*}} : (tensor<3x4xf64>) -> tensor<3x4xf32>

// >> on signed integers is its own op (decompose-logic guards the amount as PyTorch does);
// unsigned types, which the IR does not tell apart from signed ones, are declined.
// SHIFT:     %rshift = torch.bitwise_right_shift %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// SHIFT-ERR: dpl: error: unsupported aten.__rshift__.Scalar of torch.uint8 tensors (signed integers only) (at <expression>)
