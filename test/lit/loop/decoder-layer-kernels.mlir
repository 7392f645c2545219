// RUN: dpl compile --model tinyllama-layer --seq 16 --ir loop | filecheck %s
// RUN: dpl compile --model qwen2.5-7b-layer --seq 16 --ir loop | filecheck %s
// A Llama / Qwen2 decoder layer fuses to 13 loop kernels (one per op would be ~100): the norm's
// row sum; q/k/v projections with the norm's scaling as prologue (the row sum is not recomputed
// per output tile); rotate_half of q and of k (concat stays a kernel); scores with rotary as
// prologue; softmax fused into P@V; o-projection (read by two kernels, so computed once); the
// second norm's row sum over the residual; gate and up projections with the second norm as
// prologue; down projection with silu(gate)*up as prologue and both residual adds as epilogue.

// CHECK:      loop.kernel @k_red ins(%hidden_states
// CHECK:      loop.kernel @k_red_1 ins(%p_self_attn_q_proj_weight
// CHECK:      loop.kernel @k_red_2 ins(%p_self_attn_k_proj_weight
// CHECK:      loop.kernel @k_red_3 ins(%p_self_attn_v_proj_weight
// CHECK:      loop.kernel @k_cat ins(%red_1
// CHECK:      loop.kernel @k_cat_1 ins(%red_2
// CHECK:      loop.kernel @k_red_4 ins(%cat, %cat_1
// CHECK:      loop.kernel @k_red_5 ins(%red_3
// CHECK:      loop.kernel @k_red_6 ins(%red_5, %p_self_attn_o_proj_weight
// CHECK:      loop.kernel @k_red_7 ins(%hidden_states, %red_6
// CHECK:      loop.kernel @k_red_8 ins(%p_mlp_gate_proj_weight
// CHECK:      loop.kernel @k_red_9 ins(%p_mlp_up_proj_weight
// CHECK:      loop.kernel @k_add_5 ins(%hidden_states, %red_6, %p_mlp_down_proj_weight
// CHECK-NOT:  loop.kernel @
