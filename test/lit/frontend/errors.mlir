// RUN: not dpl compile -c "torch.repeat_interleave(torch.randn(3), torch.tensor([1, 0, 2]))" 2>&1 | filecheck %s --check-prefix=REPEAT
// RUN: not dpl compile -c "torch.fft.rfft(torch.randn(8209)).abs()" 2>&1 | filecheck %s --check-prefix=FFT
// RUN: not dpl compile -c "torch.nn.functional.max_unpool2d(torch.randn(2, 3, 4), torch.randint(0, 40, (2, 3, 4)), 2, output_size=(6, 8))" 2>&1 | filecheck %s --check-prefix=UNPOOL
// RUN: not dpl compile -c "torch.randn(4" 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not dpl compile --model nope 2>&1 | filecheck %s --check-prefix=MODEL
// RUN: not dpl compile -c "torch.randn(4)" --pipeline no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// User errors end in one line.

// REPEAT: dpl: error: unsupported repeat_interleave with tensor repeats and no output_size (the result's shape depends on the data: pass output_size) (at <expression>)
// REPEAT-NOT: Traceback
// FFT: dpl: error: unsupported fft of 8209 points: its prime factor 8209 is past 4096 {{.*}} (at <expression>)
// FFT-NOT: Traceback
// SYNTAX: dpl: error: <expression>: SyntaxError
// MODEL: dpl: error: unknown model 'nope'
// PASS: dpl: error: pass 'no-such-pass' does not exist (yet)

// UNPOOL: dpl: error: unsupported max_unpool2d of a rank-3 input (batched [N, C, ...] only) (at <expression>)
