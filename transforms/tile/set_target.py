"""set-target: record the GPU a module is compiled for as its `#kernel.target` attribute.

    builtin.module {...}
 -> builtin.module attributes {kernel.target = #kernel.target<sm_80, sms = 108, smem = 166912>} {...}

`arch` is one of sm_80, sm_90 (the default), sm_120; `sms` and `smem-bytes` (shared memory one
block may use) default to the arch's (dialects/kernel.py TARGETS) and may be set for another
part of the same arch (an H100 PCIe: `sms=114`). A target already there is replaced. Passes that
depend on the hardware read the attribute unless their own option overrides it
(transforms/tile/target.py). A bad value is a one-line error where the pipeline is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from dpl.dialects.kernel import MAX_SMEM, TARGET_KEY, TARGETS, TargetAttr
from dpl.transforms.options import check_option


@dataclass(frozen=True)
class SetTarget(ModulePass):
    """Set the module's `#kernel.target` (arch, multiprocessors, shared memory per block)."""

    name = "set-target"

    arch: str = "sm_90"
    sms: int | None = None
    """Multiprocessors (default: the arch's)."""
    smem_bytes: int | None = None
    """Shared memory bytes one block may use (default: the arch's most)."""

    def __post_init__(self):
        check_option(self, "arch", choices=list(TARGETS))
        check_option(self, "sms", 1)
        check_option(self, "smem_bytes", 1, MAX_SMEM)
        try:
            self.target()
        except VerifyException as e:
            raise ValueError(f"set-target: {e}") from None

    def target(self) -> TargetAttr:
        return TargetAttr(self.arch, self.sms, self.smem_bytes)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        op.attributes[TARGET_KEY] = self.target()
