// RUN: dpl compile -c "torch.var_mean(torch.randn(4, 6), 1)" --ir torch | filecheck %s --check-prefix=VM
// RUN: dpl compile -c "torch.nn.InstanceNorm2d(3)(torch.randn(2, 3, 4, 4))" --ir torch | filecheck %s --check-prefix=IN
// RUN: dpl compile -c "torch.nn.functional.scaled_dot_product_attention(torch.randn(1, 2, 5, 8), torch.randn(1, 2, 7, 8), torch.randn(1, 2, 7, 8), attn_mask=torch.rand(5, 7) > 0.5)" --ir torch | filecheck %s --check-prefix=MASK
// RUN: dpl compile -c "torch.cov(torch.randn(4, 50))" --ir torch | filecheck %s --check-prefix=COV
// RUN: not dpl compile -c "torch.nn.functional.batch_norm(torch.randn(2, 4), torch.zeros(4), torch.ones(4), training=True)" --ir torch 2>&1 | filecheck %s --check-prefix=TRAIN
// var_mean, InstanceNorm's batch statistics and an input bool attn_mask, each as handled ops;
// batch statistics of a training-mode batch_norm stay a one-line error.

// var_mean: a var (correction 1) and a mean over the same dims.
// VM:      %0 = torch.var %x {correction = 1.000000e+00 : f64, dims = [1], keepdim = false}
// VM-NEXT: %1 = torch.mean %x {dims = [1], keepdim = false}
// VM-NEXT: func.return %0, %1

// InstanceNorm: its decomposition's (1, N C, h, w) view, a group norm with a group per channel.
// IN:      %view = torch.reshape %x : (tensor<2x3x4x4xf32>) -> tensor<1x6x4x4xf32>
// IN-NEXT: torch.group_norm %view {eps = 1.000000e-05 : f64, num_groups = 6}
// IN-NOT:  batch_norm

// An input bool mask: where(mask, 0, -1e30), added to the scores.
// MASK:      %gt = torch.gt %u
// MASK:      %[[ADD:.*]] = torch.where %gt, %{{.*}}, %{{.*}} : (tensor<5x7xi1>, tensor<f32>, tensor<f32>) -> tensor<5x7xf32>
// MASK-NEXT: torch.scaled_dot_product_attention %x, %y, %z, %[[ADD]]

// batch_norm in training mode with running statistics (it would update them) is refused; without
// them (a BatchNorm of track_running_stats=False) it is its batch statistics (export_rewrites)
// TRAIN: dpl: error: unsupported batch_norm in training mode (call .eval() first) (at <expression>)

// cov: torch.export cannot trace PyTorch's (a data-dependent aten.equal); export_rewrites
// answers it with the deviations' product over N - 1.
// COV:      %mean = torch.mean %x {dims = [1], keepdim = true}
// COV-NEXT: %sub = torch.sub %x, %mean
// COV-NEXT: %transpose = torch.transpose %sub {dim0 = 0, dim1 = 1}
// COV-NEXT: %matmul = torch.matmul %sub, %transpose : (tensor<4x50xf32>, tensor<50x4xf32>) -> tensor<4x4xf32>
// COV:      torch.constant {value = dense<4.900000e+01> : tensor<f32>}
