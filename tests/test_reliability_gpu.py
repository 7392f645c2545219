"""On the GPU, just past each boundary of issue 20, every element checked against PyTorch in
float64 (driver/compile.Parity's rule, applied in chunks):

- 2^31 + 1 elements through a pointwise op (a ragged size: 2^31 + 1 one-thread blocks, more than
  grid x holds, so spread over x and y) and 2^31 + 256 (the float4 path that died with an
  illegal memory access before indices were 64-bit);
- a reduction over exactly 2^31 + 1 elements (the column sums of 3 x 715827883, a prime), and a
  row softmax over 2^31 + 1024 (2^21 + 1 rows of 1024);
- grids past 65535 in y/z: a batched matmul whose batch of 70000 would be grid y (3 x 70000 in
  z/y for the 4-D one), flattened into x by materialize;
- a planted cubin under the right cache key is not run: it is rebuilt with a warning.

Programs are compiled from torch IR (no 8 GB tensor on the host) with the default pipeline and run
by `driver.host.HostProgram` with outputs poisoned (NaN). Memory: at most about 20 GB at a time.

    python -m pytest -q -m gpu tests/test_reliability_gpu.py
    python3 tests/test_reliability_gpu.py          # the same checks as a table
"""

from __future__ import annotations

import datetime
import gc
import math
import sys
import time

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]

CHUNK = 1 << 26  # elements per reference chunk (512 MB in float64)


def compile_torch_ir(text: str):
    """Torch IR -> kernel IR (the default pipeline) -> a loaded HostProgram."""
    from dpl.dialects import kernel as K
    from dpl.dialects import make_context
    from dpl.dialects.parsing import parse_module
    from dpl.driver.host import HostProgram
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    module = parse_module(make_context(), text, "reliability.mlir")
    run_pipeline(module, IR_PIPELINES["kernel"])
    funcs = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    return HostProgram(module).load(), funcs


def unary(op: str, shape: str, out_shape: str) -> str:
    return (
        f"func.func @main(%x: tensor<{shape}xf32>) -> tensor<{out_shape}xf32> {{\n"
        f"  %r = torch.{op} : (tensor<{shape}xf32>) -> tensor<{out_shape}xf32>\n"
        f"  func.return %r : tensor<{out_shape}xf32>\n}}\n"
    )


def parity_in_chunks(pairs, tol: float):
    """Parity of (out chunk, float64 reference chunk) pairs (a callable giving them, called
    twice: first for the norms and the RMS, then per element)."""
    from dpl.driver.compile import Parity, elementwise_error

    sq_ref = sq_err = 0.0
    count = 0
    for o, r in pairs():
        sq_ref += float(r[r.isfinite()].pow(2).sum())
        sq_err += float((o.double() - r).pow(2).sum())
        count += r.numel()
    rms = math.sqrt(sq_ref / count) or 1.0
    rel = math.sqrt(sq_err) / math.sqrt(sq_ref) if sq_ref else math.sqrt(sq_err)
    worst, bad, where, start = -1.0, 0, "-", 0
    for o, r in pairs():
        e, n, at = elementwise_error(o, r, tol, tol * rms)
        bad += n
        if e > worst:
            flat_o, flat_r = o.reshape(-1), r.reshape(-1)
            worst, where = e, f"element {start + at}: {float(flat_o[at]):.6g} vs {float(flat_r[at]):.6g}"
        start += o.numel()
    return Parity(rel if math.isfinite(rel) else math.inf, max(worst, 0.0), bad, where, tol)


def _free() -> None:
    gc.collect()
    torch.cuda.empty_cache()


def check_pointwise(n: int):
    host, funcs = compile_torch_ir(unary("relu %x", str(n), str(n)))
    x = torch.randn(n, device="cuda")
    (out,) = host(x, poison=True)
    torch.cuda.synchronize()

    def pairs():
        for a in range(0, n, CHUNK):
            yield out[a : a + CHUNK], torch.relu(x[a : a + CHUNK].double())

    parity = parity_in_chunks(pairs, 1e-5)
    grids = [f.grid_extents for f in funcs]
    del x, out, host
    _free()
    return parity, grids, [f.index_bitwidth for f in funcs]


def check_column_sum():
    rows, cols = 3, 715827883  # 2^31 + 1 elements; 715827883 is prime
    host, funcs = compile_torch_ir(unary("sum %x {dims = [0], keepdim = false}", f"{rows}x{cols}", str(cols)))
    x = torch.randn(rows, cols, device="cuda")
    (out,) = host(x, poison=True)
    torch.cuda.synchronize()

    def pairs():
        for a in range(0, cols, CHUNK):
            yield out[a : a + CHUNK], x[:, a : a + CHUNK].double().sum(0)

    parity = parity_in_chunks(pairs, 1e-5)
    grids = [f.grid_extents for f in funcs]
    del x, out, host
    _free()
    return parity, grids, [f.index_bitwidth for f in funcs]


def check_row_softmax():
    rows, cols = 2**21 + 1, 1024  # 2^31 + 1024 elements
    shape = f"{rows}x{cols}"
    host, funcs = compile_torch_ir(unary("softmax %x {dim = 1}", shape, shape))
    x = torch.randn(rows, cols, device="cuda")
    (out,) = host(x, poison=True)
    torch.cuda.synchronize()
    step = CHUNK // cols

    def pairs():
        for a in range(0, rows, step):
            yield out[a : a + step], torch.softmax(x[a : a + step].double(), -1)

    parity = parity_in_chunks(pairs, 1e-5)
    grids = [f.grid_extents for f in funcs]
    del x, out, host
    _free()
    return parity, grids, [f.index_bitwidth for f in funcs]


def check_batched_matmul(expr: str):
    """A batched matmul through dpl.compile (small enough to capture on the host)."""
    from dpl.driver.compile import compare, compile_program, parity_tolerance, reference64
    from dpl.frontend import capture_expression
    from dpl.frontend.check import fresh_inputs

    prog = capture_expression(expr, dtype=torch.float32)
    compiled = compile_program(prog)
    inputs = fresh_inputs(prog, 1)
    out = compiled(*[x.cuda() for x in inputs], poison=True)
    outs = out if isinstance(out, tuple) else (out,)
    refs = [r.cuda() for r in reference64(prog, inputs)]  # float64 on the host
    parity = compare(list(outs), refs, parity_tolerance(prog))
    grids = [k.grid for k in compiled.kernels()]
    del out, outs, refs, compiled
    _free()
    return parity, grids, None


LIMITS = (2**31 - 1, 65535, 65535)
BMM = "torch.bmm(torch.randn(70000, 32, 8), torch.randn(70000, 8, 128))"
MATMUL4 = "torch.matmul(torch.randn(3, 70000, 16, 8), torch.randn(3, 70000, 8, 128))"
CASES = {
    "relu 2^31+1": lambda: check_pointwise(2**31 + 1),
    "relu 2^31+256": lambda: check_pointwise(2**31 + 256),
    "sum(0) 3x715827883 (2^31+1)": check_column_sum,
    "softmax 2097153x1024 (2^31+1024)": check_row_softmax,
    "bmm batch 70000 (grid y)": lambda: check_batched_matmul(BMM),
    "matmul 3x70000 batch (grid z/y)": lambda: check_batched_matmul(MATMUL4),
}


def _within_limits(grids) -> bool:
    return all(e <= limit for g in grids for e, limit in zip(g, LIMITS))


@pytest.mark.parametrize("case", list(CASES))
def test_boundary_case(case: str):
    parity, grids, bits = CASES[case]()
    assert parity.ok, f"{case}: {parity}"
    assert _within_limits(grids), grids
    if bits is not None:
        assert all(b == 64 for b in bits), bits  # past 2^31: 64-bit index arithmetic
    if "grid" in case:
        assert max(g[0] for g in grids) > 65535  # the batch went to x, not to y/z


RELU = """
kernel.func @k_relu(%x: memref<1024xf32>, %y: memref<1024xf32>) grid [4, 1, 1] block [256, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %zero = arith.constant 0.0 : f32
  %v = kernel.load %x[%b * 256 + %t] : memref<1024xf32>
  %r = arith.maximumf %v, %zero : f32
  kernel.store %r, %y[%b * 256 + %t] : memref<1024xf32>
}
"""
PLANTED = 'extern "C" __global__ void k_relu(const float* x, float* y) { y[blockIdx.x * 256 + threadIdx.x] = 42.0f; }\n'


def test_a_planted_cubin_is_rebuilt_not_run(tmp_path, monkeypatch):
    from dpl.backend.cache import CacheWarning
    from dpl.backend.runtime import Program, compile_cuda

    monkeypatch.setenv("DPL_CACHE_DIR", str(tmp_path / "cache"))
    first = Program.from_text(RELU).load()
    entry = first.compiled.path
    x = torch.randn(1024, device="cuda")
    want = first.run(x=x)["y"].clone()
    assert torch.equal(want, torch.relu(x))
    entry.write_bytes(compile_cuda(PLANTED, ["k_relu"], use_cache=False).cubin)  # a valid cubin, planted
    with pytest.warns(CacheWarning, match="failed its check"):
        second = Program.from_text(RELU).load()
    assert not second.compiled.cache_hit
    got = second.run(x=x)["y"]
    torch.cuda.synchronize()
    assert torch.equal(got, want), "the planted kernel ran"
    entry.write_bytes(entry.read_bytes()[:100])  # truncated
    with pytest.warns(CacheWarning, match="failed its check"):
        third = Program.from_text(RELU).load()
    assert torch.equal(third.run(x=x)["y"], want)
    assert Program.from_text(RELU).load().compiled.cache_hit  # and the entry is good again


def main() -> None:
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {datetime.date.today()}, torch {torch.__version__}\n")
    print("| case | grids | index bits | relative error | worst element / bound | elements past | ok | s |")
    print("|---|---|---|---|---|---|---|---|")
    failures = 0
    for name, check in CASES.items():
        t0 = time.time()
        try:
            p, grids, bits = check()
            ok = p.ok and _within_limits(grids)
            print(f"| {name} | {grids} | {bits or '-'} | {p.rel_err:.2e} | {p.elem_err:.2g} | {p.bad} | "
                  f"{'yes' if ok else 'NO'} | {time.time() - t0:.1f} |", flush=True)  # fmt: skip
        except Exception as e:  # noqa: BLE001 - one failing case must not hide the others
            ok = False
            print(f"| {name} | - | - | error: {str(e).splitlines()[0][:160]} | - | - | NO | {time.time() - t0:.1f} |",
                  flush=True)  # fmt: skip
        failures += not ok
    print(f"\n{len(CASES) - failures}/{len(CASES)} cases pass.")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
