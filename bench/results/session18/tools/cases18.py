"""Session 18 probes: sweep cases below ~0.85x eager in recent seeds (seed, name)."""
import sys
sys.path.insert(0, "bench")
import sweep

PROBES = [
    (0, "bmm_tt_b21_25x1381x101"), (0, "matmul_tt_512x2741x79"), (0, "matmul_nt_4544x239x271"),
    (26, "bmm_nt_b64_97x739x37"), (26, "matmul_nt_4096x29x2503"), (26, "bmm_tt_b13_221x911x397"),
    (22, "matmul_tt_97x1201x97"), (22, "matmul_nn_128x4096x451"), (22, "linear_mean_2048x397to57"),
    (23, "matmul_nn_47x1024x1024"), (24, "bmm_tt_b15_67x907x64"), (19, "matmul_tt_384x4083x16"),
]


def get(seed, name):
    cs = [c for c in sweep.all_cases(seed=seed) if c.name == name]
    if not cs:
        raise SystemExit(f"no case {name} in seed {seed}")
    return cs[0]
