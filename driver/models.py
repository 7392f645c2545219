"""Whole Hugging Face causal LMs: compile from the config alone, bind the weights afterwards.

    lm = compile_causal_lm(cfg, seq=128, progress=Progress())  # capture (meta) + passes; no GPU
    lm.load(progress)                                           # NVRTC, one compile per kernel
    weights = lm.bind(Checkpoint(folder))                       # or lm.bind(model), lm.bind(dict)
    logits = lm(input_ids)                                      # [1, seq, vocab], float32
    parity(logits, hf.reference_logits(model, input_ids))       # rel. error, argmax agreement

    import dpl; c = dpl.compile(model, input_ids)               # a HF causal LM in memory

The model is captured from its config on the meta device (`hf.causal_lm(cfg, "meta")`): no
weights exist while compiling, so a 7B model never needs its 30 GB twice in host memory. Its
repeated decoder layers are lowered once (`driver.blocks`). `bind` then fills the program's
weight arguments by their state-dict names from a checkpoint folder (`frontend.checkpoint`), a
model in memory or a dict, each tensor checked (present, shaped as the model wants) before any is
loaded, and moved to the GPU as float32 one at a time; it returns them, so an eager copy of the
model can share them (`load_state_dict(weights, assign=True)`). Buffers and tables (the rotary
tables) are bound as captured.

`compile(fn, *inputs)` is `dpl.compile`: a HF causal LM of a family dpl captures goes the way
above (the model in memory is neither copied nor changed), anything else to
`driver.compile.compile`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from dpl.driver import compile as compile_mod
from dpl.driver.compile import Compiled, lower
from dpl.driver.progress import Progress, quiet
from dpl.driver.tuned import Tuning
from dpl.frontend import capture, hf
from dpl.frontend.check import rel_err
from dpl.frontend.checkpoint import Checkpoint

Weights = Checkpoint | nn.Module | Mapping[str, torch.Tensor]


class CausalLMProgram(Compiled):
    """A compiled causal LM: `self(input_ids) -> logits`, once its weights are bound."""

    def __init__(self, prog: Any, module: Any, flops: dict[str, int], config: Any, times: dict[str, float]):
        super().__init__(prog, module, flops)
        self.config = config
        self.seq = int(prog.args[0].shape[-1])
        #: Seconds per compile stage (capture, passes, then nvrtc once loaded).
        self.times = times
        #: Weights to bind at the first call (`dpl.compile` of a model in memory).
        self.pending: Weights | None = None

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        """What `bind` needs: state-dict name -> shape of each weight argument."""
        return weight_shapes(self.program)

    def load(self, progress: Progress | None = None) -> CausalLMProgram:
        """Compile every kernel with NVRTC (through the cache) and load it."""
        progress = progress or quiet()
        self.host.load(progress)
        self.times.update({k: v for k, v in progress.times.items() if k == "nvrtc"})
        return self

    def bind(self, weights: Weights, device: str | torch.device = "cuda") -> dict[str, torch.Tensor]:
        """Fill the weight arguments from `weights` (see the module docstring); returns them
        (state-dict name -> float32 tensor on `device`)."""
        wanted = self.weight_shapes()
        source = _source(weights)
        source.check(wanted)
        loaded = {name: source.tensor(name, device).contiguous() for name in wanted}
        weight_of = dict(weight_args(self.program))
        bound = []
        for i, arg in enumerate(self.program.args[self.program.num_inputs :], self.program.num_inputs):
            if i in weight_of:
                bound.append(loaded[weight_of[i]])
            else:  # a buffer or a table, as captured
                t = arg.to(device, torch.float32) if arg.is_floating_point() else arg.to(device)
                bound.append(t.contiguous())
        self._params_cuda = bound
        return loaded

    def _args(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        if self._params_cuda is None and self.pending is not None:
            self.bind(self.pending)
            self.pending = None
        if self._params_cuda is None and weight_args(self.program):
            raise ValueError("dpl: the model's weights are not bound (bind a checkpoint or a model first)")
        return super()._args(inputs)


def weight_shapes(prog: Any) -> dict[str, tuple[int, ...]]:
    """State-dict name -> shape of each weight of captured `prog` (an argument captured on the
    meta device, so bound after compiling). A tied weight goes by its first name (an output
    embedding tied to the input one is `model.embed_tokens.weight`, as checkpoints store it)."""
    return {name: tuple(prog.args[i].shape) for i, name in weight_args(prog)}


def weight_args(prog: Any) -> list[tuple[int, str]]:
    """(argument index, state-dict name of its weight) for every weight argument of `prog`."""
    first: dict[int, str] = {}
    canonical = {
        name: first.setdefault(id(p), name)
        for name, p in prog.fn.named_parameters(remove_duplicate=False)
    }  # fmt: skip
    return [
        (i, canonical.get(prog.targets[i], prog.targets[i]))
        for i, a in enumerate(prog.args)
        if i >= prog.num_inputs and a.device.type == "meta"
    ]


class _StateDict:
    """A model in memory, or a dict of tensors, as a weight source."""

    def __init__(self, tensors: Mapping[str, torch.Tensor], what: str):
        self.tensors, self.what = tensors, what

    def check(self, wanted: Mapping[str, Sequence[int]]) -> None:
        for name, shape in wanted.items():
            if name not in self.tensors:
                raise ValueError(f"{self.what}: no tensor '{name}' (the model needs it)")
            have = tuple(self.tensors[name].shape)
            if have != tuple(shape):
                raise ValueError(
                    f"{self.what}: tensor '{name}' has shape {list(have)}, the model wants {list(shape)}"
                )

    def tensor(self, name: str, device: str | torch.device) -> torch.Tensor:
        t = self.tensors[name].detach()
        return t.to(device, torch.float32) if t.is_floating_point() else t.to(device)


class _Folder:
    """A checkpoint folder as a weight source: tensors as float32 on the device."""

    def __init__(self, ckpt: Checkpoint):
        self.ckpt = ckpt

    def check(self, wanted: Mapping[str, Sequence[int]]) -> None:
        self.ckpt.check(wanted)

    def tensor(self, name: str, device: str | torch.device) -> torch.Tensor:
        t = self.ckpt.tensor(name, device)
        return t.float() if t.is_floating_point() else t


def _source(weights: Weights):
    if isinstance(weights, Checkpoint):
        return _Folder(weights)
    if isinstance(weights, nn.Module):
        return _StateDict(weights.state_dict(), f"model {type(weights).__name__}")
    return _StateDict(weights, "the weights")


def compile_causal_lm(
    config: Any,
    seq: int,
    pipeline: str | None = None,
    verbose: bool = False,
    progress: Progress | None = None,
    precision: str | None = None,
    tune_cache: bool = True,
    target: str | None = None,
) -> CausalLMProgram:
    """Capture the causal LM of `config` for input_ids [1, seq] on the meta device and lower it
    to kernel IR (no GPU, no weights needed)."""
    progress = progress or quiet()
    with progress.stage("capture"):
        skeleton = hf.causal_lm(config, device="meta")
        # input_ids on the meta device too: FakeTensor propagation (torch 2.11) refuses an embedding
        # of meta weights by CPU indices
        prog = capture_quickly(skeleton, torch.zeros(1, seq, dtype=torch.int64, device="meta"))
    module, flops = lower(prog, pipeline, verbose, precision, progress, Tuning.default(tune_cache), target)
    times = {k: v for k, v in progress.times.items() if k in ("capture", "passes")}
    return CausalLMProgram(prog, module, flops, config, times)


def capture_quickly(module: nn.Module, *inputs: torch.Tensor):
    """`capture(module, *inputs)` in float32 without recording each op's Python stack (a third
    of torch.export's time on a whole model); should capture fail, it runs again with them, so
    the error names the source line."""
    import torch.fx.config as fx_config

    saved = getattr(fx_config, "do_not_emit_stack_traces", None)
    if saved is None:  # a torch without the switch
        return capture(module, *inputs, dtype=torch.float32)
    fx_config.do_not_emit_stack_traces = True
    try:
        return capture(module, *inputs, dtype=torch.float32)
    except ValueError:
        fx_config.do_not_emit_stack_traces = saved
        return capture(module, *inputs, dtype=torch.float32)
    finally:
        fx_config.do_not_emit_stack_traces = saved


def parity(logits: torch.Tensor, reference: torch.Tensor) -> tuple[float, int, int]:
    """(‖logits − reference‖ / ‖reference‖, positions whose argmax token agrees, positions)."""
    out, ref = logits.detach().double(), reference.detach().double().to(logits.device)
    if out.shape != ref.shape:
        raise ValueError(f"dpl logits shape {list(out.shape)} differ from the reference's {list(ref.shape)}")
    agree = int((out.argmax(-1) == ref.argmax(-1)).sum())
    return rel_err(out, ref), agree, int(math.prod(out.shape[:-1]))


@dataclass
class ModelCheck:
    """A compiled causal LM run once against Hugging Face with the same weights."""

    program: CausalLMProgram
    model: nn.Module  # HF's model in float32 on the device, its parameters the bound weights
    weights: dict[str, torch.Tensor]  # the bound weights (state-dict name -> device tensor)
    input_ids: torch.Tensor
    logits: torch.Tensor
    rel_err: float  # against HF in float64
    agree: int  # positions whose argmax token is HF float64's
    positions: int


def check_causal_lm(
    config: Any,
    seq: int,
    weights: Weights | None = None,
    seed: int = 0,
    pipeline: str | None = None,
    progress: Progress | None = None,
    device: str = "cuda",
    precision: str | None = None,
    tune_cache: bool = True,
    target: str | None = None,
) -> ModelCheck:
    """Compile the causal LM of `config` for `seq` tokens, load it, bind `weights` (a
    checkpoint, a dict such as an earlier check's `weights`, or random ones), run it on random
    tokens and compare its logits with HF's in float64 (`hf.reference_logits`, one module at a
    time on the device). The weights live on the device once: the program and HF's model share
    them."""
    progress = progress or quiet()
    program = compile_causal_lm(config, seq, pipeline, progress=progress, precision=precision,
                                tune_cache=tune_cache, target=target).load(progress)  # fmt: skip
    with progress.stage("weights"):
        if weights is None:
            weights = hf.random_weights(hf.causal_lm(config, "meta"), seed, device)
        bound = program.bind(weights, device)
        model = hf.with_weights(config, bound, device)
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, config.vocab_size, (1, seq), generator=gen).to(device)
    with progress.stage("run"):
        logits = program(ids, poison=True)
    with progress.stage("reference"):
        reference = hf.reference_logits(model, ids, torch.float64)
    err, agree, positions = parity(logits, reference)
    del reference
    return ModelCheck(program, model, bound, ids, logits, err, agree, positions)


def compile(fn: Any, *example_inputs: torch.Tensor, pipeline: str | None = None, verbose: bool = False,
            precision: str | None = None, tune_cache: bool = True, target: str | None = None) -> Compiled:  # fmt: skip
    """`dpl.compile`: a HF causal LM (`fn(input_ids) -> logits`) is compiled from its config and
    bound to its weights; anything else is captured and compiled as is. Kernels `dpl tune`
    tuned for this GPU get their tuned schedules (`tune_cache=False`: the defaults)."""
    if hf.is_causal_lm(fn):
        if len(example_inputs) != 1:
            raise ValueError("dpl: a causal LM takes one input, input_ids [1, seq]")
        config = copy.deepcopy(fn.config)
        config._attn_implementation = "sdpa"
        program = compile_causal_lm(
            config, int(example_inputs[0].shape[-1]), pipeline, verbose, precision=precision, tune_cache=tune_cache, target=target
        )
        program.pending = fn  # bound to the GPU at the first call
        return program
    return compile_mod.compile(fn, *example_inputs, pipeline=pipeline, verbose=verbose, precision=precision,
                               tune_cache=tune_cache, target=target)  # fmt: skip
