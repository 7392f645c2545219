// RUN: not dpl compile -c "torch.mode(torch.randn(4))[0]" 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not dpl compile -c "torch.fft.fft(torch.randn(4))" 2>&1 | filecheck %s --check-prefix=FFT
// RUN: not dpl compile -c "torch.randn(4" 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not dpl compile --model nope 2>&1 | filecheck %s --check-prefix=MODEL
// RUN: not dpl compile -c "torch.randn(4)" --pipeline no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// User errors end in one line.

// MODE: dpl: error: unsupported op aten.mode.default (at <expression>)
// MODE-NOT: Traceback
// FFT: dpl: error: unsupported op aten.fft_fft.default (PyTorch decomposes it into aten._fft_r2c.default) (at <expression>)
// FFT-NOT: Traceback
// SYNTAX: dpl: error: <expression>: SyntaxError
// MODEL: dpl: error: unknown model 'nope'
// PASS: dpl: error: pass 'no-such-pass' does not exist (yet)
