// RUN: dpl compile --model tinyllama-layer --seq 16 --ir loop | filecheck %s
// RUN: dpl compile --model qwen2.5-7b-layer --seq 16 --ir loop | filecheck %s
// A Llama / Qwen2 decoder layer fuses to 12 loop kernels (one per op would be ~100): the norm's
// row sum, q/k/v projections with the norm as prologue, rotary for q and k (concat stays a
// kernel), scores, softmax fused into P@V, o-projection with the residual add, gate and up
// projections with the second norm as prologue, down projection with silu*up as prologue and the
// residual add as epilogue.

// CHECK-COUNT-12: loop.kernel @
// CHECK-NOT:      loop.kernel @
