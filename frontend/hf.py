"""Hugging Face decoder models for dpl, built from configs (nothing is downloaded).

    decoder_layer("tinyllama", seq=16, dtype=torch.float64, seed=0) -> (module, (hidden, cos, sin))
    model("qwen2.5-7b", num_layers=2, seq=16) -> (causal_lm, (input_ids,))
    causal_lm(config("qwen3-0.6b"), device="meta")   # the skeleton: parameters on meta, buffers real
    config_from_dict(json.load(f), where="dir/config.json")      # a checkpoint's config
    reference_logits(lm, input_ids, torch.float64)   # HF's logits, one module at a time

`decoder_layer` wraps one HF decoder layer (`attn_implementation="sdpa"`, `attention_mask=None`,
so SDPA runs causal) in a module whose `forward(hidden_states, cos, sin)` returns the new hidden
states; cos/sin are the rotary tables the HF model would compute for positions 0..seq-1.
`causal_lm` builds the whole `*ForCausalLM` as `forward(input_ids) -> logits` (no cache, no mask:
causal SDPA); its parameter names are HF's, so checkpoint tensors bind by name. With
`device="meta"` only the parameters go to the meta device (no memory, no random init); buffers
such as the rotary `inv_freq` are computed for real, since capture folds the rotary tables from
them. `model` gives it random weights.

The families (`model_type`): llama (TinyLlama), qwen2 (Qwen2.5), qwen3 (per-head q/k norms,
head_dim apart from hidden/heads, tied embeddings on the small ones) and mistral.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
from torch import nn

#: The decoder families dpl captures (config.json's `model_type`).
FAMILIES = ("llama", "qwen2", "qwen3", "mistral")

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
    # Qwen/Qwen3-0.6B: per-head q/k RMSNorm, head_dim 128 with hidden 1024 and 16 heads, tied
    # input and output embeddings
    "qwen3-0.6b": dict(
        model_type="qwen3",
        hidden_size=1024,
        num_hidden_layers=28,
        num_attention_heads=16,
        num_key_value_heads=8,
        head_dim=128,
        intermediate_size=3072,
        rms_norm_eps=1e-6,
        rope_theta=1000000.0,
        vocab_size=151936,
        max_position_embeddings=40960,
        hidden_act="silu",
        tie_word_embeddings=True,
        attention_bias=False,
    ),
    # mistralai/Mistral-7B-v0.3
    "mistral-7b": dict(
        model_type="mistral",
        hidden_size=4096,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=128,
        intermediate_size=14336,
        rms_norm_eps=1e-5,
        rope_theta=1000000.0,
        vocab_size=32768,
        max_position_embeddings=32768,
        hidden_act="silu",
        tie_word_embeddings=False,
        sliding_window=None,
    ),
}

ALIASES = {
    "tinyllama-1.1b": "tinyllama",
    "TinyLlama/TinyLlama-1.1B-Chat-v1.0": "tinyllama",
    "qwen2.5": "qwen2.5-7b",
    "Qwen/Qwen2.5-7B": "qwen2.5-7b",
    "Qwen/Qwen3-0.6B": "qwen3-0.6b",
    "mistralai/Mistral-7B-v0.3": "mistral-7b",
}


def _key(name: str) -> str:
    key = ALIASES.get(name, name)
    if key not in CONFIGS:
        raise ValueError(f"unknown model '{name}' (known: {', '.join(sorted(CONFIGS))})")
    return key


def config(name: str, num_layers: int | None = None):
    """The transformers config object for `name` (sdpa attention)."""
    values = dict(CONFIGS[_key(name)])
    if num_layers is not None:
        values["num_hidden_layers"] = num_layers
    return config_from_dict(values, f"model '{name}'")


def config_from_dict(values: dict, where: str):
    """The transformers config of a config.json's `values` (sdpa attention); a ValueError naming
    `where` if its family is not one dpl captures."""
    from transformers import AutoConfig

    kind = values.get("model_type")
    if kind not in FAMILIES:
        arch = ", ".join(values.get("architectures") or []) or "none named"
        raise ValueError(
            f"{where}: unsupported architecture (model_type '{kind}', architectures: {arch}); "
            f"dpl captures {', '.join(FAMILIES)}"
        )
    values = {k: v for k, v in values.items() if k != "model_type"}
    cfg = AutoConfig.for_model(kind, **values)
    cfg._attn_implementation = "sdpa"
    return cfg


def _modeling(cfg):
    from transformers.models.llama import modeling_llama
    from transformers.models.mistral import modeling_mistral
    from transformers.models.qwen2 import modeling_qwen2
    from transformers.models.qwen3 import modeling_qwen3

    return {
        "llama": (modeling_llama, "Llama"),
        "qwen2": (modeling_qwen2, "Qwen2"),
        "qwen3": (modeling_qwen3, "Qwen3"),
        "mistral": (modeling_mistral, "Mistral"),
    }[cfg.model_type]


def _classes(cfg):
    m, prefix = _modeling(cfg)
    return (
        getattr(m, f"{prefix}DecoderLayer"),
        getattr(m, f"{prefix}RotaryEmbedding"),
        getattr(m, f"{prefix}ForCausalLM"),
    )


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
    name: str, seq: int = 16, dtype: torch.dtype = torch.float32, seed: int = 0, **sizes: int
) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """A random-weight decoder layer of model `name` and inputs (hidden [1,seq,H], cos, sin);
    `sizes` replace config fields (e.g. hidden_size=896: the architecture at a smaller size)."""
    cfg = config(name)
    for key, value in sizes.items():
        if not hasattr(cfg, key):
            raise ValueError(f"decoder_layer: {name}'s config has no {key}")
        setattr(cfg, key, value)
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


_LOGITS_CLASSES: dict[type, type] = {}


def _logits_class(lm_cls: type[nn.Module]) -> type[nn.Module]:
    """The HF `*ForCausalLM` class with `forward(input_ids) -> logits` (no cache; no mask, so
    SDPA runs causal). A subclass rather than a wrapper module, so parameters keep HF's names
    (`model.layers.0.self_attn.q_proj.weight`, as in checkpoints)."""
    if lm_cls not in _LOGITS_CLASSES:

        class CausalLM(lm_cls):  # type: ignore[misc, valid-type]
            def forward(self, input_ids):  # type: ignore[override]
                return super().forward(input_ids=input_ids, use_cache=False).logits

        CausalLM.__name__ = CausalLM.__qualname__ = lm_cls.__name__
        _LOGITS_CLASSES[lm_cls] = CausalLM
    return _LOGITS_CLASSES[lm_cls]


@contextlib.contextmanager
def parameters_on_meta() -> Iterator[None]:
    """Modules built inside put their parameters on the meta device (no memory; their init
    does nothing) and keep their buffers real."""
    register = nn.Module.register_parameter

    def on_meta(module: nn.Module, name: str, param: nn.Parameter | None) -> None:
        register(module, name, param)
        if param is not None and param.device.type != "meta":
            module._parameters[name] = nn.Parameter(param.to("meta"), param.requires_grad)

    nn.Module.register_parameter = on_meta  # type: ignore[method-assign]
    try:
        yield
    finally:
        nn.Module.register_parameter = register  # type: ignore[method-assign]


def causal_lm(cfg, device: str | torch.device = "cpu", dtype: torch.dtype = torch.float32) -> nn.Module:
    """The `*ForCausalLM` of config `cfg` as `forward(input_ids) -> logits`, in eval mode.

    `device="meta"`: parameters on the meta device, buffers computed on the CPU (the skeleton
    dpl captures; weights are bound after compiling). Otherwise HF's random init on `device`.
    """
    _, _, lm_cls = _classes(cfg)
    cls = _logits_class(lm_cls)
    if torch.device(device).type == "meta":
        with parameters_on_meta():
            lm = cls(cfg)
    else:
        with torch.device(device):
            lm = cls(cfg)
    return lm.to(dtype).eval()


def random_weights(
    lm: nn.Module, seed: int = 0, device: str | torch.device = "cpu", dtype: torch.dtype = torch.float32
) -> dict[str, torch.Tensor]:
    """Random weights for causal LM `lm` (a skeleton will do), one per distinct parameter
    (a tied output embedding is the input one): matrices N(0, 0.02) like HF's init, vectors
    (norm weights, biases) 1 + N(0, 0.1) so that every one matters."""
    gen = torch.Generator(device).manual_seed(seed)
    out = {}
    for name, p in lm.named_parameters():
        t = torch.randn(p.shape, generator=gen, device=device, dtype=torch.float32)
        t = t.mul_(0.02) if p.dim() > 1 else t.mul_(0.1).add_(1.0)
        out[name] = t.to(dtype)
    return out


def with_weights(cfg, weights: dict[str, torch.Tensor], device: str | torch.device = "cpu") -> nn.Module:
    """The causal LM of `cfg` using the tensors of `weights` (state-dict names, as from
    `random_weights`) as its parameters, not copies; buffers on `device`."""
    lm = causal_lm(cfg, device="meta", dtype=next(iter(weights.values())).dtype)
    lm.load_state_dict(weights, strict=False, assign=True)
    if getattr(cfg, "tie_word_embeddings", False):
        lm.get_output_embeddings().weight = lm.get_input_embeddings().weight
    missing = [n for n, p in lm.named_parameters() if p.device.type == "meta"]
    if missing:
        raise ValueError(f"with_weights: no tensor '{missing[0]}'")
    return lm.to(device).eval()


def is_causal_lm(module: object) -> bool:
    """Whether `module` is a HF causal LM of a family dpl captures."""
    cfg = getattr(module, "config", None)
    return (
        isinstance(module, nn.Module)
        and getattr(cfg, "model_type", None) in FAMILIES
        and hasattr(module, "lm_head")
        and hasattr(getattr(module, "model", None), "layers")
    )


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
    torch.manual_seed(seed)
    lm = causal_lm(cfg, device, dtype)
    ids = torch.randint(0, cfg.vocab_size, (1, seq), device="cpu" if str(device) == "meta" else device)
    return lm, (ids,)


@torch.no_grad()
def reference_logits(
    lm: nn.Module, input_ids: torch.Tensor, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """HF's logits of causal LM `lm` for `input_ids`, computed in `dtype` one module at a time
    on `input_ids`' device: each module runs HF's own forward with its weights cast to `dtype`
    just for that module (torch.func.functional_call), so a 7B model needs its weights in
    `dtype` one layer at a time, not all at once. The glue is HF's model forward: embed, rotary
    tables, every decoder layer (no mask: causal SDPA), final norm, LM head."""
    from torch.func import functional_call

    dev = input_ids.device

    def run(module: nn.Module, *args, **kwargs):
        state = {
            name: t.to(dev, dtype) if t.is_floating_point() else t.to(dev)
            for name, t in [*module.named_parameters(), *module.named_buffers()]
        }
        return functional_call(module, state, args, kwargs)

    base = lm.model
    hidden = run(base.embed_tokens, input_ids)
    positions = torch.arange(input_ids.shape[1], device=dev)[None]
    cos, sin = run(base.rotary_emb, hidden, positions)  # in float32, cast to `dtype`, as HF
    for layer in base.layers:
        out = run(layer, hidden, attention_mask=None, position_embeddings=(cos, sin))
        hidden = out[0] if isinstance(out, tuple) else out
    return run(lm.lm_head, run(base.norm, hidden))
