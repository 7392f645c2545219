"""Session 32 (issue 13, device): a padded convolution's or pooling's input as one elementwise op
(the tree) against a concat per padded dim (common32.old_pad), on the ordinary programs with
padding (ordinary32.CASES), eager and torch.compile in the same process:

    python3 bench/results/session32/tools/ab32p.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session32/tools")
from common32 import old_pad  # noqa: E402
from ordinary32 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

PADDED = ("conv3x3_8x64", "convbnrelu3x3", "conv3x3s2", "dwconv3x3", "conv1d5", "stem7x7", "maxpool",
          "avgpool3s1p1", "conv3x3_16x256", "conv3x3_3x37", "conv3x3_2x320", "conv5x5")
cases = [c for c in CASES if c.name.startswith(PADDED)]
variants = {"concat": old_pad, "select": None}
rows = time_variants(cases, variants, "eager", 20.0, 34)
report(rows, list(variants), "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
report(rows, list(variants), "compile", 34, None)
