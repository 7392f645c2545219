"""Session 19 probe (issue 17): a one-warpgroup wgmma 3xTF32 flash kernel (fwg.cu) against eager
SDPA and dpl's flash kernel. python3 bench/results/session19/tools/fwg.py [--quick] [--san]"""
import math, os, sys, ctypes
import torch
import torch.nn.functional as F
from dpl.backend.runtime import Kernel, load_kernels, launch_kernel, current_stream, scalar_arg
from dpl.bench.harness import gpu_time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = open(os.path.join(HERE, "fwg.cu")).read()
SMEM = 57344 * 4 + 1024


VARIANTS = {"s0": "SCHED 0", "s1": "SCHED 1"}


def build(defs):
    src = "".join(f"#define {d}\n" for d in defs.split(",") if d) + SRC
    k = Kernel("fwg", (1, 1, 1), (128, 1, 1), SMEM, 0, [])
    load_kernels(src, [k], use_cache=False, arch="sm_90a")
    return k


def run(k, q, kk, v, o, causal):
    B, H, S, D = q.shape
    HKV = kk.shape[1]
    k.grid = (S // 64, B * H, 1)
    args = [q, kk, v, o, ctypes.c_int(S), ctypes.c_int(H), ctypes.c_int(HKV),
            ctypes.c_float(1.0 / math.sqrt(D) * math.log2(math.e)), ctypes.c_int(int(causal))]
    launch_kernel(k, args, current_stream())


def rel(a, ref):
    return float((a.double() - ref).norm() / ref.norm())


def ref64(q, k, v, causal):
    H, HKV = q.shape[1], k.shape[1]
    if HKV != H:
        k = k.repeat_interleave(H // HKV, 1); v = v.repeat_interleave(H // HKV, 1)
    return F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)


def case(B, H, HKV, S, causal, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(B, H, S, 128, device="cuda", generator=g)
    k = torch.randn(B, HKV, S, 128, device="cuda", generator=g)
    v = torch.randn(B, HKV, S, 128, device="cuda", generator=g)
    return q, k, v


def eager(q, k, v, causal):
    gqa = q.shape[1] != k.shape[1]
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)


def main():
    quick = "--quick" in sys.argv
    variants = VARIANTS
    for a in sys.argv[1:]:
        if a.startswith("--variants="):  # name=DEF 1,DEF 2;name=...
            variants = dict(v.split("=", 1) for v in a[len("--variants="):].split(";"))
    ks = {name: build(defs) for name, defs in variants.items()}
    q, k, v = case(1, 2, 2, 256, True)
    ref = ref64(q, k, v, True)
    for sched, kern in ks.items():
        o = torch.full_like(q, float("nan"))
        run(kern, q, k, v, o, True)
        torch.cuda.synchronize()
        print(f"{sched}: rel err {rel(o, ref):.2e}")
    if "--san" in sys.argv:
        return 0
    if "--ncu" in sys.argv:
        q, k, v = case(1, 28, 28, 2048, True)
        o = torch.empty_like(q)
        for kern in ks.values():
            run(kern, q, k, v, o, True)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for kern in ks.values():
            run(kern, q, k, v, o, True)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
        return 0
    shapes = [(1, 28, 28, 512, True), (1, 28, 28, 1024, True), (1, 28, 28, 2048, True),
              (1, 28, 28, 1024, False), (1, 32, 4, 1024, True), (4, 28, 28, 128, True),
              (1, 28, 28, 4096, True)]
    if quick:
        shapes = shapes[1:3]
    print(f"{'shape':28} {'eager us':>9} {'err eager':>9} | per sched: us, x eager, err")
    for B, H, HKV, S, causal in shapes:
        q, k, v = case(B, H, HKV, S, causal)
        ref = ref64(q, k, v, causal)
        e0 = rel(eager(q, k, v, causal), ref)
        sets = []
        n = max(1, int(4 * 60e6 // (q.numel() * 4 * 4)))
        for _ in range(min(n, 8)):
            a = case(B, H, HKV, S, causal, seed=len(sets) + 1)
            sets.append((*a, torch.empty_like(a[0])))
        t0 = gpu_time(lambda q, k, v, o: eager(q, k, v, causal), sets)["median_ms"] * 1e3
        name = f"B{B} H{H}/{HKV} S{S} {'causal' if causal else 'full'}"
        line = f"{name:28} {t0:9.1f} {e0:9.1e} |"
        for sched, kern in ks.items():
            o = torch.full_like(q, float("nan"))
            run(kern, q, k, v, o, causal)
            torch.cuda.synchronize()
            e1 = rel(o, ref)
            t1 = gpu_time(lambda q, k, v, o: run(kern, q, k, v, o, causal), sets)["median_ms"] * 1e3
            line += f" {t1:8.1f} {t0 / t1:5.2f}x {e1:7.1e} |"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
