"""Whole causal LMs on the CPU: capture on the meta device, tables, the repeated block lowered
once (driver/blocks.py) and run by the kernel-level executor against HF in float64, the buffer
plan's peak, checkpoint folders (single file, sharded, every bad input) and `dpl.compile`.

The models are tiny (hidden 64, vocab 128, seq 8) versions of the shipped configs; checkpoints
are written on the fly with transformers' `save_pretrained` (safetensors).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from dpl.driver import blocks
from dpl.driver.compile import lower
from dpl.driver.host import HostProgram, nbytes
from dpl.driver.models import compile_causal_lm, parity, weight_shapes
from dpl.driver.progress import Progress
from dpl.frontend import capture, hf
from dpl.frontend.checkpoint import Checkpoint, CheckpointError
from dpl.interpreters import exec_kernel

SEQ = 8


def tiny_config(name: str, layers: int = 2):
    values = dict(hf.CONFIGS[name])
    values.update(hidden_size=64, intermediate_size=96, num_hidden_layers=layers, vocab_size=128,
                  num_attention_heads=4, num_key_value_heads=2)  # fmt: skip
    if "head_dim" in values:
        values["head_dim"] = 32  # apart from hidden / heads (16), as Qwen3's
    return hf.config_from_dict(values, f"tiny {name}")


def tiny_model(name: str, layers: int = 2, seed: int = 0):
    cfg = tiny_config(name, layers)
    return cfg, hf.with_weights(cfg, hf.random_weights(hf.causal_lm(cfg, "meta"), seed))


def ids(seed: int = 1) -> torch.Tensor:
    return torch.randint(0, 128, (1, SEQ), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------------------------------------
# capture


def test_meta_capture_is_the_real_capture():
    cfg, lm = tiny_model("tinyllama")
    real = capture(lm, ids(), dtype=torch.float32)
    meta = capture(hf.causal_lm(cfg, "meta"), ids(), dtype=torch.float32)
    assert str(meta.module) == str(real.module)
    assert meta.targets == real.targets and "model.layers.1.mlp.up_proj.weight" in meta.targets
    weights = weight_shapes(meta)
    assert weights["model.embed_tokens.weight"] == (128, 64)
    assert all(a.device.type == "meta" for a in meta.args if tuple(a.shape) in weights.values())


def test_large_constants_are_tables():
    cfg = tiny_config("tinyllama")
    prog = capture(hf.causal_lm(cfg, "meta"), torch.zeros(1, 32, dtype=torch.int64), dtype=torch.float32)
    tables = [n for n in prog.arg_names if n.startswith("c_")]
    assert len(tables) == 2  # cos and sin, shared by both layers
    for name in tables:
        value = prog.args[prog.arg_names.index(name)]
        assert value.device.type == "cpu" and tuple(value.shape) == (1, 1, 32, 16)
    big = [op for op in prog.module.walk() if op.name == "torch.constant" and op.results[0].type.element_count() > 64]
    assert not big


# ---------------------------------------------------------------------------------------------
# the repeated block


def test_find_repeats_finds_the_layers():
    cfg = tiny_config("qwen2.5-7b", layers=3)
    prog = capture(hf.causal_lm(cfg, "meta"), ids(), dtype=torch.float32)
    main = blocks._main(prog.module)
    found = blocks.find_repeats(main)
    assert found is not None and found.count == 3 and found.start == 1  # after the embedding
    ops = blocks.body_ops(main)
    assert ops[found.start].name == "torch.embedding" or ops[found.start - 1].name == "torch.embedding"
    assert len(ops) - found.stop < found.size  # the suffix: final norm and LM head


def test_no_repeats_in_one_layer():
    cfg = tiny_config("tinyllama", layers=1)
    prog = capture(hf.causal_lm(cfg, "meta"), ids(), dtype=torch.float32)
    assert blocks.find_repeats(blocks._main(prog.module)) is None


@pytest.mark.parametrize("name", ["tinyllama", "qwen2.5-7b", "qwen3-0.6b"])
def test_whole_model_kernels_match_hf(name):
    """Lowered with its block once, run by the kernel-level executor: HF's float64 logits."""
    cfg, lm = tiny_model(name)
    prog = capture(lm, ids(), dtype=torch.float32)
    module, flops = lower(prog)
    (out,) = exec_kernel.run(module, [a.numpy() for a in prog.args])
    err, agree, positions = parity(torch.from_numpy(out), hf.reference_logits(lm, ids()))
    assert err < 1e-5 and agree == positions == SEQ
    assert set(flops) == {f.sym_name.data for f in module.ops if f.name == "kernel.func"}
    # flops count each launch's kernel: at least one multiply-add per token and weight element
    matrices = sum(p.numel() for n, p in lm.named_parameters() if p.dim() == 2 and "embed" not in n)
    launched = [op.callee.string_value() for op in blocks._main(module).body.block.ops if op.name == "kernel.launch"]
    assert sum(flops[k] for k in launched) >= 2 * SEQ * matrices


def test_kernels_and_peak_do_not_grow_with_depth():
    """Identical layers share their kernels, and the buffer plan reuses one layer's activations
    for the next: the workspace is the same for 2 and 4 layers, a fraction of all intermediates."""
    hosts = {layers: compile_causal_lm(tiny_config("tinyllama", layers), SEQ).host for layers in (2, 4)}
    h2, h4 = hosts[2], hosts[4]
    assert len(h2.kernels) == len(h4.kernels)
    per_layer = (len(h4.launches) - len(h2.launches)) // 2
    assert per_layer > 0 and len(h2.launches) - 2 * per_layer > 0  # prefix and suffix launches
    assert h4.plan.workspace_bytes == h2.plan.workspace_bytes
    every = sum(nbytes(h4.types[v]) for v in h4.intermediates)
    assert h4.plan.workspace_bytes * 3 < every


# ---------------------------------------------------------------------------------------------
# checkpoints


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tiny TinyLlama-family model saved whole and in shards."""
    cfg, lm = tiny_model("tinyllama", seed=3)
    root = tmp_path_factory.mktemp("ckpt")
    lm.save_pretrained(root / "single")
    lm.save_pretrained(root / "sharded", max_shard_size="40KB")
    return cfg, lm, root


@pytest.mark.parametrize("kind", ["single", "sharded"])
def test_checkpoint_binds_every_weight(saved, kind):
    cfg, lm, root = saved
    ckpt = Checkpoint(root / kind)
    assert ckpt.config.model_type == "llama" and ckpt.config.hidden_size == 64
    if kind == "sharded":
        assert len(set(ckpt.files.values())) > 1 and (root / kind / "model.safetensors.index.json").is_file()
    program = compile_causal_lm(ckpt.config, SEQ)
    weights = program.bind(ckpt, device="cpu")
    state = lm.state_dict()
    assert set(weights) == set(weight_shapes(program.program))
    for name, t in weights.items():
        assert t.dtype == torch.float32 and torch.equal(t, state[name])
    # the bound arguments run to HF's logits
    args = [ids().numpy(), *[t.numpy() for t in program._params_cuda]]
    (out,) = exec_kernel.run(program.module, args)
    err, agree, positions = parity(torch.from_numpy(out), hf.reference_logits(lm, ids()))
    assert err < 1e-5 and agree == positions


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_missing_folder(tmp_path):
    with pytest.raises(CheckpointError, match=f"^{tmp_path / 'nope'}: no such model folder$"):
        Checkpoint(tmp_path / "nope")


def test_missing_config(saved, tmp_path):
    d = _copy(saved[2] / "single", tmp_path / "m")
    (d / "config.json").unlink()
    with pytest.raises(CheckpointError, match="config.json: missing"):
        Checkpoint(d)


def test_unsupported_architecture(saved, tmp_path):
    d = _copy(saved[2] / "single", tmp_path / "m")
    values = json.loads((d / "config.json").read_text())
    values.update(model_type="gpt2", architectures=["GPT2LMHeadModel"])
    (d / "config.json").write_text(json.dumps(values))
    with pytest.raises(CheckpointError) as e:
        Checkpoint(d)
    msg = str(e.value)
    assert msg.startswith(f"{d / 'config.json'}: unsupported architecture") and "GPT2LMHeadModel" in msg
    assert "\n" not in msg


def test_missing_tensor_single_file(saved, tmp_path):
    d = _copy(saved[2] / "single", tmp_path / "m")
    tensors = load_file(d / "model.safetensors")
    del tensors["model.layers.1.mlp.up_proj.weight"]
    save_file(tensors, d / "model.safetensors", metadata={"format": "pt"})
    program = compile_causal_lm(saved[0], SEQ)
    with pytest.raises(CheckpointError) as e:
        program.bind(Checkpoint(d), device="cpu")
    assert str(e.value) == (
        f"{d / 'model.safetensors'}: no tensor 'model.layers.1.mlp.up_proj.weight' (the model needs it)"
    )


def test_missing_tensor_sharded(saved, tmp_path):
    d = _copy(saved[2] / "sharded", tmp_path / "m")
    index = json.loads((d / "model.safetensors.index.json").read_text())
    del index["weight_map"]["model.norm.weight"]
    (d / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError) as e:
        Checkpoint(d).check({"model.norm.weight": (64,)})
    assert str(e.value) == f"{d / 'model.safetensors.index.json'}: no tensor 'model.norm.weight' (the model needs it)"


def test_misshaped_tensor(saved, tmp_path):
    d = _copy(saved[2] / "sharded", tmp_path / "m")
    index = json.loads((d / "model.safetensors.index.json").read_text())
    name = "model.layers.0.self_attn.k_proj.weight"
    shard = d / index["weight_map"][name]
    tensors = load_file(shard)
    tensors[name] = torch.zeros(48, 64)
    save_file(tensors, shard, metadata={"format": "pt"})
    with pytest.raises(CheckpointError) as e:
        compile_causal_lm(saved[0], SEQ).bind(Checkpoint(d), device="cpu")
    assert str(e.value) == f"{shard}: tensor '{name}' has shape [48, 64], the model wants [32, 64]"


@pytest.mark.parametrize(
    "case, expected",
    [
        ("nope", "no such model folder"),
        ("arch", "unsupported architecture (model_type 'gpt2'"),
        ("shape", "tensor 'model.norm.weight' has shape [3], the model wants [64]"),
    ],
)
def test_cli_errors_are_one_line(saved, tmp_path, case, expected):
    d = tmp_path / "m"
    if case != "nope":
        _copy(saved[2] / "single", d)
    if case == "arch":
        values = json.loads((d / "config.json").read_text())
        values["model_type"] = "gpt2"
        (d / "config.json").write_text(json.dumps(values))
    if case == "shape":
        tensors = load_file(d / "model.safetensors")
        tensors["model.norm.weight"] = torch.ones(3)
        save_file(tensors, d / "model.safetensors", metadata={"format": "pt"})
    run = subprocess.run(
        [sys.executable, "-m", "dpl.tools.dpl", "compile", "--weights", str(d), "--seq", "8"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"dpl: error: {d}") and expected in lines[0], run.stderr


# ---------------------------------------------------------------------------------------------
# dpl.compile, progress


def test_dpl_compile_of_a_model_in_memory():
    import dpl

    cfg, lm = tiny_model("qwen3-0.6b")
    before = {k: v.clone() for k, v in lm.state_dict().items()}
    program = dpl.compile(lm, ids())
    assert program.weight_shapes()["model.embed_tokens.weight"] == (128, 64)
    assert "lm_head.weight" not in program.weight_shapes()  # tied to the input embedding
    assert all(torch.equal(before[k], v) for k, v in lm.state_dict().items())  # not changed
    assert program.pending is lm


def test_import_dpl_does_not_import_torch():
    code = "import sys, dpl, dpl.dialects; assert 'torch' not in sys.modules; assert callable(dpl.compile)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_progress_shows_only_on_a_terminal():
    quiet, shown = io.StringIO(), io.StringIO()
    for stream, enabled in ((quiet, None), (shown, True)):
        p = Progress(enabled=enabled, stream=stream)
        with p.stage("nvrtc"):
            p.step("nvrtc", 1, 2, "k_a")
        assert p.times["nvrtc"] >= 0
    assert quiet.getvalue() == ""
    text = shown.getvalue()
    assert "dpl: nvrtc 1/2 k_a" in text and text.splitlines()[-1].endswith(" s\x1b[K")


def test_host_program_sources_one_per_kernel():
    program = compile_causal_lm(tiny_config("tinyllama"), SEQ)
    host: HostProgram = program.host
    assert set(host.sources) == set(host.kernels)
    for name, src in host.sources.items():
        assert src.count("__global__") == 1 and f"void {name}(" in src
    assert np.all([launch.kernel.name in host.sources for launch in host.launches])


# ---------------------------------------------------------------------------------------------
# on the GPU


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("name", ["tinyllama", "qwen2.5-7b", "qwen3-0.6b", "mistral-7b"])
def test_whole_model_on_the_gpu(name, tmp_path):
    """Compiled, loaded (NVRTC per kernel), bound from a sharded checkpoint, run: HF float64."""
    from dpl.driver.models import check_causal_lm

    cfg, lm = tiny_model(name, layers=3)
    lm.save_pretrained(tmp_path, max_shard_size="40KB")
    check = check_causal_lm(cfg, 16, Checkpoint(tmp_path))
    assert check.rel_err < 1e-5 and check.agree == check.positions == 16
    again = check.program(check.input_ids, poison=True)  # workspace reused: same logits
    assert torch.equal(again, check.logits)


def test_bench_models_cuts_a_config_to_fewer_layers():
    """bench/models.py --num-layers: a config.json listing `layer_types` (Qwen2 in transformers
    5) is cut to as many as the layers, so that transformers accepts it."""
    from dpl.bench.models import fewer_layers

    values = dict(hf.CONFIGS["qwen2.5-7b"], layer_types=["full_attention"] * 28)
    cut = hf.config_from_dict(fewer_layers(values, 2), "config.json")
    assert cut.num_hidden_layers == 2 and len(cut.layer_types) == 2
    assert fewer_layers({"num_hidden_layers": 22}, 4) == {"num_hidden_layers": 4}
