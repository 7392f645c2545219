"""The GPU target as one typed module attribute (issue 15): `--target` on dpl compile / run and
`target=` on the driver put `#kernel.target` on the module (set-target), the schedule reads it
(wgmma on sm_90 only, mma.sync on sm_80 and sm_120), a pass's own option overrides it, and a bad
value is a one-line error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dpl.dialects.kernel import TARGET_KEY, TargetAttr
from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline, with_target

LINEAR = "torch.nn.functional.linear(torch.randn(128, 512), torch.randn(256, 512), torch.randn(256))"


def _layouts(module) -> list[str]:
    return [op.layout.data.value for op in module.walk() if op.name == "mma.dot"]


@pytest.mark.parametrize("arch,layout", [("sm_80", "mma_sync"), ("sm_90", "wgmma"), ("sm_120", "mma_sync")])
def test_the_schedule_reads_the_module_target(arch, layout):
    module = capture_expression(LINEAR).module.clone()
    # tensor cores asked for: whether they win on this shape is the model's business, their
    # layout is the target's
    spec = IR_PIPELINES["tile"].replace("schedule", "schedule{tensor-cores=true}")
    run_pipeline(module, with_target(spec, arch))
    target = module.attributes[TARGET_KEY]
    assert isinstance(target, TargetAttr) and target.arch.data == arch
    assert _layouts(module) == [layout]


def test_the_option_overrides_the_module_target():
    module = capture_expression(LINEAR).module.clone()
    spec = with_target(IR_PIPELINES["tile"].replace("schedule", "schedule{target=sm_80 tensor-cores=true}"), "sm_90")
    run_pipeline(module, spec)
    assert _layouts(module) == ["mma_sync"]


def test_dpl_compile_target_reaches_kernel_ir():
    from dpl.driver.compile import lower

    module, _ = lower(capture_expression("torch.relu(torch.randn(4, 8))"), target="sm_120")
    assert str(module.attributes[TARGET_KEY]) == "#kernel.target<sm_120, sms = 170, smem = 101376>"


def test_a_bad_target_is_one_line():
    r = subprocess.run([sys.executable, "-m", "dpl.tools.dpl", "compile", "-c", "torch.randn(4)",
                        "--ir", "tensor", "--target", "sm_75"], capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.strip() == "dpl: error: set-target: option arch must be one of sm_80, sm_90, sm_120, got sm_75"


def test_tensor_cores_asked_for_where_none_fit_is_one_line():
    """`schedule{tensor-cores=true}` with nothing the tensor cores can take (precision ieee) has
    no matmul candidate left: a one-line error naming the kernel and the options."""
    module = capture_expression(LINEAR).module.clone()
    spec = IR_PIPELINES["tile"].replace("schedule", "schedule{precision=ieee tensor-cores=true}")
    with pytest.raises(ValueError, match=r"schedule: @k_\w+: no matmul schedule fits tensor-cores=True"):
        run_pipeline(module, spec)
