// RUN: dpl compile --model tinyllama-layer --seq 16 --ir loop | filecheck %s
// RUN: dpl compile --model qwen2.5-7b-layer --seq 16 --ir loop | filecheck %s
// A Llama / Qwen2 decoder layer fuses to 14 loop kernels (one per op would be ~100): the norm's
// row sum; q/k/v projections with the norm's scaling as prologue (the row sum is not recomputed
// per output tile); rotate_half of q and of k (concat stays a kernel) and the rotary embedding
// of each (too many loads to be the scores' prologue); the attention as one kernel (fuse-attention:
// the scores, softmax and P@V as one attn.softmax_reduce, the KV head shared by its query heads);
// o-projection (read by two kernels, so computed once; the attention output [.., 1, 64] as a
// view without its unit dim); the second norm with its residual add; the gate projection; the up projection
// with silu(gate)*up as epilogue (never two matmuls in one kernel); the down projection with
// both residual adds as epilogue.

// CHECK:      loop.kernel @k_red ins(%hidden_states
// CHECK:      loop.kernel @k_red_1 ins(%p_self_attn_q_proj_weight
// CHECK:      loop.kernel @k_red_2 ins(%p_self_attn_k_proj_weight
// CHECK:      loop.kernel @k_red_3 ins(%p_self_attn_v_proj_weight
// CHECK:      loop.kernel @k_cat ins(%red_1
// CHECK:      loop.kernel @k_add ins(%cat,
// CHECK:      loop.kernel @k_cat_1 ins(%red_2
// CHECK:      loop.kernel @k_add_1 ins(%cat_1,
// CHECK:      loop.kernel @k_red_5 ins(%add, %add_1, %red_3
// CHECK:        attn.softmax_reduce < 16 -> f32 score {
// CHECK:      loop.kernel @k_red_6 ins(%red_6, %p_self_attn_o_proj_weight
// CHECK:      loop.kernel @k_mul_7 ins(%p_post_attention_layernorm_weight, %hidden_states, %red_5 :
// CHECK:      loop.kernel @k_red_8 ins(%mul, %p_mlp_gate_proj_weight :
// CHECK:      loop.kernel @k_mul_8 ins(%red_7, %mul, %p_mlp_up_proj_weight :
// CHECK:      loop.kernel @k_add_3 ins(%hidden_states, %red_5, %mul_1, %p_mlp_down_proj_weight :
// CHECK-NOT:  loop.kernel @
