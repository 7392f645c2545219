// RUN: dpl compile -c "torch.randn(2, 3, 4).masked_scatter((torch.randn(2, 3) > 0).unsqueeze(-1).expand(2, 3, 4), torch.randn(6, 4))" --ir torch | filecheck %s --check-prefix=SCATTER
// RUN: dpl compile -c "torch.nn.functional.bilinear(torch.randn(2, 5), torch.randn(2, 4), torch.randn(3, 5, 4), torch.randn(3))" --ir torch | filecheck %s --check-prefix=BILINEAR
// RUN: dpl compile -c "torch.randint(-9, 9, (4,)) // torch.randint(1, 9, (4,))" --ir torch | filecheck %s --check-prefix=FLOORDIV
// RUN: dpl compile -c "torch.div(torch.randint(-9, 9, (4,)), 2, rounding_mode='trunc')" --ir torch | filecheck %s --check-prefix=TRUNCDIV
// RUN: dpl compile -c "torch.nn.functional.rrelu(torch.randn(4), 0.1, 0.3)" --ir torch | filecheck %s --check-prefix=RRELU
// RUN: not dpl compile -c "torch.nn.functional.rrelu(torch.randn(4), training=True)" 2>&1 | filecheck %s --check-prefix=RRELU-ERR
// ATen ops written with the torch ops that already lower (frontend/aten.py): before, the ATen op
// (in the RUN line); after, the torch ops it becomes.

// masked_scatter with a token mask expanded over the hidden dim (a VLM merging image features):
// the count runs over the tokens as set (the unexpanded mask), times the hidden size, plus the
// position in the row; one embedding lookup of the source as a column; where picks.
// SCATTER:      %[[M:.*]] = torch.unsqueeze %gt {dim = 2} : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
// SCATTER:      %[[R:.*]] = torch.reshape %[[M]] : (tensor<2x3x1xi1>) -> tensor<2x3xi1>
// SCATTER-NEXT: %[[I:.*]] = torch.to_dtype %[[R]] : (tensor<2x3xi1>) -> tensor<2x3xi64>
// SCATTER-NEXT: %[[F:.*]] = torch.reshape %[[I]] : (tensor<2x3xi64>) -> tensor<6xi64>
// SCATTER-NEXT: %[[C:.*]] = torch.cumsum %[[F]] {dim = 0} : (tensor<6xi64>) -> tensor<6xi64>
// SCATTER-NEXT: %[[B:.*]] = torch.sub %[[C]], %[[F]]
// SCATTER-NEXT: %[[B3:.*]] = torch.reshape %[[B]] : (tensor<6xi64>) -> tensor<2x3x1xi64>
// SCATTER:      %[[ROW:.*]] = torch.mul %[[B3]], %{{.*}} : (tensor<2x3x1xi64>, tensor<i64>) -> tensor<2x3x1xi64>
// SCATTER-NEXT: %[[IOTA:.*]] = torch.iota {dim = 2} : () -> tensor<1x1x4xi64>
// SCATTER-NEXT: %[[POS:.*]] = torch.add %[[ROW]], %[[IOTA]] : (tensor<2x3x1xi64>, tensor<1x1x4xi64>) -> tensor<2x3x4xi64>
// SCATTER:      %[[CLAMP:.*]] = torch.minimum %[[POS]], %{{.*}}
// SCATTER-NEXT: %[[COL:.*]] = torch.reshape %z : (tensor<6x4xf32>) -> tensor<24x1xf32>
// SCATTER-NEXT: %[[PICK:.*]] = torch.embedding %[[COL]], %[[CLAMP]]
// SCATTER-NEXT: %[[V:.*]] = torch.reshape %[[PICK]]
// SCATTER-NEXT: %masked_scatter = torch.where %[[M]], %[[V]], %x : (tensor<2x3x1xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>

// nn.Bilinear: x1 @ w as an (i, o * j) matrix, times x2 broadcast over o, summed over j.
// BILINEAR:      %[[W:.*]] = torch.permute %z {dims = [1, 0, 2]} : (tensor<3x5x4xf32>) -> tensor<5x3x4xf32>
// BILINEAR-NEXT: %[[W2:.*]] = torch.reshape %[[W]] : (tensor<5x3x4xf32>) -> tensor<5x12xf32>
// BILINEAR-NEXT: %[[MM:.*]] = torch.matmul %x, %[[W2]] : (tensor<2x5xf32>, tensor<5x12xf32>) -> tensor<2x12xf32>
// BILINEAR-NEXT: %[[MM3:.*]] = torch.reshape %[[MM]] : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
// BILINEAR-NEXT: %[[Y:.*]] = torch.reshape %y : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
// BILINEAR-NEXT: %[[P:.*]] = torch.mul %[[MM3]], %[[Y]]
// BILINEAR-NEXT: %[[S:.*]] = torch.sum %[[P]] {dims = [2], keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// BILINEAR-NEXT: %bilinear = torch.add %[[S]], %u

// Integer floor division: (a - remainder(a, b)) / b, whose division (C's, toward zero) is exact;
// trunc rounding is the division itself.
// FLOORDIV:      %[[R:.*]] = torch.remainder %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// FLOORDIV-NEXT: %[[D:.*]] = torch.sub %x, %[[R]]
// FLOORDIV-NEXT: %floor_divide = torch.div %[[D]], %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// TRUNCDIV:      %div = torch.div %x, %{{.*}} : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// TRUNCDIV-NOT:  torch.remainder

// rrelu in inference: leaky_relu with the mean slope; training (random slopes) is refused.
// RRELU:     %rrelu = torch.leaky_relu %x {negative_slope = 2.000000e-01 : f64}
// RRELU-ERR: dpl: error: unsupported rrelu with training=True (random slopes) (at <expression>)
