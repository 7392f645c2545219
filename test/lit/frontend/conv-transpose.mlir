// RUN: dpl compile -c "torch.nn.functional.conv_transpose1d(torch.randn(2, 4, 5), torch.randn(4, 3, 4), torch.randn(3), stride=2, padding=1)" --ir torch | filecheck %s
// RUN: dpl compile -c "torch.nn.functional.conv_transpose1d(torch.randn(2, 4, 5), torch.randn(4, 3, 4), stride=2, dilation=2)" --ir torch | filecheck %s --check-prefix=DIL
// A transposed convolution of stride s (here 2, kernel 4, padding 1) is one stride-1
// convolution over all output phases: output phase r (o = 2q + r) takes the taps 1, 3 (r = 0)
// or 0, 2 (r = 1) of the weight; a window of 3 offsets holds both, zeros where a phase has no
// tap. Its 2 x 3 output channels (phase, channel) are interleaved by a permutation. Before, the
// input with a zero between its elements was convolved with all 4 taps (2x the multiply-adds).
// Dilated, it still is (declined).

// CHECK:      torch.slice %{{.*}} {dim = 2, end = 3, start = 0, step = 2}
// CHECK:      torch.slice %{{.*}} {dim = 2, end = 4, start = 1, step = 2}
// CHECK:      torch.convolution %x, %{{.*}}, %{{.*}} {dilation = [1], groups = 1, padding = [1], stride = [1]} : (tensor<2x4x5xf32>, tensor<6x4x3xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
// CHECK:      torch.reshape %{{.*}} : (tensor<2x6x5xf32>) -> tensor<2x1x2x3x5xf32>
// CHECK-NEXT: torch.permute %{{.*}} {dims = [0, 1, 3, 4, 2]} : (tensor<2x1x2x3x5xf32>) -> tensor<2x1x3x5x2xf32>
// CHECK-NEXT: %conv_transpose1d = torch.reshape %{{.*}} : (tensor<2x1x3x5x2xf32>) -> tensor<2x3x10xf32>

// DIL:      torch.cat
// DIL:      %conv_transpose1d = torch.convolution %{{.*}}, %{{.*}} {dilation = [2], groups = 1, padding = [0], stride = [1]} : (tensor<2x4x21xf32>, tensor<3x4x4xf32>) -> tensor<2x3x15xf32>
