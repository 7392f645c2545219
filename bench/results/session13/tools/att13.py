"""Flash kernel: more independent score MMAs per warp (flash_step.WIDE_GROUP, GROUP), timed as
bench/attention.py --variants does. python3 .gpu/s13/att13.py"""
import sys, time, torch
sys.path.insert(0, "bench")
from attention import Sdpa, variant_pipeline, rel
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
import dpl.transforms.kernel.flash_step as FS

# (label, tile-attention options, WIDE_GROUP, GROUP)
VARIANTS = [("default", "default", 1, 4), ("wg2", "default", 2, 4), ("wg2 g8", "default", 2, 8),
            ("tile32 wg1", "tile=32", 1, 4), ("tile32 wg2", "tile=32", 2, 4), ("tile32 wg4", "tile=32", 4, 4)]
SHAPES = [(1, 28, 28, 512, 512, 128, True), (1, 28, 28, 1024, 1024, 128, True),
          (1, 28, 28, 2048, 2048, 128, True), (1, 28, 28, 1024, 1024, 128, False)]
start = time.time()
for b, h, hkv, lq, seq, d, causal in SHAPES:
    name = f"b{b} h{h}/{hkv} L{lq} S{seq} d{d}" + (" causal" if causal else "")
    mod = Sdpa(causal, gqa=h != hkv)
    g = torch.Generator().manual_seed(seq + d + h)
    xs = [torch.randn(b, n, length, d, generator=g) for n, length in ((h, lq), (hkv, seq), (hkv, seq))]
    gs = [x.cuda() for x in xs]
    ref = mod(*(x.double() for x in gs))
    eerr = rel(mod(*gs), ref)
    ems = gpu_time(mod, [gs])["median_ms"]
    print(f"# {name}: eager {ems*1e3:.1f} us err {eerr:.1e}", flush=True)
    for label, opts, wg, grp in VARIANTS:
        FS.WIDE_GROUP, FS.GROUP = wg, grp
        try:
            c = dpl_compile(mod, *xs, pipeline=variant_pipeline(opts), tune_cache=False)
            out = c(*gs, poison=True)
            err = rel(out, ref)
            ms = gpu_time(c, [gs])["median_ms"]
            print(f"  {label:>12} {ms*1e3:8.1f} us {ems/ms:5.2f}x eager err {err:.1e} kern {c.num_kernels}", flush=True)
        except Exception as e:
            print(f"  {label:>12} failed: {str(e).splitlines()[0][:150]}", flush=True)
    FS.WIDE_GROUP, FS.GROUP = 1, 4
print(f"# {time.time()-start:.0f} s")
