"""CPU parts of the GPU host path: the buffer plan of driver/host.py and the flop count of
driver/compile.py (running needs a GPU: tests/test_runtime_gpu.py)."""

import pytest

from dpl.transforms.loop.count_cost import count_flops
from dpl.driver.host import HostProgram, plan_buffers
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module

CHAIN = """
kernel.func @k_copy(%x: memref<4xf32>, %y: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<4xf32>
  kernel.store %v, %y[%t] : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  kernel.launch @k_copy(%x, %a) : memref<4xf32>, memref<4xf32>
  kernel.launch @k_copy(%a, %b) : memref<4xf32>, memref<4xf32>
  kernel.launch @k_copy(%b, %c) : memref<4xf32>, memref<4xf32>
  kernel.launch @k_copy(%c, %y) : memref<4xf32>, memref<4xf32>
  func.return %y : memref<4xf32>
}
"""


def test_plan_reuses_dead_intermediates():
    # a: launches 0-1, b: 1-2, c: 2-3 -> a's slot is free again for c
    plan = plan_buffers({1: 16, 2: 16, 3: 16}, {1: 0, 2: 1, 3: 2}, {1: 1, 2: 2, 3: 3})
    assert plan.slot_of[1] == plan.slot_of[3] != plan.slot_of[2]
    assert plan.workspace_bytes == 32


def test_plan_never_shares_overlapping_lifetimes():
    sizes = {v: 8 * (v + 1) for v in range(6)}
    first = {v: v for v in range(6)}
    last = {v: v + 2 for v in range(6)}
    plan = plan_buffers(sizes, first, last)
    for v in sizes:
        for w in sizes:
            overlap = first[v] <= last[w] and first[w] <= last[v]
            if v != w and overlap:
                assert plan.slot_of[v] != plan.slot_of[w]
            assert plan.slot_bytes[plan.slot_of[v]] >= sizes[v]


def test_host_program_from_ir():
    host = HostProgram(parse_module(make_context(), CHAIN, "chain.mlir"))
    assert [launch.kernel.name for launch in host.launches] == ["k_copy"] * 4
    assert [launch.buffers for launch in host.launches] == [[0, 1], [1, 2], [2, 3], [3, 4]]
    assert host.results == [4] and host.intermediates == [1, 2, 3]
    assert host.plan.workspace_bytes == 32  # a and c share a slot


def test_host_program_rejects_other_ops():
    text = CHAIN.replace("func.return %y", '"test.op"() : () -> ()\n  func.return %y')
    ctx = make_context()
    ctx.allow_unregistered = True
    with pytest.raises(ValueError, match="@main may hold only"):
        HostProgram(parse_module(ctx, text, "bad.mlir"))


def test_count_flops_counts_ops_times_trips():
    text = """
func.func @main(%x: memref<8x4xf32>) -> memref<8xf32> {
  %s = memref.alloc() : memref<8xf32>
  loop.kernel @k_sum ins(%x : memref<8x4xf32>) outs(%s : memref<8xf32>) {
    loop.for free %i < 8 {
      %acc = loop.for reduce %j < 4 -> f32 {
        %v = loop.load %x[%i, %j] : memref<8x4xf32>
        %sq = arith.mulf %v, %v : f32
        loop.accumulate add %sq : f32
      }
      loop.store %acc, %s[%i] : memref<8xf32>
    }
  }
  func.return %s : memref<8xf32>
}
"""
    module = parse_module(make_context(), text, "sum.mlir")
    (kernel,) = [op for op in module.walk() if op.name == "loop.kernel"]
    assert count_flops(kernel) == 8 * 4 * 2


def test_flops_follow_the_kernels_the_schedule_splits():
    """A kernel split by split-nests (`@k_part1`) or from its epilogue (`@k_acc`: the
    contraction) is counted under its own name: the matmul's 2 M N K flops go to `@k_acc`, not
    to the pointwise epilogue left under the old name."""
    from dpl.driver.compile import lower
    from dpl.frontend.capture import capture_expression

    prog = capture_expression(
        "torch.sigmoid(torch.randn(64, 128)) * (torch.randn(64, 256) @ torch.randn(256, 128))"
    )
    _, flops = lower(prog, "split-nests,split-epilogue,schedule,materialize-mma,materialize")
    (acc,) = [k for k in flops if k.endswith("_acc")]
    assert flops[acc] == 2 * 64 * 128 * 256
    assert 0 < flops[acc.removesuffix("_acc")] <= 6 * 64 * 128  # sigmoid and the product

    prog = capture_expression("torch.cat([torch.randn(8, 4), -torch.randn(8, 4)], dim=1)")
    _, flops = lower(prog, "split-nests,schedule,materialize-mma,materialize")
    assert sorted(flops.values()) == [0, 8 * 4]  # the negation, in one part only


@pytest.mark.parametrize("expr", [
    "torch.sigmoid(torch.randn(64, 128)) * (torch.randn(64, 256) @ torch.randn(256, 128))",
    "torch.nn.functional.linear(torch.randn(16, 2048), torch.randn(64, 2048))",  # split K: an _init
    "torch.cat([torch.randn(8, 4), -torch.randn(8, 4)], dim=1)",
])
def test_every_kernel_carries_the_cost_counted_at_loop_level(expr):
    """count-cost's kernel.flops / kernel.bytes reach every kernel.func of the default pipeline,
    and the flops of the kernels add up to those of the loop kernels they came from."""
    from dpl.driver.compile import kernel_costs, lower
    from dpl.frontend.capture import capture_expression
    from dpl.transforms.loop.count_cost import cost
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    prog = capture_expression(expr)
    module, flops = lower(prog)
    funcs = [op.sym_name.data for op in module.walk() if op.name == "kernel.func"]
    costs = kernel_costs(module)
    assert sorted(costs) == sorted(funcs) and all(b > 0 for _, b in costs.values())
    loop_module = prog.module.clone()
    run_pipeline(loop_module, IR_PIPELINES["loop"])
    counted = [cost(op) for op in loop_module.walk() if op.name == "loop.kernel"]
    assert sum(flops.values()) == sum(f for f, _ in counted) > 0


def test_arguments_are_aligned_for_vector_access():
    """An argument whose data starts off a 16-byte boundary is copied (torch's allocations are
    aligned), since the kernels use float4 loads and stores."""
    import torch

    from dpl.driver.host import aligned

    x = torch.arange(12, dtype=torch.float32)
    assert aligned(x) is x
    view = x[1:9]
    assert view.data_ptr() % 16 != 0
    copy = aligned(view)
    assert copy.data_ptr() % 16 == 0 and torch.equal(copy, view)
