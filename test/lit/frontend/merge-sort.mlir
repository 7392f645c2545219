// RUN: dpl compile -c "torch.sort(torch.randn(4, 5000), 1)[0]" --ir torch | filecheck %s
// RUN: dpl compile -c "torch.sort(torch.randn(4, 50), 1)[0]" --ir torch | filecheck %s --check-prefix=BOX
// A long row merges (`_merge_sort`, `_sort_plan`): the floats' bits as integer keys that order as
// the values do, padded to 8192 with the largest key, over their positions; leaves of 64 ranked
// on their own 64 x 64 box and scattered; then a level a doubling (blocks of 128 .. 8192), each
// key placed by a binary search of the other half (gathers) and scattered; the positions are the
// keys' low 32 bits, the first 5000 the order.

// CHECK:      %[[BITS:.*]] = torch.bitcast %{{.*}} : (tensor<4x5000xf32>) -> tensor<4x5000xi32>
// CHECK:      torch.bitwise_right_shift %[[BITS]]
// CHECK:      torch.cat %{{.*}}, %{{.*}} {dim = 1} : (tensor<4x5000xi32>, tensor<4x3192xi32>) -> tensor<4x8192xi32>
// CHECK:      torch.bitwise_left_shift
// CHECK:      torch.sum %{{.*}} {dims = [3], keepdim = false} : (tensor<4x128x64x64xi64>) -> tensor<4x128x64xi64>
// CHECK:      torch.scatter_reduce {{.*}} -> tensor<4x128x64xi64>
// CHECK:      torch.embedding
// CHECK:      torch.scatter_reduce {{.*}} -> tensor<4x64x128xi64>
// CHECK:      torch.scatter_reduce {{.*}} -> tensor<4x32x256xi64>
// CHECK:      torch.scatter_reduce {{.*}} -> tensor<4x1x8192xi64>
// CHECK-NEXT: torch.reshape
// CHECK-NEXT: torch.constant {value = dense<4294967295> : tensor<i64>}
// CHECK-NEXT: torch.bitwise_and
// CHECK-NEXT: torch.slice %{{.*}} {dim = 1, end = 5000, start = 0, step = 1} : (tensor<4x8192xi64>) -> tensor<4x5000xi64>
// CHECK-NOT:  tensor<4x5000x5000x

// Declined: a few short rows stay on the n x n box (one launch), no keys, no scatters.
// BOX:     torch.lt {{.*}} -> tensor<4x50x50xi1>
// BOX-NOT: torch.bitcast
// BOX-NOT: torch.scatter_reduce
