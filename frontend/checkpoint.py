"""A Hugging Face model folder on local disk: config.json and safetensors weights, no network.

    ckpt = Checkpoint("/models/TinyLlama-1.1B")    # CheckpointError (one line) if unusable
    ckpt.config                                     # its transformers config (dpl's families only)
    ckpt.check({"model.norm.weight": (2048,)})      # every tensor there, with that shape
    ckpt.tensor("model.norm.weight", device="cuda") # as stored (bf16, fp32, ...)

The weights are `model.safetensors`, or the shards that `model.safetensors.index.json` lists
(its `weight_map`: tensor name -> file), or, with no index, every `*.safetensors` of the folder.
Tensors are read one at a time from the memory-mapped files (safetensors), so loading a model
never holds a second copy of its weights in host memory.

Every error names the file and, where one is at fault, the tensor: a missing folder or
config.json, a config of an architecture dpl does not capture, a tensor the model needs that no
file holds (named with the index, or the folder's weights), a tensor of the wrong shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from dpl.frontend import hf

INDEX = "model.safetensors.index.json"


class CheckpointError(ValueError):
    """A model folder dpl cannot use; the message is one line naming the file."""


class Checkpoint:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CheckpointError(f"{self.folder}: no such model folder")
        config = self.folder / "config.json"
        if not config.is_file():
            raise CheckpointError(f"{config}: missing (a Hugging Face model folder has config.json)")
        try:
            values = json.loads(config.read_text())
        except (OSError, ValueError) as e:
            raise CheckpointError(f"{config}: not a JSON config ({_first_line(e)})") from None
        if not isinstance(values, dict):
            raise CheckpointError(f"{config}: not a JSON config (a {type(values).__name__})")
        try:
            self.config = hf.config_from_dict(values, str(config))
        except ValueError as e:
            raise CheckpointError(_first_line(e)) from None
        self._open: dict[Path, Any] = {}
        #: Which file holds each tensor.
        self.files: dict[str, Path] = self._weight_map()

    # -- where the tensors are

    def _weight_map(self) -> dict[str, Path]:
        index = self.folder / INDEX
        if index.is_file():
            try:
                weight_map = json.loads(index.read_text())["weight_map"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise CheckpointError(f"{index}: not a safetensors index ({_first_line(e)})") from None
            files = {name: self.folder / f for name, f in weight_map.items()}
            for name, path in files.items():
                if not path.is_file():
                    raise CheckpointError(f"{index}: tensor '{name}' is in {path.name}, which is missing")
            return files
        shards = sorted(self.folder.glob("*.safetensors"))
        if not shards:
            raise CheckpointError(f"{self.folder}: no *.safetensors weights (nor {INDEX})")
        files = {}
        for path in shards:
            for name in self._handle(path).keys():
                files[name] = path
        return files

    def where(self) -> str:
        """What lists the tensors: the index, or the folder's safetensors files."""
        index = self.folder / INDEX
        if index.is_file():
            return str(index)
        shards = sorted({p.name for p in self.files.values()})
        return str(self.folder / shards[0]) if len(shards) == 1 else f"{self.folder}/*.safetensors"

    def _handle(self, path: Path):
        from safetensors import safe_open

        if path not in self._open:
            try:
                self._open[path] = safe_open(str(path), framework="pt")
            except Exception as e:  # noqa: BLE001 - safetensors raises several kinds
                raise CheckpointError(f"{path}: not a safetensors file ({_first_line(e)})") from None
        return self._open[path]

    # -- reading

    def shape(self, name: str) -> tuple[int, ...]:
        if name not in self.files:
            raise CheckpointError(f"{self.where()}: no tensor '{name}' (the model needs it)")
        return tuple(self._handle(self.files[name]).get_slice(name).get_shape())

    def check(self, wanted: Mapping[str, Sequence[int]]) -> None:
        """Every tensor of `wanted` (name -> shape) is there with that shape."""
        for name, shape in wanted.items():
            have = self.shape(name)
            if have != tuple(shape):
                raise CheckpointError(
                    f"{self.files[name]}: tensor '{name}' has shape {list(have)}, "
                    f"the model wants {list(shape)}"
                )

    def tensor(self, name: str, device: str | torch.device = "cpu") -> torch.Tensor:
        """Tensor `name` as stored, on `device`."""
        self.shape(name)
        return self._handle(self.files[name]).get_tensor(name).to(device)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
