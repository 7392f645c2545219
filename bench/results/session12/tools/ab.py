"""NVRTC vs nvcc cubins of the same dpl CUDA: python3 .gpu/s12/ab.py GROUP.. (att suite cliffs sweepN)
Each program is compiled twice (kernel cache off), once per compiler, and timed by the harness."""
import os, sys, subprocess, tempfile, time, math, torch
sys.path.insert(0, "bench")
import dpl.backend.runtime as rt
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
_nvrtc = rt._nvrtc_compile

def nvcc_compile(source, names, arch, opts):
    with tempfile.TemporaryDirectory() as t:
        src, out = os.path.join(t, "k.cu"), os.path.join(t, "k.cubin")
        open(src, "w").write(source)
        r = subprocess.run(["nvcc", "-cubin", f"-arch={arch}", "--std=c++17", "-o", out, src], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(r.stderr[-300:])
        return open(out, "rb").read()

def run(name, fn, xs, ref=None):
    gs = [x.cuda() for x in xs]
    row = []
    for comp in ("nvrtc", "nvcc"):
        rt._nvrtc_compile = _nvrtc if comp == "nvrtc" else nvcc_compile
        os.environ["DPL_CACHE_DIR"] = tempfile.mkdtemp(prefix=comp)
        try:
            c = dpl_compile(fn, *xs, tune_cache=False)
            out = c(*gs)
            ms = gpu_time(c, [gs])["median_ms"]
            row.append(ms)
        except Exception as e:
            print(f"{name} {comp} failed: {str(e).splitlines()[0][:200]}", flush=True); return None
    fn_cuda = fn.cuda() if hasattr(fn, "cuda") else fn
    em = gpu_time(fn_cuda, [gs])["median_ms"]
    print(f"{name:40} eager {em*1e3:9.1f} nvrtc {row[0]*1e3:9.1f} ({em/row[0]:5.2f}x) nvcc {row[1]*1e3:9.1f} ({em/row[1]:5.2f}x)  nvrtc/nvcc {row[0]/row[1]:5.2f}", flush=True)
    return row[0] / row[1]

ratios = []
for group in sys.argv[1:]:
    if group == "att":
        from attention import Sdpa
        for h, hkv, s, d, causal in [(28, 28, 128, 128, True), (28, 28, 512, 128, True), (28, 28, 1024, 128, True), (28, 28, 2048, 128, True),
                                      (32, 4, 512, 128, True), (28, 28, 1024, 128, False), (32, 4, 512, 64, True), (32, 4, 2048, 64, True)]:
            g = torch.Generator().manual_seed(s)
            xs = [torch.randn(1, n, s, d, generator=g) for n in (h, hkv, hkv)]
            r = run(f"sdpa h{h}/{hkv} s{s} d{d}{' causal' if causal else ''}", Sdpa(causal, gqa=h != hkv), xs)
            r and ratios.append(r)
    elif group == "suite":
        import suite
        for case in suite.CASES:
            if "qwen" in case.name and "512" in case.name:
                continue
            fn, xs = case.make()
            xs = tuple(x.cpu() for x in xs)
            r = run(case.name, fn.cpu() if hasattr(fn, "cpu") else fn, xs)
            r and ratios.append(r)
    elif group.startswith("sweep"):
        import sweep, random
        seed, pick = group[5:].split(":") if ":" in group else (group[5:], "")
        cases = sweep.all_cases(int(seed))
        if pick:
            cases = [c for c in cases if c.name in pick.split(",")]
        for case in cases:
            fn, xs = case.build("cpu")
            r = run(f"{seed}:{case.name}", fn, xs)
            r and ratios.append(r)
if ratios:
    print(f"# geomean nvrtc/nvcc {math.exp(sum(map(math.log, ratios))/len(ratios)):.3f} over {len(ratios)}, min {min(ratios):.2f} max {max(ratios):.2f}")
