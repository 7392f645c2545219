"""Time one matmul (y = x @ w.T, fp32) under several tile pipelines, to choose the schedule.

    python3 bench/matmul_variants.py [--shapes 128x3584x3584,...] [--variants base,rt8x8,...]

Each variant is the matmul class's tile pipeline with options changed (see VARIANTS); every
result is checked against PyTorch (rel err) and timed alone with L2 flushed, next to eager.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import contextmanager

import torch

from dpl.driver import host
from dpl.bench.harness import gpu_time
from dpl.frontend.check import rel_err
from dpl.driver.compile import compile as dpl_compile

BASE = (
    "tileify,chunk-matmul-k{{k-tile={kt}}},{split}register-tile{{rows={r} cols={c}}},"
    "blockify-launch,permute-register-tile,cooperative-reduce,stage-inputs,"
    "mark-unroll{{max-extent=32}},double-buffer,async-copy{{target=sm_90}},pad-smem{{pad={pad}}},"
    "pipeline-k-outer"
)


def spec(kt=32, r=4, c=4, splits=1, pad=1, aip=0) -> str:
    split = f"split-matmul-k{{splits={splits}}}," if splits > 1 else ""
    tail = ",accumulate-in-place" if aip else ""
    return "split-nests," + BASE.format(kt=kt, r=r, c=c, split=split, pad=pad) + ",materialize" + tail


VARIANTS = {
    "base": spec(),
    "rt8x8": spec(r=8, c=8),
    "rt8x4": spec(r=8, c=4),
    "rt4x8": spec(r=4, c=8),
    "rt8x8k16": spec(kt=16, r=8, c=8),
    "rt8x8k8": spec(kt=8, r=8, c=8),
    "sk2": spec(splits=2),
    "sk4": spec(splits=4),
    "sk8": spec(splits=8),
    "rt8x8sk4": spec(r=8, c=8, splits=4),
    "rt8x4sk4": spec(r=8, c=4, splits=4),
    "pad4": spec(pad=4),
    "rt8x4pad4": spec(r=8, c=4, pad=4),
    "rt8x8pad4": spec(r=8, c=8, pad=4),
    "pad4sk2": spec(pad=4, splits=2),
    "pad4sk4": spec(pad=4, splits=4),
    "pad4sk8": spec(pad=4, splits=8),
    "rt8x4pad4sk4": spec(r=8, c=4, pad=4, splits=4),
    "rt8x8pad4sk4": spec(r=8, c=8, pad=4, splits=4),
    # `aip`: the chunked K loop folds straight into the outer accumulators (accumulate-in-place)
    "pad4aip": spec(pad=4, aip=1),
    "pad4sk4aip": spec(pad=4, splits=4, aip=1),
    "rt8x4pad4aip": spec(r=8, c=4, pad=4, aip=1),
    "rt8x8pad4aip": spec(r=8, c=8, pad=4, aip=1),
    "rt8x8pad4sk4aip": spec(r=8, c=8, pad=4, splits=4, aip=1),
    # pad 2: K read as float2, half the operand registers of float4 (8x8: 140 instead of 246)
    "rt8x8pad2aip": spec(r=8, c=8, pad=2, aip=1),
    "rt8x8pad2sk2aip": spec(r=8, c=8, pad=2, splits=2, aip=1),
    "rt8x8pad2sk4aip": spec(r=8, c=8, pad=2, splits=4, aip=1),
    "rt8x4pad2aip": spec(r=8, c=4, pad=2, aip=1),
}
# `lb2`: the same CUDA with `__launch_bounds__(256, 2)`: ptxas keeps 128 registers, 2 blocks/SM
for _name in ("rt8x8pad4aip", "rt8x8pad4sk2aip", "rt8x8pad4sk4aip"):
    VARIANTS[_name + "lb2"] = VARIANTS.get(_name) or spec(
        r=8, c=8, pad=4, aip=1, splits=int(_name[-4]) if "sk" in _name else 1
    )


@contextmanager
def launch_bounds(name: str):
    """For `*lb2` variants, print each kernel's launch bounds with a minimum of 2 blocks/SM."""
    if not name.endswith("lb2"):
        yield
        return
    original = host.print_cuda
    host.print_cuda = lambda m: original(m).replace(
        "__launch_bounds__(256)", "__launch_bounds__(256, 2)"
    )
    try:
        yield
    finally:
        host.print_cuda = original


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="128x3584x3584,512x3584x3584,2048x3584x3584,128x512x3584,128x18944x3584,128x3584x18944")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    a = ap.parse_args()
    dev = torch.device("cuda")
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} {time.strftime('%Y-%m-%d')}")
    print("| M x N x K | variant | ms | TFLOP/s | eager ms | dpl/eager | rel err | grid |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in a.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        x = torch.randn(1, m, k)
        w = torch.randn(n, k) / k**0.5
        fn = lambda x, w: torch.nn.functional.linear(x, w)  # noqa: E731
        xg, wg = x.to(dev), w.to(dev)
        ref = fn(xg.double(), wg.double())
        eager = gpu_time(fn, [(xg, wg)], flush=True)["median_ms"]
        flops = 2 * m * n * k
        for name in a.variants.split(","):
            try:
                with launch_bounds(name):
                    c = dpl_compile(fn, x, w, pipeline=VARIANTS[name])
                    out = c(xg, wg, poison=True)
                err = rel_err(out, ref)
                t = gpu_time(lambda x, w: c(x, w), [(xg, wg)], flush=True)["median_ms"]
                grid = ";".join("x".join(map(str, kk.grid)) for kk in c.kernels())
                print(f"| {shape} | {name} | {t:.4f} | {flops / t / 1e9:.1f} | {eager:.4f} | "
                      f"{eager / t:.2f} | {err:.1e} | {grid} |", flush=True)
            except Exception as e:  # one broken variant must not hide the others
                print(f"| {shape} | {name} | error: {str(e).splitlines()[0][:120]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
