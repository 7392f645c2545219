"""The GPU target of the passes that depend on the hardware: `sm_80`, `sm_90`, `sm_120`, ...

The target is one typed attribute of the module, `kernel.target = #kernel.target<sm_90, sms =
132, smem = 232448>` (dialects/kernel.py's TargetAttr), set by the `set-target` pass, `dpl-opt
--target` or `dpl compile/run --target`. A pass that depends on the hardware (schedule,
async-copy, tma-copy, split-matmul-k, split-reduce, vectorize-pointwise, fuse-launches,
dynamic-smem, materialize-mma, materialize-attention) reads it through `target_of`, `target_arch`,
`target_sms` or `target_smem`; its own `target` / `sms` option, when given, is an explicit
override:

    the pass's option  >  the module's #kernel.target  >  the default (DEFAULT_ARCH, an H100)

`parse_target("sm_90")` gives the compute capability as an integer (90), so passes compare
`>= 80` (cp.async) or `>= 90` (TMA). A malformed value raises a one-line ValueError.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from dpl.dialects.kernel import TARGETS, TargetAttr, module_target

CP_ASYNC = 80
"""The first compute capability with cp.async (Ampere)."""

TMA = 90
"""The first compute capability with the TMA engine / bulk async copies (Hopper)."""

DEFAULT_ARCH = "sm_90"
"""The target of a module without `#kernel.target` whose passes name none (an H100 SXM)."""

SM_THREADS = 2048
"""Threads one SM holds at once (sm_80 and up)."""


def parse_target(target: str) -> int:
    """`sm_<N>` -> N (e.g. sm_80 -> 80, sm_120 -> 120); anything else is a ValueError."""
    match = re.fullmatch(r"sm_([1-9][0-9]*)", target)
    if match is None:
        raise ValueError(
            f"bad target '{target}': expected sm_<compute capability> such as sm_80, sm_90 "
            "or sm_120"
        )
    return int(match.group(1))


def target_of(op: Operation) -> TargetAttr:
    """The #kernel.target of the builtin.module holding `op` (or `op` itself, a module), else
    DEFAULT_ARCH's (a module without one, or an op in none)."""
    top = op.get_toplevel_object()
    target = module_target(top) if isinstance(top, ModuleOp) else None
    return target if target is not None else TargetAttr(DEFAULT_ARCH)


def target_arch(option: str | None, module: ModuleOp) -> str:
    """The arch a pass compiles `module` for: its `option` if given, else the module's target's,
    else DEFAULT_ARCH."""
    return option if option is not None else target_of(module).arch.data


def target_sms(option: int | None, module: ModuleOp) -> int:
    """The multiprocessors a pass models for `module`: its `option` if given, else the module's
    target's, else DEFAULT_ARCH's."""
    return option if option is not None else target_of(module).sms.data


def target_smem(op: Operation) -> int:
    """The shared memory bytes one block may use on the target of the module holding `op`
    (DEFAULT_ARCH's without one)."""
    return target_of(op).smem.data


def arch_smem(arch: str, op: Operation | None = None) -> int:
    """The shared memory bytes one block may use when compiling for `arch`: the target's of the
    module holding `op` when it is of `arch` (it may set less), else the arch's (TARGETS; the
    default's for an arch without tensor-core tiles there)."""
    if op is not None and target_of(op).arch.data == arch:
        return target_smem(op)
    return TARGETS.get(arch, TARGETS[DEFAULT_ARCH])[1]
