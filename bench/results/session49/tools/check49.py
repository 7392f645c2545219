"""Session 49 (host): the tenth batch's programs built small (odd sizes), captured in float64 and
run on the CPU executors level by level (torch, tensor, loop, tile, kernel: the default pipeline),
each compared with PyTorch on the same inputs:

    python3 bench/results/session49/tools/check49.py [REGEX] [--upto LEVEL] [--sms N] [--f32] [--mid]

`--sms N` schedules for a GPU of N multiprocessors (small sizes then take the multi-block
schedules big ones take on an H100); `--f32` captures in float32 (matmuls then take the tensor
cores' 3xTF32 path where they are big enough); `--mid` builds the MID list (sizes where the
matmul, attention and row classes of the full cases are chosen)."""
import re
import sys
import time

import numpy as np
import torch

sys.path.insert(0, "bench/results/session49/tools")
sys.path.insert(0, "tests")
import ordinary49 as O  # noqa: E402
from frontend_ops import compare, flat_outputs  # noqa: E402

from dpl.frontend import capture  # noqa: E402
from dpl.interpreters import exec_kernel, exec_loop, exec_tensor, exec_tile, exec_torch  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402

S = O.S
SMALL = [
    S("gpt2_block", "", lambda: O.GPT2Block(13, d=24, heads=3), ((2, 13, 24),)),
    S("convnextv2_block", "", lambda: O.ConvNeXtV2Block(6), ((2, 6, 9, 11),)),
    S("fused_mbconv", "", lambda: O.FusedMBConv(5), ((2, 5, 7, 9),)),
    S("mamba2_ssd", "", lambda: O.Mamba2SSD(3), ((2, 11, 3, 5), (2, 11, 3), (2, 11, 7), (2, 11, 7))),
    S("edgeconv", "", lambda: O.EdgeConv(5, 6, 4), ((2, 5, 13),)),
    S("detr_cost", "", lambda: O.DETRCost(7, 9), ((2, 5, 10), (2, 5, 4))),
    S("byol_loss", "", lambda: O.BYOLLoss(d=12, hidden=20), ((9, 12),) * 4),
    S("nerf_render", "", lambda: O.NeRFRender(9), ((13, 9, 4), (13, 3))),
    S("lora_linear", "", lambda: O.LoRALinear(17, 19, r=4, alpha=8), ((2, 5, 17),)),
    S("xent_ls_weighted", "", lambda: O.WeightedLSXent(13, 11), ((13, 11),)),
    S("r2plus1d", "", lambda: O.R2Plus1D(3, 5, 7), ((2, 3, 5, 7, 6),)),
    S("ctc_loss", "", lambda: O.CTC(3, 12, 4, 6), ((12, 3, 6),)),
    S("vae_attnblock", "", lambda: O.VAEAttnBlock(32), ((1, 32, 5, 7),)),
    S("ppo_gae", "", lambda: O.PPOGAE(5, 17), ((6, 17), (5, 17), (5, 17))),
    S("skipgram_ns", "", lambda: O.SkipGramNS(50, 12, 13, 3), ((12,),)),
    S("rnnt_joint", "", lambda: O.RNNTJoint(12, 10, 17), ((2, 7, 12), (2, 5, 12))),
    S("convs2s_glu", "", lambda: O.ConvS2SEncoder(6), ((2, 6, 13),)),
    S("hyena_fftconv", "", lambda: O.HyenaFFTConv(5, 24), ((2, 5, 24),) * 2),
    S("sparsemax", "", lambda: O.Sparsemax(), ((7, 13),)),
    S("supcon", "", lambda: O.SupCon(9, 3), ((9, 8),) * 2),
    S("diff_attn", "", lambda: O.DiffAttn(hd=8), ((2, 3, 11, 8),) * 3),
    S("mla", "", lambda: O.MLA(11, d=32, heads=2, q_rank=12, kv_rank=10, nope=8, rope=4, vd=6), ((2, 11, 32),)),
    S("kan_layer", "", lambda: O.KANLayer(5, 7), ((13, 5),)),
    S("rgb2hsv", "", lambda: O.RGB2HSV(), ((2, 3, 5, 7),)),
    S("maml_conv4", "", lambda: O.Conv4(cin=3, c=6, ways=5, side=35), ((3, 3, 35, 37),)),
]

MID = [
    S("gpt2_block", "", lambda: O.GPT2Block(64, d=128, heads=2), ((2, 64, 128),)),
    S("vae_attnblock", "", lambda: O.VAEAttnBlock(64), ((1, 64, 12, 12),)),
    S("mla", "", lambda: O.MLA(64, d=128, heads=2, q_rank=48, kv_rank=32, nope=16, rope=8, vd=16), ((1, 64, 128),)),
    S("diff_attn", "", lambda: O.DiffAttn(hd=32), ((1, 2, 64, 32),) * 3),
    S("lora_linear", "", lambda: O.LoRALinear(128, 96, r=8, alpha=16), ((2, 64, 128),)),
    S("byol_loss", "", lambda: O.BYOLLoss(d=64, hidden=128), ((64, 64),) * 4),
    S("sparsemax", "", lambda: O.Sparsemax(), ((33, 300),)),
    S("edgeconv", "", lambda: O.EdgeConv(8, 16, 6), ((2, 8, 100),)),
]


def stages(sms):
    loop = IR_PIPELINES["loop"][len(IR_PIPELINES["tensor"]) + 1:]
    tile = IR_PIPELINES["tile"][len(IR_PIPELINES["loop"]) + 1:]
    tile = f"set-target{{sms={sms}}},{tile}" if sms else tile
    kern = IR_PIPELINES["kernel"][len(IR_PIPELINES["tile"]) + 1:]
    return [("torch", "", exec_torch.run), ("tensor", IR_PIPELINES["tensor"], exec_tensor.run),
            ("loop", loop, exec_loop.run), ("tile", tile, exec_tile.run), ("kernel", kern, exec_kernel.run)]


def check(case, upto: str, sms, f32: bool) -> str:
    m, xs = case.build("cpu")
    prog = capture(m, *xs, dtype=torch.float32 if f32 else torch.float64)
    m = m.double()
    with torch.no_grad():
        refs = [r.numpy() for r in flat_outputs(m(*(x.double() for x in xs)))]
    arrays = [x.numpy() for x in xs] + [a.detach().numpy() for a in prog.args[prog.num_inputs:]]
    errs = []
    for level, passes, run in stages(sms):
        run_pipeline(prog.module, passes)
        with np.errstate(all="ignore"):
            outs = run(prog.module, arrays)
        errs.append(f"{level} {max(compare(o, r) for o, r in zip(outs, refs)):.1e}")
        if level == upto:
            break
    return ", ".join(errs)


def main(argv):
    upto = argv[argv.index("--upto") + 1] if "--upto" in argv else "kernel"
    sms = argv[argv.index("--sms") + 1] if "--sms" in argv else None
    pat = next((a for a in argv if not a.startswith("--") and a not in (upto, sms)), "")
    for case in MID if "--mid" in argv else SMALL:
        if not re.search(pat, case.name):
            continue
        t0 = time.perf_counter()
        try:
            res = check(case, upto, sms, "--f32" in argv)
        except Exception as e:  # noqa: BLE001 - a failure is a finding
            res = "ERROR " + f"{type(e).__name__}: {e}".splitlines()[0][:300]
        print(f"{case.name} ({time.perf_counter() - t0:.1f} s): {res}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
