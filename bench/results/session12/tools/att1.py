"""Flash attention split-KV and schedule choices, timed as bench/attention.py --variants does.
python3 .gpu/s12/att1.py [filter]"""
import sys, time, torch
sys.path.insert(0, "bench")
from attention import Sdpa, variant_pipeline, rel
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile

# (batch, heads, kv heads, queries, keys, d, causal, [tile-attention options])
C16 = ["default", "tile=16 splits=2", "tile=16 splits=3", "tile=16 splits=4", "tile=16 splits=8"]
SHAPES = [
    (1, 28, 28, 128, 128, 128, True, ["default", "tile=16 chain=0", "tile=16 chain=0 splits=2", "tile=16 splits=2", "tile=16 chain=2"]),
    (1, 28, 28, 512, 512, 128, True, ["default", "tile=16 chain=0", "tile=16 chain=0 splits=2", "tile=16 chain=2", "rows=128 tile=16 chain=0", "tile=16 chain=0 wide=0"]),
    (1, 28, 28, 1024, 1024, 128, True, ["default", "tile=16 chain=0", "tile=16 chain=0 splits=2"]),
    (1, 28, 28, 2048, 2048, 128, True, ["default", "tile=16 chain=0", "tile=16 chain=0 splits=2", "rows=128 tile=16 chain=0"]),
    (1, 32, 4, 512, 512, 128, True, ["default", "tile=16 chain=0"]),
    (1, 32, 4, 2048, 2048, 128, True, ["default", "tile=16 chain=0"]),
    (1, 28, 28, 1024, 1024, 128, False, ["default", "tile=16 chain=0", "tile=32 chain=0"]),
    (1, 32, 4, 128, 128, 64, True, ["default", "tile=64 chain=0", "tile=64 chain=0 splits=2"]),
    (1, 32, 4, 512, 512, 64, True, ["default", "tile=64 chain=0"]),
    (1, 32, 4, 2048, 2048, 64, True, ["default", "tile=64 chain=0"]),
    (1, 28, 4, 4096, 4096, 128, True, ["default", "tile=16 chain=0"]),
]
only = sys.argv[1] if len(sys.argv) > 1 else ""
start = time.time()
for b, h, hkv, lq, seq, d, causal, opts in SHAPES:
    name = f"b{b} h{h}/{hkv} L{lq} S{seq} d{d}" + (" causal" if causal else "")
    if only not in name:
        continue
    mod = Sdpa(causal, gqa=h != hkv)
    g = torch.Generator().manual_seed(seq + d + h)
    xs = [torch.randn(b, n, length, d, generator=g) for n, length in ((h, lq), (hkv, seq), (hkv, seq))]
    gs = [x.cuda() for x in xs]
    ref = mod(*(x.double() for x in gs))
    eerr = rel(mod(*gs), ref)
    ems = gpu_time(mod, [gs])["median_ms"]
    print(f"# {name}: eager {ems*1e3:.1f} us err {eerr:.1e}", flush=True)
    for o in opts:
        try:
            c = dpl_compile(mod, *xs, pipeline=variant_pipeline(o), tune_cache=False)
            out = c(*gs, poison=True)
            err = rel(out, ref)
            ms = gpu_time(c, [gs])["median_ms"]
            print(f"  {o:>20} {ms*1e3:8.1f} us {ems/ms:5.2f}x eager err {err:.1e} kern {c.num_kernels}", flush=True)
        except Exception as e:
            print(f"  {o:>20} failed: {str(e).splitlines()[0][:150]}", flush=True)
print(f"# {time.time()-start:.0f} s")
