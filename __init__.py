"""dpl: a hackable ML compiler on xDSL.

PyTorch -> torch -> tensor -> loop -> tile -> kernel -> CUDA. The top-level folders of the
repository are the subpackages, each importing only the layers below it:

    dpl.tools, dpl.bench -> dpl.driver -> dpl.frontend, dpl.transforms, dpl.backend,
    dpl.interpreters -> dpl.dialects

    import dpl
    program = dpl.compile(module, *example_inputs)   # a HF causal LM: dpl.compile(model, input_ids)
    outputs = program(*inputs)                       # on the GPU

`dpl.compile` is `dpl.driver.models.compile`, imported on first use, so that `import dpl` (and
`import dpl.dialects`) does not import torch.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "compile":
        from dpl.driver.models import compile

        return compile
    raise AttributeError(f"module 'dpl' has no attribute '{name}'")
