"""Session 36 (issue 13, device): slice assignments and concatenations, under the tree and with
its changes patched out, against eager in the same process:

    python3 bench/results/session36/tools/ab36.py [--ordinary | --sweep SEED | --layers] [--cases REGEX] [--variants a,b] [--host] [JSON]

Variants: `base` (fold-concats out of the pipeline, every concat its own buffer, no part of a
concat fused with another: the tree before session 36), `nofold` (the tree without
fold-concats), `tree`. By default the slice-assignment programs below (`ASSIGN`); `--layers`: the decoder layers of
TinyLlama and Qwen2.5-7B at 128 and 512 tokens; `--ordinary`:
session 34's 55 ordinary programs; `--sweep SEED`: an unseen sweep seed's cases. `--host` lists
the cases `base` changes (nothing runs)."""
import random
import re
import sys
from contextlib import contextmanager

import torch

sys.path.insert(0, "bench")
sys.path.insert(0, "tests")
import sweep  # noqa: E402
from test_fold_concats import _Assignments, _slice  # noqa: E402
from dpl.bench.ab import changed, patched, report, time_variants  # noqa: E402
from dpl.frontend import hf  # noqa: E402
from dpl.transforms import pipelines as P  # noqa: E402
from dpl.transforms.loop import lower_to_loops as LTL  # noqa: E402
from dpl.transforms.loop import split_nests as SN  # noqa: E402

S = sweep.SweepCase


@contextmanager
def nofold():
    old = dict(P.IR_PIPELINES)
    for k, v in old.items():
        P.IR_PIPELINES[k] = v.replace("fold-concats,", "").replace(",fold-concats", "")
    try:
        yield
    finally:
        P.IR_PIPELINES.update(old)


@contextmanager
def base():
    with nofold(), patched(LTL, "_inlined_into_concat", lambda op: False), \
            patched(SN, "writes_apart", lambda nests: False):
        yield


VARIANTS = {"base": base, "nofold": nofold, "tree": None}


class Chain(torch.nn.Module):
    """`_Assignments` with `steps` assignments over up to `axes` axes."""

    def __init__(self, seed, shape, steps, axes):
        super().__init__()
        self.m = _Assignments(seed, shape)
        rng = random.Random(seed + 1000)
        self.m.steps = []
        for _ in range(steps):
            box = [slice(None)] * len(shape)
            for axis in rng.sample(range(len(shape)), rng.randint(1, axes)):
                box[axis] = _slice(rng, shape[axis])
            self.m.steps.append((tuple(box), rng.choice(["x", "y", "self"]), rng.randint(-1, 1)))

    def forward(self, x, y):
        return self.m(x, y)


class Pad(torch.nn.Module):
    """A zeroed buffer with the input written into its middle, then a border filled."""

    def forward(self, x):
        b, c, h, w = x.shape
        out = x.new_zeros(b, c, h + 2, w + 2)
        out[:, :, 1:-1, 1:-1] = x
        out[:, :, 0] = out[:, :, 1]
        return out


class KvUpdate(torch.nn.Module):
    """A KV cache written at positions [p, p + s) of a copy, then read up to p + s."""

    def forward(self, cache, new):
        p, s = 300, new.shape[2]
        c = cache.clone()
        c[:, :, p:p + s] = new
        return c[:, :, :p + s] * 1.0


class RotateHalf(torch.nn.Module):
    def forward(self, x, cos, sin):
        h = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., h:], x[..., :h]), -1) * sin


ASSIGN = [
    S("tsm_64x256x14x14", "vision", lambda: __import__("frontend_ops")._TemporalShift(8), ((64, 256, 14, 14),)),
    S("tsm_16x1024x28x28", "vision", lambda: __import__("frontend_ops")._TemporalShift(8), ((16, 1024, 28, 28),)),
    S("pad_assign_32x64x111x111", "vision", lambda: Pad(), ((32, 64, 111, 111),)),
    S("kv_update_4x32x1024x128", "nlp", lambda: KvUpdate(), ((4, 32, 1024, 128), (4, 32, 77, 128))),
    S("rotate_half_1x32x2048x128", "nlp", lambda: RotateHalf(), ((1, 32, 2048, 128), (2048, 128), (2048, 128))),
] + [
    S(f"chain{steps}x{axes}_s{seed}_{'x'.join(map(str, shape))}", "pointwise",
      lambda seed=seed, shape=shape, steps=steps, axes=axes: Chain(seed, shape, steps, axes), (shape, shape))
    for seed, shape, steps, axes in [(0, (64, 513, 257), 3, 1), (1, (64, 513, 257), 3, 2), (2, (127, 255, 511), 4, 2),
                                     (3, (33, 1021, 515), 2, 2), (4, (64, 513, 257), 8, 3), (5, (511, 1023, 31), 6, 3)]
]

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["base", "tree"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--cases", "--variants", "--sweep"))]
CASES = ASSIGN
if "--sweep" in args:
    seed = int(args[args.index("--sweep") + 1])
    CASES = sweep.all_cases(seed)
    rest = [a for a in rest if a != str(seed)]
if "--layers" in args:  # the decoder layers whose rotary concatenations now run as one launch
    class Layer:
        def __init__(self, model, seq):
            self.name, self.model, self.seq = f"{model}_layer_s{seq}", model, seq

        def build(self, device):
            m, xs = hf.decoder_layer(self.model, seq=self.seq)
            return m.to(device), tuple(x.to(device) for x in xs)

    CASES = [Layer(m, s) for m in ("tinyllama", "qwen2.5-7b") for s in (128, 512)]
if "--ordinary" in args:  # session 34's 55 ordinary programs
    sys.path.insert(0, "bench/results/session34/tools")
    from ordinary34 import CASES as O1  # noqa: E402
    from ordinary34b import CASES as O2  # noqa: E402
    CASES = O1 + O2
cases = [c for c in CASES if re.search(pat, c.name)]
if "--host" in args:
    names = []
    for c in cases:
        try:
            names += [x.name for x in changed([c], VARIANTS["base"], "kernel")]
        except Exception as e:  # noqa: BLE001 (a program that cannot be built on "meta")
            print(f"{c.name}: {type(e).__name__} on meta: timed anyway", flush=True)
            names.append(c.name)
    print("base changes:", "|".join(names), flush=True)
    sys.exit(0)
variants = {k: VARIANTS[k] for k in names}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, list(variants), "eager", 34, rest[0] if rest else None)
