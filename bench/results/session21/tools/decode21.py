"""Session 21 (issue 13, call 4): programs with an M of 1 (decode-time linears, vector-matrix
products such as decode attention's, decoder layers at seq 1) as the tree schedules them (a
contraction with a side of extent 1 is a reduction, its matrix's columns on a warp) against
before (a matmul kernel, or packed short rows along K), eager and torch.compile in the same
process (bench/ab.py: CUDA graphs, inputs rotated past L2, checked against float64).

    python3 bench/results/session21/tools/decode21.py"""
import contextlib
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session21/tools")
import sweep  # noqa: E402
from thinvec21 import column_axis_before  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.frontend import hf  # noqa: E402
from dpl.transforms.loop import fuse_loops  # noqa: E402
from dpl.transforms.tile import blockify_launch, pad_columns, schedule_classes, schedule_mma  # noqa: E402


@contextlib.contextmanager
def before():
    with patched(schedule_mma, "MIN_MN", 32), patched(pad_columns, "column_axis", column_axis_before), \
            patched(blockify_launch, "column_axis", column_axis_before), \
            patched(schedule_classes, "contraction_width", lambda k, b, unit=True: fuse_loops.contraction_width(k, b)):
        yield


class Layer:
    def __init__(self, model):
        self.name = f"{model}_layer_s1"
        self.model = model

    def build(self, device):
        layer, inputs = hf.decoder_layer(self.model, seq=1)
        return layer.to(device).eval(), tuple(x.to(device) for x in inputs)


C, L = sweep.matmul_case, sweep.linear_epilogue_case
cases = [L(1, 2048, 2048, "none"), L(1, 2048, 5632, "silu_mul"), L(1, 5632, 2048, "residual"),
         L(1, 4096, 4096, "gelu"), C(1, 32000, 2048, "nt"), C(1, 1024, 128, "nn", batch=32),
         C(1, 128, 2048, "nn", batch=16), C(1, 4096, 128, "nn", batch=32), C(1, 4096, 4096, "nn"),
         C(1, 1000, 3000, "nn", batch=3), Layer("tinyllama"), Layer("qwen2.5-7b")]
if __name__ == "__main__":
    variants = {"before": before, "tree": None}
    rows = time_variants(cases, variants, "eager", 20.0, 32)
    report(rows, list(variants), "eager", 32, None)
