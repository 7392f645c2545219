// RUN: dpl compile -c "torch.randn(4, 5).cumprod(1)" --ir torch | filecheck %s --check-prefix=CUMPROD
// RUN: dpl compile -c "torch.cummax(torch.randn(4, 5), 0)" --ir torch | filecheck %s --check-prefix=CUMMAX
// RUN: dpl compile -c "torch.randn(4, 5).logcumsumexp(1)" --ir torch | filecheck %s --check-prefix=LOGCUMSUMEXP
// RUN: dpl compile -c "torch.randn(2, 7, 3).unfold(1, 3, 2)" --ir torch | filecheck %s --check-prefix=UNFOLD
// RUN: not dpl compile -c "torch.randn(3).sum().unfold(0, 1, 1)" 2>&1 | filecheck %s --check-prefix=UNFOLD-ERR
// RUN: dpl compile -c "torch.topk(torch.randn(4, 5), 2)" --ir torch | filecheck %s --check-prefix=TOPK
// RUN: dpl compile -c "torch.topk(torch.randn(3).sum(), 1)[0]" --ir torch | filecheck %s --check-prefix=TOPK0
// RUN: dpl compile -c "torch.randn(4, 5).scatter_add(1, torch.randint(0, 5, (4, 2)), torch.randn(4, 2))" --ir torch | filecheck %s --check-prefix=SCATTER-ADD
// RUN: dpl compile -c "torch.randn(4, 5).scatter(1, torch.randint(0, 5, (4, 2)), torch.randn(4, 2))" --ir torch | filecheck %s --check-prefix=SCATTER
// RUN: not dpl compile -c "torch.zeros(4, 5).scatter(1, torch.randint(0, 5, (4, 2)), 2.0, reduce='multiply')" 2>&1 | filecheck %s --check-prefix=SCATTER-ERR
// RUN: not dpl compile -c "torch.zeros(4, 5).index_put((torch.ones(4, 5) > 0,), torch.randn(20))" 2>&1 | filecheck %s --check-prefix=PUT-ERR
// RUN: dpl compile -c "torch.nn.functional.one_hot(torch.randint(0, 5, (3,)), 5)" --ir torch | filecheck %s --check-prefix=ONEHOT
// ATen ops written with the torch ops that already lower (frontend/aten.py): before, the ATen op
// (in the RUN line); after, the torch ops it becomes. Each declined use ends in one line.

// cumprod: x[j] where j <= i (two iotas compared, no n x n table), else 1, product over j.
// CUMPROD:      %0 = torch.unsqueeze %x {dim = 1} : (tensor<4x5xf32>) -> tensor<4x1x5xf32>
// CUMPROD:      %3 = torch.le %1, %2 : (tensor<1x1x5xi64>, tensor<1x5x1xi64>) -> tensor<1x5x5xi1>
// CUMPROD:      %5 = torch.where %3, %0, %4 : (tensor<1x5x5xi1>, tensor<4x1x5xf32>, tensor<f32>) -> tensor<4x5x5xf32>
// CUMPROD-NEXT: %cumprod = torch.prod %5 {dims = [2], keepdim = false} : (tensor<4x5x5xf32>) -> tensor<4x5xf32>
// CUMPROD-NOT:  cumprod {

// cummax: the running maximum (identity -inf), then the running maximum of the positions where
// x equals it or is NaN (identity -1 elsewhere): the latest such position, as PyTorch's.
// CUMMAX:      torch.constant {value = dense<0xff800000> : tensor<f32>}
// CUMMAX:      %[[VALUES:.*]] = torch.amax %{{.*}} {dims = [1], keepdim = false} : (tensor<4x4x5xf32>) -> tensor<4x5xf32>
// CUMMAX:      %[[REC:.*]] = torch.eq %x, %[[VALUES]]
// CUMMAX:      %[[NAN:.*]] = torch.isnan %x
// CUMMAX:      torch.logical_or %[[REC]], %[[NAN]]
// CUMMAX:      %[[IDX:.*]] = torch.amax %{{.*}} {dims = [1], keepdim = false} : (tensor<4x4x5xi64>) -> tensor<4x5xi64>
// CUMMAX:      func.return %[[VALUES]], %[[IDX]] : tensor<4x5xf32>, tensor<4x5xi64>

// logcumsumexp: x[j] where j <= i, else -inf, and a logsumexp over j (shifted by that prefix's
// maximum: no overflow).
// LOGCUMSUMEXP:      torch.constant {value = dense<0xff800000> : tensor<f32>}
// LOGCUMSUMEXP:      %[[TERMS:.*]] = torch.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x5x5xi1>, tensor<4x1x5xf32>, tensor<f32>) -> tensor<4x5x5xf32>
// LOGCUMSUMEXP-NEXT: %logcumsumexp = torch.logsumexp %[[TERMS]] {dims = [2], keepdim = false} : (tensor<4x5x5xf32>) -> tensor<4x5xf32>

// unfold: the windows' positions (a constant) picked, split into [windows, size], size moved last.
// UNFOLD:      %0 = torch.constant {value = dense<[0, 1, 2, 2, 3, 4, 4, 5, 6]> : tensor<9xi64>}
// UNFOLD-NEXT: %1 = torch.index_select %x, %0 {dim = 1} : (tensor<2x7x3xf32>, tensor<9xi64>) -> tensor<2x9x3xf32>
// UNFOLD-NEXT: %2 = torch.reshape %1 : (tensor<2x9x3xf32>) -> tensor<2x3x3x3xf32>
// UNFOLD-NEXT: %unfold = torch.permute %2 {dims = [0, 1, 3, 2]} : (tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
// UNFOLD-NOT:  unfold {

// UNFOLD-ERR: dpl: error: unsupported unfold of a 0-d tensor (at <expression>)

// topk (largest): each element's rank, the count of elements before it (x_j > x_i, or NaN over a
// number, or equal with j < i) on the 5 x 5 box; then the index at positions 0 and 1, summed
// where the rank matches, and the values gathered at it.
// TOPK:      %[[XI:.*]] = torch.unsqueeze %x {dim = 2} : (tensor<4x5xf32>) -> tensor<4x5x1xf32>
// TOPK:      %[[XJ:.*]] = torch.unsqueeze %x {dim = 1} : (tensor<4x5xf32>) -> tensor<4x1x5xf32>
// TOPK:      torch.lt %[[XI]], %[[XJ]] : (tensor<4x5x1xf32>, tensor<4x1x5xf32>) -> tensor<4x5x5xi1>
// TOPK:      torch.isnan %x
// TOPK:      %[[RANK:.*]] = torch.sum %{{.*}} {dims = [2], keepdim = false} : (tensor<4x5x5xi64>) -> tensor<4x5xi64>
// TOPK:      torch.iota {dim = 1} : () -> tensor<1x2x1xi64>
// TOPK:      %[[IDX:.*]] = torch.sum %{{.*}} {dims = [2], keepdim = false} : (tensor<4x2x5xi64>) -> tensor<4x2xi64>
// TOPK:      %[[VALS:.*]] = torch.embedding %{{.*}}, %{{.*}} : (tensor<20x1xf32>, tensor<4x2xi64>) -> tensor<4x2x1xf32>
// TOPK:      func.return %{{.*}}, %[[IDX]] : tensor<4x2xf32>, tensor<4x2xi64>
// TOPK-NOT:  topk

// top-k of a 0-d tensor (dim -1 names its one element): over the tensor reshaped to [1]
// (lift_scalar_dims), the result reshaped back to 0-d
// TOPK0:      %[[ONE:.*]] = torch.reshape %sum : (tensor<f32>) -> tensor<1xf32>
// TOPK0:      torch.reshape %{{.*}} : (tensor<1xf32>) -> tensor<f32>
// TOPK0-NEXT: func.return %{{.*}} : tensor<f32>

// scatter_add: one torch.scatter_reduce sum (each source element added at its index: atomics
// on the GPU, work in proportion to the sources, no [p, k] box).
// SCATTER-ADD:      %scatter_add = torch.scatter_reduce %x, %y, %z {dim = 1, reduce = "sum"} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
// SCATTER-ADD-NOT:  torch.eq
// SCATTER-ADD-NOT:  torch.sum

// scatter: the last k that writes each p (the max of k scattered from -1), the source gathered there.
// SCATTER:      %[[K:.*]] = torch.expand %{{.*}} : (tensor<1x2xi64>) -> tensor<4x2xi64>
// SCATTER-NEXT: %[[NONE:.*]] = torch.constant {value = dense<-1> : tensor<4x5xi64>} : () -> tensor<4x5xi64>
// SCATTER-NEXT: %[[LAST:.*]] = torch.scatter_reduce %[[NONE]], %y, %[[K]] {dim = 1, reduce = "amax"} : (tensor<4x5xi64>, tensor<4x2xi64>, tensor<4x2xi64>) -> tensor<4x5xi64>
// SCATTER:      %[[WROTE:.*]] = torch.ge %[[LAST]], %{{.*}} : (tensor<4x5xi64>, tensor<i64>) -> tensor<4x5xi1>
// SCATTER:      torch.embedding %{{.*}}, %{{.*}} : (tensor<8x1xf32>, tensor<4x5xi64>) -> tensor<4x5x1xf32>
// SCATTER:      %scatter = torch.where %[[WROTE]], %{{.*}}, %x : (tensor<4x5xi1>, tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// SCATTER-NOT:  torch.eq

// SCATTER-ERR: dpl: error: unsupported scatter with reduce='multiply' (at <expression>)
// PUT-ERR: dpl: error: unsupported boolean mask index_put (the result's shape depends on the data) (at <expression>)

// one_hot: its classes, an arange the converter folds, are a torch.iota (the loop index; no
// table of positions for the compare to load).
// ONEHOT:      %[[CLASSES:.*]] = torch.iota {dim = 0} : () -> tensor<5xi64>
// ONEHOT-NEXT: torch.eq %{{.*}}, %[[CLASSES]] : (tensor<3x1xi64>, tensor<5xi64>) -> tensor<3x5xi1>
// ONEHOT-NOT:  torch.constant
