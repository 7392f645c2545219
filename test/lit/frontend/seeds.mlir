// RUN: dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir torch | filecheck %s --check-prefix=RMS
// RUN: dpl compile -c "torch.relu(torch.matmul(torch.randn(16,64) + torch.randn(64), torch.randn(64,16)))" --ir torch | filecheck %s --check-prefix=MLP
// RUN: dpl compile -c "torch.nn.Softmax(dim=-1)(torch.randn(1,28,2048,2048))" --ir torch | filecheck %s --check-prefix=SOFTMAX
// RUN: dpl compile -c "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))" --ir torch --dtype f64 | filecheck %s --check-prefix=F64
// The seeds' one-line programs, captured into torch IR.

// RMS: func.func @main(%x: tensor<1x32x2048xf32>, %p_weight: tensor<2048xf32>) -> tensor<1x32x2048xf32> {
// RMS-NEXT: %rms_norm = torch.rms_norm %x, %p_weight {eps = {{.*}} : f64, normalized_rank = 1} : (tensor<1x32x2048xf32>, tensor<2048xf32>) -> tensor<1x32x2048xf32>
// RMS-NEXT: func.return %rms_norm : tensor<1x32x2048xf32>

// MLP: func.func @main(%x: tensor<16x64xf32>, %y: tensor<64xf32>, %z: tensor<64x16xf32>) -> tensor<16x16xf32> {
// MLP-NEXT: %add = torch.add %x, %y : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
// MLP-NEXT: %matmul = torch.matmul %add, %z : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
// MLP-NEXT: %relu = torch.relu %matmul : (tensor<16x16xf32>) -> tensor<16x16xf32>
// MLP-NEXT: func.return %relu : tensor<16x16xf32>

// SOFTMAX: func.func @main(%x: tensor<1x28x2048x2048xf32>) -> tensor<1x28x2048x2048xf32> {
// SOFTMAX-NEXT: %softmax = torch.softmax %x {dim = 3} : (tensor<1x28x2048x2048xf32>) -> tensor<1x28x2048x2048xf32>

// F64: torch.rms_norm %x, %p_weight {{.*}} : (tensor<1x32x2048xf64>, tensor<2048xf64>) -> tensor<1x32x2048xf64>
