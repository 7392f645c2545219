"""Every loop-level pass keeps meaning: run each lit input before and after its pipeline on
fresh random inputs and compare. Inputs at the tensor level run on the tensor executor, the
results on the loop executor."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType
from xdsl.passes import PassPipeline

from dpl.interpreters import exec_loop, exec_tensor
from dpl.interpreters.exec_loop import main_func
from dpl.dialects import loop, make_context
from dpl.dialects.parsing import parse_module
from dpl.interpreters.scalar_eval import numpy_dtype
from dpl.transforms.pipelines import normalize_pipeline
from dpl.transforms import all_passes
from dpl.transforms.loop.nest import erase_unused_index_ops

LIT = Path(__file__).parent.parent / "test" / "lit" / "loop"
#: The lit cases that rewrite (an error case, `RUN: not dpl-opt`, has nothing to compare).
CASES = sorted(
    p for p in LIT.glob("*.mlir") if "--pass-pipeline=" in p.read_text() and "RUN: not " not in p.read_text()
)


def pipeline_of(path: Path) -> str:
    run_line = next(line for line in path.read_text().splitlines() if "RUN:" in line)
    return normalize_pipeline(run_line.split("--pass-pipeline=")[1].split("'")[1])


def random_inputs(module, rng):
    inputs = []
    for arg in main_func(module).body.block.args:
        shape = tuple(arg.type.get_shape())
        if "i64" in str(arg.type):
            inputs.append(rng.integers(0, 3, shape))
        else:
            inputs.append(rng.standard_normal(shape).astype(numpy_dtype(arg.type.element_type)))
    return inputs


def execute(module, inputs):
    is_loop = any(isinstance(t, MemRefType) for t in main_func(module).function_type.outputs)
    return (exec_loop if is_loop else exec_tensor).run(module, inputs)


def chunks(path: Path) -> list[str]:
    return path.read_text().split("// -----")


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_pass_keeps_meaning(path: Path):
    rng = np.random.default_rng(1)
    for text in chunks(path):
        if "kernel.launch" in text:
            continue  # a kernel-level case (count-cost's fuse-launches one): tests/test_fuse_launches.py
        ctx = make_context()
        module = parse_module(ctx, text, path.name)
        for _ in range(2):
            inputs = random_inputs(module, rng)
            before = execute(module, inputs)
            after_module = module.clone()
            PassPipeline.parse_spec(all_passes(), pipeline_of(path)).apply(ctx, after_module)
            after_module.verify()
            after = execute(after_module, inputs)
            assert len(before) == len(after) >= 1
            for b, a in zip(before, after):
                assert not np.isnan(a).any(), "an output element was never written"
                tol = 1e-5 if a.dtype == np.float32 else 1e-12
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


DEAD_REDUCE = """
func.func @main(%x: memref<4x8xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  loop.kernel @k ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
    loop.for free %a0 < 4 {
      %dead = loop.for reduce %r0 < 8 -> f32 {
        %v = loop.load %x[%a0, %r0] : memref<4x8xf32>
        %q = arith.mulf %v, %v : f32
        loop.accumulate add %q : f32
      }
      %w = loop.load %x[%a0, 0] : memref<4x8xf32>
      loop.store %w, %y[%a0] : memref<4xf32>
    }
  }
  func.return %y : memref<4xf32>
}
"""


def test_a_dead_reduce_loop_goes_whole_with_its_body():
    """erase_unused_index_ops sweeps the ops it listed before erasing any: a dead reduce loop
    takes its body with it, and the sweep then passes over those ops (it once detached them a
    second time: "Cannot detach a toplevel operation", fuse-loops on a random program)."""
    module = parse_module(make_context(), DEAD_REDUCE, "dead.mlir")
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    (before,) = exec_loop.run(module, [x])
    (kernel,) = [op for op in module.walk() if isinstance(op, loop.KernelOp)]
    erase_unused_index_ops(kernel)
    module.verify()
    assert sum(isinstance(op, loop.ForOp) and op.is_reduce for op in module.walk()) == 0
    (after,) = exec_loop.run(module, [x])
    np.testing.assert_array_equal(after, before)
