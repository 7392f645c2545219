"""Hugging Face decoder models for dpl, built from configs shipped here (nothing is downloaded).

    decoder_layer("tinyllama", seq=16, dtype=torch.float64, seed=0) -> (module, (hidden, cos, sin))
    model("qwen2.5-7b", num_layers=2, seq=16) -> (causal_lm, (input_ids,))

`decoder_layer` wraps one HF decoder layer (`attn_implementation="sdpa"`, `attention_mask=None`,
so SDPA runs causal) in a module whose `forward(hidden_states, cos, sin)` returns the new hidden
states; cos/sin are the rotary tables the HF model would compute for positions 0..seq-1.
`model` builds the whole `*ForCausalLM` with random weights; `num_layers` overrides the depth.
With `device="meta"` no weights are allocated (for printing the IR of the full models).
"""

from __future__ import annotations

import torch
from torch import nn

CONFIGS: dict[str, dict] = {
    # TinyLlama/TinyLlama-1.1B-Chat-v1.0
    "tinyllama": dict(
        model_type="llama",
        hidden_size=2048,
        num_hidden_layers=22,
        num_attention_heads=32,
        num_key_value_heads=4,
        intermediate_size=5632,
        rms_norm_eps=1e-5,
        rope_theta=10000.0,
        vocab_size=32000,
        max_position_embeddings=2048,
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_bias=False,
    ),
    # Qwen/Qwen2.5-7B
    "qwen2.5-7b": dict(
        model_type="qwen2",
        hidden_size=3584,
        num_hidden_layers=28,
        num_attention_heads=28,
        num_key_value_heads=4,
        intermediate_size=18944,
        rms_norm_eps=1e-6,
        rope_theta=1000000.0,
        vocab_size=152064,
        max_position_embeddings=131072,
        hidden_act="silu",
        tie_word_embeddings=False,
    ),
}

ALIASES = {
    "tinyllama-1.1b": "tinyllama",
    "TinyLlama/TinyLlama-1.1B-Chat-v1.0": "tinyllama",
    "qwen2.5": "qwen2.5-7b",
    "Qwen/Qwen2.5-7B": "qwen2.5-7b",
}


def _key(name: str) -> str:
    key = ALIASES.get(name, name)
    if key not in CONFIGS:
        raise ValueError(f"unknown model '{name}' (known: {', '.join(sorted(CONFIGS))})")
    return key


def config(name: str, num_layers: int | None = None):
    """The transformers config object for `name` (sdpa attention)."""
    from transformers import LlamaConfig, Qwen2Config

    values = dict(CONFIGS[_key(name)])
    kind = values.pop("model_type")
    if num_layers is not None:
        values["num_hidden_layers"] = num_layers
    cls = LlamaConfig if kind == "llama" else Qwen2Config
    cfg = cls(**values)
    cfg._attn_implementation = "sdpa"
    return cfg


def _classes(cfg):
    if cfg.model_type == "llama":
        from transformers.models.llama import modeling_llama as m

        return m.LlamaDecoderLayer, m.LlamaRotaryEmbedding, m.LlamaForCausalLM
    from transformers.models.qwen2 import modeling_qwen2 as m

    return m.Qwen2DecoderLayer, m.Qwen2RotaryEmbedding, m.Qwen2ForCausalLM


def _wrapped_layer_class(layer_cls: type[nn.Module]) -> type[nn.Module]:
    """The HF layer class with `forward(hidden_states, cos, sin) -> hidden_states`.

    A subclass rather than a wrapper module, so parameters keep HF's names
    (`self_attn.q_proj.weight` -> argument `p_self_attn_q_proj_weight`).
    """

    class DecoderLayer(layer_cls):  # type: ignore[misc, valid-type]
        def forward(self, hidden_states, cos, sin):  # type: ignore[override]
            out = super().forward(
                hidden_states, attention_mask=None, position_embeddings=(cos, sin)
            )
            return out[0] if isinstance(out, tuple) else out

    DecoderLayer.__name__ = DecoderLayer.__qualname__ = layer_cls.__name__
    return DecoderLayer


def rotary_tables(cfg, seq: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin of shape [1, seq, head_dim] for positions 0..seq-1, as the HF model makes them."""
    _, rotary_cls, _ = _classes(cfg)
    rope = rotary_cls(config=cfg)
    x = torch.zeros(1, seq, 1, dtype=dtype)
    cos, sin = rope(x, torch.arange(seq)[None, :])
    return cos.to(dtype), sin.to(dtype)


def decoder_layer(
    name: str, seq: int = 16, dtype: torch.dtype = torch.float32, seed: int = 0
) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """A random-weight decoder layer of model `name` and inputs (hidden [1,seq,H], cos, sin)."""
    cfg = config(name)
    layer_cls, _, _ = _classes(cfg)
    torch.manual_seed(seed)
    layer = _wrapped_layer_class(layer_cls)(cfg, layer_idx=0)
    with torch.no_grad():
        for p in layer.parameters():
            # HF leaves norm weights at 1 and linears at kaiming; perturb so every weight matters.
            if p.dim() == 1:
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            else:
                p.normal_(0.0, 0.02)
    module = layer.to(dtype).eval()
    hidden = torch.randn(1, seq, cfg.hidden_size, dtype=dtype)
    cos, sin = rotary_tables(cfg, seq, dtype)
    return module, (hidden, cos, sin)


class CausalLM(nn.Module):
    """`forward(input_ids) -> logits` of a HF causal LM (no cache, no mask: causal SDPA)."""

    def __init__(self, lm: nn.Module):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids: torch.Tensor):
        return self.lm(input_ids=input_ids, use_cache=False).logits


def model(
    name: str,
    num_layers: int | None = None,
    seq: int = 16,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """The whole causal LM `name` with random weights and an input_ids [1, seq] example."""
    cfg = config(name, num_layers)
    _, _, lm_cls = _classes(cfg)
    torch.manual_seed(seed)
    with torch.device(device):
        lm = lm_cls(cfg).to(dtype).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, seq), device=device)
    return CausalLM(lm), (ids,)
