"""Short-K SIMT matmuls: dpl's pick against pinned SIMT 64 x 64 pipelines (no split, no
repack): k-tile 32 double-buffered as today, and the whole K staged at once (k-tile 128: a K
of at most 128 is neither padded nor chunked), its loop unrolled to 32 or 128; eager alongside.
argv: [variant names]"""
import re, sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.pipelines import kernel_schedule
from cases18 import get

T = "sm_90"
SIMT = ("tileify,pad-matmul{{rows={r} cols={c}{kt}}},chunk-matmul-k{kt2},register-tile{{rows={r} cols={c}}},blockify-launch,"
        "permute-register-tile,cooperative-reduce,stage-inputs{smem},mark-unroll{{max-extent={u}}},double-buffer,"
        "async-copy{{target=sm_90}},pad-smem{{pad=4}},pipeline-k-outer")


def simt(r=4, c=4, kt=None, u=32, smem=None):
    s = SIMT.format(r=r, c=c, kt=f" k-tile={kt}" if kt else "", kt2=f"{{k-tile={kt}}}" if kt else "", u=u,
                    smem=f"{{smem-bytes={smem}}}" if smem else "")
    return kernel_schedule().replace("split-nests,schedule,", f"split-nests,{s},")


VARIANTS = {"default": None, "simt64": simt(), "whole": simt(kt=128, smem=110000),
            "whole_u128": simt(kt=128, u=128, smem=110000), "whole32x64": simt(r=2, kt=128, smem=110000),
            "k16x3": simt().replace("chunk-matmul-k,", "chunk-matmul-k{k-tile=16},").replace(
                "pad-matmul{rows=4 cols=4}", "pad-matmul{rows=4 cols=4 k-tile=16}").replace("double-buffer,", "double-buffer{buffers=3},")}
CASES = [(0, "matmul_tt_512x2741x79"), (0, "bmm_tt_b21_25x1381x101"), (22, "matmul_tt_97x1201x97"),
         (26, "bmm_nt_b64_97x739x37"), (24, "bmm_tt_b15_67x907x64"), (19, "matmul_tt_384x4083x16"),
         (0, "bmm_tn_b36_433x256x32"), (0, "matmul_tn_1117x19x347"), (0, "linear_relu_41x29to159"),
         (0, "linear_gelu_640x64to512"), (0, "linear_residual_2447x33to307")]
def main():
  names = sys.argv[1].split(",") if len(sys.argv) > 1 else list(VARIANTS)
  print(f"{'case':30s} {'eager':>7s} " + " ".join(f"{n[:12]:>13s}" for n in names))
  for seed, name in CASES:
    fn, inputs = get(seed, name).build("cuda")
    cells, e = [], None
    for i, n in enumerate(names):
        r = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs, s=VARIANTS[n]: dpl_compile(f, *xs, pipeline=s, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        d = r["variants"]["dpl"]
        m = d.get("median_ms")
        ks = "+".join(f"{k['name'].replace('k_', '')}{tuple(k['grid'])}x{k['block'][0]}" for k in r.get("kernels", []))
        print(f"   {name} {n}: {m*1e3 if m else 0:.1f} us err {d.get('rel_err')} {str(d.get('error') or '')[:200]} {ks}", flush=True)
        cells.append(f"{m*1e3:6.1f}({e/m:4.2f})" if m else "ERR")
    print(f"{name:30s} {e*1e3:7.1f} " + " ".join(f"{c:>13s}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
