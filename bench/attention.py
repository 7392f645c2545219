"""SDPA through dpl's flash kernel against PyTorch eager (fp32 SDPA: its memory-efficient kernel;
flash-attention proper needs fp16/bf16) and torch.compile, on the GPU: 32 heads, seq
128/512/2048/4096 (batch 8/4/2/1), head dim 64/128, causal and not. Each row: dpl's kernel count
(1: the flash kernel was taken), median ms of dpl / eager / torch.compile (CUDA graphs, bench/
harness.gpu_time), dpl's speed-up over eager, and the relative error against float64 of dpl and
eager. Runs in about 2 minutes on an H100; torch.compile is left out ("-") past 150 s.

    python3 bench/attention.py            # the whole table
    python3 bench/attention.py --quick    # seq 128 and 512 only
    python3 bench/attention.py --variants # the flash kernel's schedules side by side (below)

`--variants` times, per shape (28 heads causal at seq 128/512/1024/2048, head dim 64 and 128;
GQA 32 over 4 heads; one non-causal case; two decode-like shapes), the default schedule
(`default`) and each choice of tile-attention's options in VARIANTS (`rows` query rows per block,
`tile` keys per step, `wide` 128-bit fragment loads, `qsplit` the query tile split once) and, where the query blocks do not fill the GPU, SPLITS (`splits`: split-KV
and its combine kernel), each forced by a pipeline `tile-attention{..},schedule`; eager and
torch.compile once per shape. A row: the variant, ms, x eager, x torch.compile, relative error
against float64 (eager's in the shape's header line), the kernel count. About 6 minutes on an
H100 (`--only d128` or `--only s2048` narrows the shapes).
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
import torch.nn.functional as F

from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.pipelines import kernel_schedule

SHAPES = [(8, 128), (4, 512), (2, 2048), (1, 4096)]
HEADS = 32


class Sdpa(torch.nn.Module):
    def __init__(self, causal: bool, gqa: bool = False):
        super().__init__()
        self.causal, self.gqa = causal, gqa

    def forward(self, q, k, v):
        if self.gqa:
            return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=True)
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)


#: --variants: tile-attention options per head dim ("default": the schedule's own pick).
VARIANTS = {
    64: ["default", "rows=32 tile=64", "rows=64 tile=32", "rows=64 tile=128", "rows=128 tile=64"],
    # wide: 128-bit fragment loads (0: none, the kernel before them; 1: the scores', the default;
    # 2: P @ V's too); qsplit=1: the query tile split into TF32 parts once
    128: ["default", "tile=32 wide=0", "rows=64 tile=16 wide=0", "rows=64 tile=16", "rows=64 tile=16 wide=2",
          "rows=64 tile=16 wide=2 qsplit=1", "rows=128 tile=32 wide=0", "rows=128 tile=32",
          "rows=128 tile=32 qsplit=1", "tile=32 chain=8 wide=2"],
}
#: Split-KV choices, for the shapes whose query blocks do not fill the GPU.
SPLITS = {64: ["tile=64 splits=2", "tile=64 splits=4", "tile=64 splits=8", "tile=64 splits=16"],
          128: ["tile=32 splits=2", "tile=32 splits=4", "tile=32 splits=8", "tile=32 splits=16"]}

#: --variants: (batch, heads, kv heads, queries, keys, head dim, causal, with the split choices)
VARIANT_SHAPES = [
    *[(1, 28, 28, s, s, 128, True, s == 128) for s in (128, 512, 1024, 2048)],
    *[(1, 28, 28, s, s, 64, True, s == 128) for s in (128, 512, 2048)],
    (1, 32, 4, 512, 512, 128, True, False), (1, 32, 4, 2048, 2048, 128, True, False),
    (1, 28, 28, 1024, 1024, 128, False, False),
    (1, 32, 8, 1, 4096, 128, False, True),  # decode-like: one query, GQA
    (1, 8, 8, 16, 2048, 64, False, True),  # few heads, short queries, long keys
]


def variant_pipeline(opts: str) -> str | None:
    """The pipeline after loop IR that schedules the attention with tile-attention{opts}."""
    if opts == "default":
        return None
    spec = kernel_schedule()
    assert spec.startswith("split-nests,schedule,"), spec
    return spec.replace("split-nests,schedule,", f"split-nests,tile-attention{{{opts}}},schedule,", 1)


def variants(only: str | None) -> int:
    start = time.time()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}: flash schedules")
    print(f"{'variant':>18} {'ms':>8} {'x eager':>7} {'x tc':>6} {'err':>8} {'kern':>4}")
    failed = 0
    for b, h, hkv, lq, seq, d, causal, split in VARIANT_SHAPES:
        name = f"b{b} h{h}/{hkv} L {lq} S {seq} d {d}" + (" causal" if causal else "")
        if only and only not in f"d{d} s{seq} " + name:
            continue
        mod = Sdpa(causal, gqa=h != hkv)
        g = torch.Generator().manual_seed(seq + d + h)
        xs = [torch.randn(b, n, length, d, generator=g) for n, length in ((h, lq), (hkv, seq), (hkv, seq))]
        gs = [x.cuda() for x in xs]
        ref = mod(*(x.double() for x in gs))
        eager_err = rel(mod(*gs), ref)
        eager_ms = gpu_time(mod, [gs])["median_ms"]
        tc_ms = None
        if time.time() - start < 420:
            torch._dynamo.reset()
            comp = torch.compile(mod, dynamic=False)
            comp(*gs)
            tc_ms = gpu_time(comp, [gs])["median_ms"]
        tc = f"{tc_ms:.3f}" if tc_ms else "-"
        print(f"# {name}: eager {eager_ms:.3f} ms (err {eager_err:.1e}), torch.compile {tc} ms", flush=True)
        for opts in VARIANTS[d] + (SPLITS[d] if split else []):
            try:
                c = dpl_compile(mod, *xs, pipeline=variant_pipeline(opts), tune_cache=False)
                out = c(*gs, poison=True)
                err = rel(out, ref)
                ms = gpu_time(c, [gs])["median_ms"]
            except Exception as e:  # noqa: BLE001 - one line per failed variant, go on
                print(f"{opts:>18} failed: {str(e).splitlines()[0][:120]}", flush=True)
                failed += 1
                continue
            x_tc = f"{tc_ms / ms:6.2f}" if tc_ms else f"{'-':>6}"
            print(f"{opts:>18} {ms:8.3f} {eager_ms / ms:7.2f} {x_tc} {err:8.1e} {c.num_kernels:>4}", flush=True)
            if err > max(2 * eager_err, 2e-6):
                failed += 1
        del ref
    print(f"# {time.time() - start:.0f} s; {failed} variant(s) failed or over 2x eager's error")
    return 1 if failed else 0


def rel(a: torch.Tensor, ref: torch.Tensor) -> float:
    return float((a.double() - ref).norm() / ref.norm())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="seq 128 and 512 only")
    ap.add_argument("--variants", action="store_true", help="the flash kernel's schedules side by side")
    ap.add_argument("--only", help="--variants: the shapes whose name holds this (e.g. d128, s2048)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("bench/attention.py: needs an NVIDIA GPU", file=sys.stderr)
        return 1
    if args.variants:
        return variants(args.only)
    start = time.time()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, heads {HEADS}")
    print(f"{'batch':>5} {'seq':>5} {'d':>4} {'causal':>6} {'kern':>4} {'dpl ms':>8} {'eager ms':>8} "
          f"{'tc ms':>8} {'x eager':>7} {'err dpl':>8} {'err eager':>9}")  # fmt: skip
    failed = 0
    shapes = SHAPES[:2] if args.quick else SHAPES
    for b, seq in shapes:
        for d in (64, 128):
            for causal in (False, True):
                mod = Sdpa(causal)
                g = torch.Generator().manual_seed(seq + d)
                xs = [torch.randn(b, HEADS, seq, d, generator=g) for _ in range(3)]
                gs = [x.cuda() for x in xs]
                ref = mod(*(x.double() for x in gs))
                row = f"{b:>5} {seq:>5} {d:>4} {str(causal):>6}"
                try:
                    c = dpl_compile(mod, *xs)
                    out = c(*gs, poison=True)
                    err = rel(out, ref)
                    ms = gpu_time(c, [gs])["median_ms"]
                    kern = c.num_kernels
                except Exception as e:  # noqa: BLE001 - one line per failed case, go on
                    print(f"{row} dpl failed: {str(e).splitlines()[0][:120]}", flush=True)
                    failed += 1
                    continue
                eager_err = rel(mod(*gs), ref)
                eager_ms = gpu_time(mod, [gs])["median_ms"]
                tc = "-"
                if time.time() - start < 150:
                    torch._dynamo.reset()
                    comp = torch.compile(mod, dynamic=False)
                    comp(*gs)
                    tc = f"{gpu_time(comp, [gs])['median_ms']:8.3f}"
                del ref
                print(f"{row} {kern:>4} {ms:8.3f} {eager_ms:8.3f} {tc:>8} {eager_ms / ms:7.2f} "
                      f"{err:8.1e} {eager_err:9.1e}", flush=True)  # fmt: skip
                if kern != 1 or err > max(2 * eager_err, 2e-6):
                    failed += 1
    print(f"# {time.time() - start:.0f} s; {failed} case(s) failed (more than one kernel, or an error "
          "over 2x eager's)")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
