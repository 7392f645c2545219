"""fuse-loops runs in time about linear in the number of kernels: a chain of a few thousand
kernels (matmul, relu, row norm per layer, as a deep model has) fuses in seconds, and four times
the kernels take about four times the work (the pass used to rescan every kernel after each
fusion: 1200 kernels took 139 s, 300 took 10 s). The fused chain keeps its meaning. A DAG
(kernels that read the one before and the one before that) inlines each producer once. A kernel
of many nests (a GRU's or LSTM's stacked outputs) fuses through scratch kernels into the IR that
whole copies give."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region

from dpl.dialects import loop, make_context
from dpl.dialects.parsing import parse_module
from dpl.frontend import capture_expression
from dpl.interpreters import exec_loop
from dpl.transforms.loop.fuse_loops import FuseLoops, Parts
from dpl.transforms.loop.scratch_kernel import free_nests
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

T = "memref<8x8xf32>"
LOOP = IR_PIPELINES["loop"]
BEFORE_FUSE = LOOP[: LOOP.index("fuse-loops")].rstrip(",")


def chain(layers: int) -> str:
    """@main: per layer a matmul by its own weight, a relu and a row norm (x * sum(x^2) per row)."""
    args = [f"%b0: {T}"] + [f"%w{i}: {T}" for i in range(layers)]
    body: list[str] = []
    n = 0

    def alloc() -> str:
        nonlocal n
        n += 1
        body.append(f"  %b{n} = memref.alloc() : {T}")
        return f"%b{n}"

    prev = "%b0"
    for i in range(layers):
        out = alloc()
        body.append(f"""  loop.kernel @k_mm{i} ins({prev}, %w{i} : {T}, {T}) outs({out} : {T}) {{
    loop.for free %a0 < 8 {{
      loop.for free %a1 < 8 {{
        %acc = loop.for reduce %r0 < 8 -> f32 {{
          %a = loop.load {prev}[%a0, %r0] : {T}
          %b = loop.load %w{i}[%r0, %a1] : {T}
          %p = arith.mulf %a, %b : f32
          loop.accumulate add %p : f32
        }}
        loop.store %acc, {out}[%a0, %a1] : {T}
      }}
    }}
  }}""")
        prev, out = out, alloc()
        body.append(f"""  loop.kernel @k_relu{i} ins({prev} : {T}) outs({out} : {T}) {{
    %z = arith.constant 0.0 : f32
    loop.for free %a0 < 8 {{
      loop.for free %a1 < 8 {{
        %v = loop.load {prev}[%a0, %a1] : {T}
        %r = arith.maximumf %v, %z : f32
        loop.store %r, {out}[%a0, %a1] : {T}
      }}
    }}
  }}""")
        prev, out = out, alloc()
        body.append(f"""  loop.kernel @k_norm{i} ins({prev} : {T}) outs({out} : {T}) {{
    loop.for free %a0 < 8 {{
      %s = loop.for reduce %r0 < 8 -> f32 {{
        %v = loop.load {prev}[%a0, %r0] : {T}
        %q = arith.mulf %v, %v : f32
        loop.accumulate add %q : f32
      }}
      loop.for free %a1 < 8 {{
        %v = loop.load {prev}[%a0, %a1] : {T}
        %y = arith.mulf %v, %s : f32
        loop.store %y, {out}[%a0, %a1] : {T}
      }}
    }}
  }}""")
        prev = out
    return f"func.func @main({', '.join(args)}) -> {T} {{\n" + "\n".join(body) + f"\n  func.return {prev} : {T}\n}}\n"


def chain_module(layers: int) -> ModuleOp:
    """`chain(layers)`, built by cloning one parsed layer (parsing thousands is slow)."""
    one = parse_module(make_context(), chain(1), "layer.mlir")
    (main,) = [op for op in one.walk() if isinstance(op, func.FuncOp)]
    x, w = main.body.block.args
    block = Block(arg_types=[x.type] * (layers + 1))
    prev = block.args[0]
    for i in range(layers):
        mapping = {x: prev, w: block.args[i + 1]}
        for op in main.body.block.ops:
            if isinstance(op, func.ReturnOp):
                prev = mapping[op.arguments[0]]
                continue
            new = op.clone(value_mapper=mapping)
            if isinstance(new, loop.KernelOp):
                new.sym_name = StringAttr(f"{op.sym_name.data[:-1]}{i}")
            block.add_op(new)
    block.add_op(func.ReturnOp(prev))
    return ModuleOp([func.FuncOp("main", ([x.type] * (layers + 1), [x.type]), Region(block))])


def fuse(layers: int, monkeypatch) -> tuple[float, int, int, int]:
    """Fuse `chain(layers)`: seconds, kernels left, ops walked and inlines tried on the way."""
    walked, tried = [0], [0]
    walk, try_inline = Operation.walk, FuseLoops._try_inline

    def counted_walk(op: Operation, *args, **kwargs):
        for inner in walk(op, *args, **kwargs):
            walked[0] += 1
            yield inner

    def counted_try(self, *args, **kwargs):
        tried[0] += 1
        return try_inline(self, *args, **kwargs)

    module = chain_module(layers)
    with monkeypatch.context() as m:
        m.setattr(Operation, "walk", counted_walk)
        m.setattr(FuseLoops, "_try_inline", counted_try)
        start = time.perf_counter()
        FuseLoops().apply(make_context(), module)
        seconds = time.perf_counter() - start
    return seconds, sum(isinstance(op, loop.KernelOp) for op in module.walk()), walked[0], tried[0]


def test_a_chain_of_thousands_of_kernels_fuses_in_about_linear_time(monkeypatch):
    """The work is counted, not timed (a shared CI machine's clock once made 4x the kernels
    take 9.7x as long): four times the kernels walk about four times the ops and try four
    times the inlines. The clock only bounds the big chain loosely."""
    _, kernels_small, walked_small, tried_small = fuse(100, monkeypatch)  # 300 kernels
    big, kernels_big, walked_big, tried_big = fuse(400, monkeypatch)  # 1200 kernels
    # each relu and norm joins the next layer's matmul as its prologue; the last norm stays
    assert (kernels_small, kernels_big) == (101, 401)
    assert walked_big < 4.2 * walked_small, f"4x the kernels walked {walked_big / walked_small:.1f}x the ops"
    assert tried_big < 4.2 * tried_small, f"4x the kernels tried {tried_big / tried_small:.1f}x the inlines"
    assert big < 60, f"1200 kernels took {big:.1f} s"


def test_the_fused_chain_keeps_its_meaning():
    module = parse_module(make_context(), chain(4), "chain.mlir")
    assert chain_module(4).is_structurally_equivalent(module)  # the clone-built chain is the parsed one
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((8, 8)) * 0.3 for _ in range(5)]
    (before,) = exec_loop.run(module, inputs)
    FuseLoops().apply(make_context(), module)
    module.verify()
    assert sum(isinstance(op, loop.KernelOp) for op in module.walk()) == 5
    (after,) = exec_loop.run(module, inputs)
    np.testing.assert_allclose(after, before, rtol=1e-12, atol=1e-12 * float(np.abs(before).max()))


def dag(steps: int) -> str:
    """@main: b[i] = b[i-2] * 0.5 + b[i-1] elementwise, b[0] and b[1] the arguments: each kernel
    reads the one before and the one before that (a DAG, as a binary search's positions are),
    the older buffer listed first."""
    body = []
    for i in range(2, steps + 2):
        body.append(f"""  %b{i} = memref.alloc() : {T}
  loop.kernel @k_{i} ins(%b{i - 2}, %b{i - 1} : {T}, {T}) outs(%b{i} : {T}) {{
    %h = arith.constant 0.5 : f32
    loop.for free %a0 < 8 {{
      loop.for free %a1 < 8 {{
        %u = loop.load %b{i - 2}[%a0, %a1] : {T}
        %v = loop.load %b{i - 1}[%a0, %a1] : {T}
        %p = arith.mulf %u, %h : f32
        %s = arith.addf %p, %v : f32
        loop.store %s, %b{i}[%a0, %a1] : {T}
      }}
    }}
  }}""")
    return (f"func.func @main(%b0: {T}, %b1: {T}) -> {T} {{\n" + "\n".join(body)
            + f"\n  func.return %b{steps + 1} : {T}\n}}\n")  # fmt: skip


def test_a_dag_of_producers_inlines_each_once(pass_log):
    """Producers are tried latest first where one reads another: the last kernel takes each
    of the others once (tried in their listed order, the older buffer first, each later
    producer's copy brought the older one's loads back to be inlined again: 41 fusions for 12
    kernels), and the fused kernel computes what the chain did."""
    module = parse_module(make_context(), dag(12), "dag.mlir")
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((8, 8)) for _ in range(2)]
    (before,) = exec_loop.run(module, inputs)
    FuseLoops().apply(make_context(), module)
    module.verify()
    assert sum(isinstance(op, loop.KernelOp) for op in module.walk()) == 1
    fused = [m for m in pass_log.lines if m.startswith("fuse @")]
    assert len(fused) == 11, fused
    (after,) = exec_loop.run(module, inputs)
    np.testing.assert_allclose(after, before, rtol=1e-6, atol=1e-6 * float(np.abs(before).max()))


RECURRENT = [
    "torch.nn.GRU(8, 16, batch_first=True)(torch.randn(2, 8, 8))[0]",
    "torch.nn.LSTM(8, 16, num_layers=2, batch_first=True)(torch.randn(2, 4, 8))[0]",
]


@pytest.mark.parametrize("expr", RECURRENT)
def test_scratch_kernels_fuse_as_whole_copies_do(expr: str, monkeypatch):
    """A recurrent net's stacked outputs are a kernel of one nest per step, each taking its
    step's producers: fusing into a scratch kernel of the nests that read the producer (with
    stand-ins for the others) gives, byte for byte, the IR that copying the whole kernel for
    every attempt gives; and it is taken for most attempts into a kernel of several nests."""
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, BEFORE_FUSE)
    whole = prog.module.clone()
    taken: list[bool] = []
    scratch = Parts.scratch

    def counted(parts: Parts, kernel: loop.KernelOp, readers):
        made = scratch(parts, kernel, readers)
        if len(free_nests(kernel)) >= 2:
            taken.append(made is not None)
        return made

    monkeypatch.setattr(Parts, "scratch", counted)
    run_pipeline(prog.module, "fuse-loops")
    monkeypatch.setattr(Parts, "scratch", lambda parts, *args: None)
    run_pipeline(whole, "fuse-loops")
    assert str(prog.module) == str(whole)
    assert sum(taken) > len(taken) / 2 > 0, f"{sum(taken)} of {len(taken)} attempts fused into a scratch kernel"
