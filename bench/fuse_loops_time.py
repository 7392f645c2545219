"""fuse-loops' compile time and output, on recurrent nets and a dozen varied programs.

    python bench/fuse_loops_time.py time [--steps 4,8,16,32,64] [--bidir 32]
    python bench/fuse_loops_time.py dump DIR [--only NAME,...]
    diff -r BEFORE_DIR AFTER_DIR

`time` prints the seconds fuse-loops takes on nn.GRU(32, 64) over (8, T, 32) for each T, and on a
2-layer bidirectional GRU (CPU time of this process: steadier than wall time on a shared host).
`dump` writes each program's loop IR right after fuse-loops to DIR/NAME.mlir: dumped before and
after a change to fuse-loops, the two directories must be identical (the pass is deterministic;
a change that only makes it faster changes no byte). Another checkout's pass is dumped by
running this script with PYTHONPATH at a directory whose `dpl` is that checkout.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import torch

from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

LOOP = IR_PIPELINES["loop"]
BEFORE_FUSE = LOOP[: LOOP.index("fuse-loops")].rstrip(",")

F = "F."
PROGRAMS = {
    "gru": "torch.nn.GRU(32, 64, batch_first=True)(torch.randn(8, 12, 32))[0]",
    "lstm": "torch.nn.LSTM(32, 64, batch_first=True)(torch.randn(8, 12, 32))[0]",
    "gru_bidir": "torch.nn.GRU(16, 32, num_layers=2, bidirectional=True, batch_first=True)(torch.randn(4, 6, 16))[0]",
    "lstm_batch32": "torch.nn.LSTM(16, 32, batch_first=True)(torch.randn(32, 10, 16))[1][1]",
    "rnn_tanh": "torch.nn.RNN(16, 32, batch_first=True)(torch.randn(4, 8, 16))[0]",
    "mlp": "torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64))(torch.randn(32, 64))",
    "transformer": "torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)(torch.randn(2, 16, 64))",
    "convnet": "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),"
               " torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, padding=1, groups=2), torch.nn.ReLU(),"
               " torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))(torch.randn(2, 3, 16, 16))",
    "softmax": "torch.softmax(torch.randn(64, 300), dim=-1)",
    "softmax_dim1": "torch.softmax(torch.randn(4, 30, 17), dim=1)",
    "layernorm": "torch.nn.LayerNorm(96)(torch.randn(8, 20, 96))",
    "rmsnorm_4d": "torch.nn.RMSNorm([12])(torch.randn(2, 5, 7, 12).permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1))",
    "attention": F + "scaled_dot_product_attention(torch.randn(2, 4, 32, 16), torch.randn(2, 4, 32, 16), torch.randn(2, 4, 32, 16), is_causal=True)",
    "squeeze_excite": "(lambda x, w1, w2: x * torch.sigmoid(torch.relu(x.mean((2, 3)) @ w1) @ w2)[:, :, None, None])"
                      "(torch.randn(2, 24, 5, 7), torch.randn(24, 4), torch.randn(4, 24))",
    "cross_entropy": F + "cross_entropy(torch.randn(6, 40), torch.randint(0, 40, (6,)))",
    "depthwise": "torch.nn.Conv2d(4, 4, 3, padding=1, groups=4)(torch.randn(2, 4, 9, 11))",
    "topk": "torch.topk(torch.randn(3, 37), 5, dim=-1).values",
    "cumprod_sigmoid": "torch.cumprod(torch.sigmoid(torch.randn(2, 640)), dim=1)",
    "experts": "torch.einsum('te,teh->th', torch.softmax(torch.randn(16,8),-1), torch.randn(16,8,40))",
    "sort": "torch.sort(torch.randn(4, 19), dim=0).values",
}


def prefused(expr: str):
    """`expr`'s module lowered to loop IR up to fuse-loops."""
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, BEFORE_FUSE)
    return prog.module


def fuse_seconds(expr: str) -> float:
    module = prefused(expr)
    start = time.process_time()
    run_pipeline(module, "fuse-loops")
    return time.process_time() - start


def gru(steps: int) -> str:
    return f"torch.nn.GRU(32, 64, batch_first=True)(torch.randn(8, {steps}, 32))[0]"


def bidir_gru(steps: int) -> str:
    return f"torch.nn.GRU(32, 64, num_layers=2, bidirectional=True, batch_first=True)(torch.randn(8, {steps}, 32))[0]"


def dump(out: Path, only: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, expr in PROGRAMS.items():
        if only and name not in only:
            continue
        module = prefused(expr)
        start = time.process_time()
        run_pipeline(module, "fuse-loops")
        seconds = time.process_time() - start
        (out / f"{name}.mlir").write_text(str(module))
        kernels = str(module).count("loop.kernel @")
        print(f"{name:16s} {kernels:4d} kernels  fuse-loops {seconds:6.2f} s", flush=True)


def main() -> None:
    warnings.filterwarnings("ignore", message="The tensor attributes")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time")
    t.add_argument("--steps", default="4,8,16,32,64")
    t.add_argument("--bidir", type=int, default=32, help="T of the 2-layer bidirectional GRU (0: skip)")
    d = sub.add_parser("dump")
    d.add_argument("dir", type=Path)
    d.add_argument("--only", default="")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.dir, [n for n in args.only.split(",") if n])
        return
    for steps in [int(s) for s in args.steps.split(",") if s]:
        print(f"GRU(32, 64) T={steps:3d}: fuse-loops {fuse_seconds(gru(steps)):6.2f} s", flush=True)
    if args.bidir:
        print(f"2-layer bidirectional GRU T={args.bidir}: fuse-loops {fuse_seconds(bidir_gru(args.bidir)):6.2f} s", flush=True)


if __name__ == "__main__":
    main()
