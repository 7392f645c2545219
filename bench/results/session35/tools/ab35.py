"""Session 35 (issue 13, device): the short-K cases (shortk35.py), or the contractions of an
unseen sweep seed, under the tree and with its changes patched out, against eager in the same
process:

    python3 bench/results/session35/tools/ab35.py [--sweep SEED | --ordinary | --two-steps] [--cases REGEX] [--variants a,b] [--host] [JSON]

Variants: `base` (all of the session's changes patched out: a dim of extent 1 read at 0 not
merged, matmul blocks in launch order, SIMT tiles reading an operand unstaged modeled as staged
ones), `old` (the first two out), `unit` (matmul blocks in launch order), `tree`, `tc2` (the tree
with SIMT_MAX_STEPS 0), `ieee` (the tree on SIMT fp32). Call 2 timed a `row4` variant, a fill
of N-major stages by float4s along the rows with rotated scalar stores, since dropped (slower).
`--host` lists the cases `base` changes at tile level (nothing runs)."""
import re
import sys
from contextlib import ExitStack, contextmanager

sys.path.insert(0, "bench/results/session35/tools")
from shortk35 import CASES, TWO_STEPS  # noqa: E402
from dpl.bench.ab import changed, patched, report, time_variants  # noqa: E402
from dpl.dialects import loop, mma  # noqa: E402
from dpl.transforms.pipelines import kernel_schedule  # noqa: E402
from dpl.transforms.tile import common  # noqa: E402
from dpl.transforms.tile import schedule as SCH  # noqa: E402
from dpl.transforms.tile import order_blocks as OB  # noqa: E402
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr  # noqa: E402
import math  # noqa: E402

NEW_FLAT = common.flat_offset
ORDER = OB.order_blocks


def old_flat(results, shape):
    """flat_offset before session 35 (a unit dim read at 0 is not skipped)."""
    if len(results) == 1:
        return results[0]
    if all(isinstance(e, AffineConstantExpr) and 0 <= e.value < n for e, n in zip(results, shape)):
        return AffineConstantExpr(sum(e.value * math.prod(shape[d + 1:]) for d, e in enumerate(results)))
    candidates = [results[0].lhs] if isinstance(results[0], AffineBinaryOpExpr) else [results[0]]
    last = results[-1]
    if isinstance(last, AffineBinaryOpExpr) and last.kind == AffineBinaryOpKind.Mod:
        candidates.append(last.lhs)
    for flat in candidates:
        if list(results) == common.delinearize(flat, shape):
            return flat
    return None


def no_matmul_order(t, min_bytes):
    if any(isinstance(o, mma.DotOp) or (isinstance(o, loop.ForOp) and o.is_reduce) for o in t.walk()):
        return "off (session 35 A/B)"
    return ORDER(t, min_bytes)


@contextmanager
def unit_off():
    with ExitStack() as stack:
        for m in [m for m in list(sys.modules.values()) if getattr(m, "flat_offset", None) is NEW_FLAT]:
            stack.enter_context(patched(m, "flat_offset", old_flat))
        yield


@contextmanager
def old():
    with unit_off(), patched(OB, "order_blocks", no_matmul_order):
        yield


@contextmanager
def base():
    with old(), patched(SCH, "unstaged", lambda t: False):
        yield


VARIANTS = {
    "base": base,
    "old": old,
    "unit": lambda: patched(OB, "order_blocks", no_matmul_order),
    "tree": None,
    "tc2": lambda: patched(SCH, "SIMT_MAX_STEPS", 0),
    "ieee": re.sub(r"\bschedule\b", "schedule{tensor-cores=false}", kernel_schedule(), count=1),
}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["base", "tree"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--cases", "--variants", "--sweep"))]
if "--sweep" in args:
    sys.path.insert(0, "bench")
    import sweep  # noqa: E402
    seed = int(args[args.index("--sweep") + 1])
    CASES = sweep.all_cases(seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
    rest = [a for a in rest if a != str(seed)]
if "--two-steps" in args:  # K of at most 2 steps, and PointNet's 1x1 conv as the machine's canary
    CASES = TWO_STEPS + [c for c in CASES if c.name in ("pn_conv1d_64to128_32x2048", "mm_nn_4096x4096x64",
                                                          "pn_conv1d_128to1024_32x2048")]
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
            names += [x.name for x in changed([c], VARIANTS["base"], "tile")]
        except Exception as e:  # noqa: BLE001 (a program that cannot be built on "meta")
            print(f"{c.name}: {type(e).__name__} on meta: timed anyway", flush=True)
            names.append(c.name)
    print("base changes:", "|".join(names), flush=True)
    sys.exit(0)
variants = {k: VARIANTS[k] for k in names}
rows = time_variants(cases, variants, "eager", 20.0, 30, modes=("eager",))
report(rows, list(variants), "eager", 30, rest[0] if rest else None)
