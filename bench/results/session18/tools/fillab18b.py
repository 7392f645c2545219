"""FILL_UNROLL_TRIPS 8 (before) against 16 (landed) on the sweep programs whose CUDA it changes
(fillchanged.py) and seed 26's 4096 x 29 x 2503 nt; bench/ab.py's time_variants, eager only.
argv: file of 'seed name' lines"""
import sys
sys.path.insert(0, "bench")
import sweep
from dpl.bench import ab
from dpl.transforms.kernel import stage_fills

wanted = [l.split()[:2] for l in open(sys.argv[1]) if l.strip() and l[0].isdigit()]
by_seed: dict = {}
for seed, name in wanted:
    by_seed.setdefault(int(seed), []).append(name)
cases = [c for s, names in by_seed.items() for c in sweep.all_cases(seed=s) if c.name in names]
import types, torch
F = torch.nn.functional


def direct(name, fn, *shapes):  # a row kernel of few rows staged by 256 lanes, 9-16 trips a lane
    def build(dev):
        g = torch.Generator(device=dev).manual_seed(0)
        return fn, tuple(torch.randn(s, device=dev, generator=g) for s in shapes)
    return types.SimpleNamespace(name=name, build=build)


cases += [direct("softmax_64x3001", lambda x: torch.softmax(x, -1), (64, 3001)),
          direct("layernorm_100x2999", lambda x: F.layer_norm(x, (2999,)), (100, 2999))]
variants = {"u8": lambda: ab.patched(stage_fills, "FILL_UNROLL_TRIPS", 8), "u16": None}
rows = ab.time_variants(cases, variants, "eager", 30.0, 34, modes=("eager",))
ab.report(rows, list(variants), "eager", 34, None)
