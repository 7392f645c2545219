"""Whole models on the GPU from a checkpoint folder: compile time, parity with HF, forward time.

    python3 bench/models.py --model tinyllama --seqs 128,512 [--out FILE.json]
    python3 bench/models.py --model qwen2.5-7b --seqs 128

No checkpoint can be downloaded where this runs, so the first run writes one: a Hugging Face
folder with the model's real config.json and random weights of its real sizes in bfloat16 (as
the published checkpoints are), sharded safetensors with their index, under
`$DPL_MODELS_DIR/<model>` (default /tmp/dpl-models); later runs reuse it. Then, per sequence
length, with an empty NVRTC cache each time (a cold compile):

- `dpl.driver.models.check_causal_lm`: capture on the meta device, passes, NVRTC (timed), the
  weights bound from the folder (from the first length's tensors after that), logits on random
  tokens against HF's float64 logits computed one module at a time on the GPU: relative error
  and the positions whose argmax token agrees;
- `bench.harness.benchmark`: the whole forward of dpl, HF eager and torch.compile (float32, CUDA
  graphs where they capture), all three on the same weights in GPU memory.

Prints one table (and the harness's per-length tables with `-v`); `--out` writes the JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

from dpl.bench import harness
from dpl.driver.models import check_causal_lm
from dpl.driver.progress import Progress
from dpl.frontend import hf
from dpl.frontend.checkpoint import Checkpoint

#: The bar of issue 18 (DESIGN.md's for matmul chains) and its compile-time targets.
TOLERANCE = 1e-4
COMPILE_TARGET_S = {"tinyllama": 20.0, "qwen2.5-7b": 40.0}
SHARD_BYTES = 4 << 30


def write_checkpoint(name: str, folder: Path, seed: int = 0) -> float:
    """A HF folder for model `name`: its config.json, random bf16 weights in shards of at most
    SHARD_BYTES with model.safetensors.index.json. Returns the seconds it took."""
    from safetensors.torch import save_file

    start = time.perf_counter()
    cfg = hf.config(name)
    skeleton = hf.causal_lm(cfg, "meta")
    folder.mkdir(parents=True, exist_ok=True)
    shards: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    gen = torch.Generator("cuda").manual_seed(seed)
    for pname, p in skeleton.named_parameters():  # tied weights once, as HF saves them
        t = torch.randn(p.shape, generator=gen, device="cuda")
        t = t.mul_(0.02) if p.dim() > 1 else t.mul_(0.1).add_(1.0)
        t = t.to(torch.bfloat16).cpu()
        if size and size + t.numel() * 2 > SHARD_BYTES:
            shards.append({})
            size = 0
        shards[-1][pname] = t
        size += t.numel() * 2
    weight_map = {}
    for i, shard in enumerate(shards):
        fname = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        save_file(shard, str(folder / fname), metadata={"format": "pt"})
        weight_map.update({k: fname for k in shard})
    total = sum(t.numel() * 2 for s in shards for t in s.values())
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    cfg.architectures = [type(skeleton).__name__]
    cfg.dtype = "bfloat16"
    cfg.to_json_file(str(folder / "config.json"))
    (folder / "done").write_text("random bf16 weights, seed %d\n" % seed)
    return time.perf_counter() - start


def run(
    name: str, seqs: list[int], folder: Path, verbose: bool, out: str | None = None,
    modes: tuple[str, ...] = ("eager", "compile"),
) -> list[dict]:  # fmt: skip
    ckpt = Checkpoint(folder)
    weights = None
    rows = []
    for seq in seqs:
        os.environ["DPL_CACHE_DIR"] = tempfile.mkdtemp(prefix="dpl-cold-cache-")
        progress = Progress()
        check = check_causal_lm(ckpt.config, seq, weights if weights is not None else ckpt, progress=progress)
        weights = check.weights
        program = check.program
        row = {
            "model": name, "seq": seq, "layers": ckpt.config.num_hidden_layers,
            "kernels": len(program.host.kernels), "launches": program.num_kernels,
            "compile_s": {k: progress.times[k] for k in ("capture", "passes", "nvrtc")},
            "weights_s": progress.times.get("weights"), "reference_s": progress.times.get("reference"),
            "rel_err_f64": check.rel_err, "argmax_agree": check.agree, "positions": check.positions,
            "workspace_bytes": program.host.plan.workspace_bytes,
            "weight_bytes": sum(t.numel() * t.element_size() for t in weights.values()),
        }  # fmt: skip
        row["compile_total_s"] = sum(row["compile_s"].values())
        print(f"[{name} seq {seq}] compile {row['compile_total_s']:.1f} s, rel err {check.rel_err:.2e}, "
              f"argmax {check.agree}/{check.positions}", flush=True)  # fmt: skip
        gc.collect()  # the float64 reference's module-at-a-time tensors
        torch.cuda.empty_cache()
        result = harness.benchmark(
            f"{name}_s{seq}", check.model, [check.input_ids], dpl=program, modes=modes,
            ceilings=False, verbose=verbose, float64=False,  # parity: check_causal_lm above
        )  # fmt: skip
        if verbose:
            print(harness.format_table(result))
        v = result["variants"]
        row.update(
            dpl_ms=v["dpl"].get("median_ms"), eager_ms=v["eager"].get("median_ms"),
            compile_ms=v.get("compile", {}).get("median_ms"),
            torch_compile_s=v.get("compile", {}).get("compile_s"),
            errors={k: e["error"] for k, e in v.items() if "error" in e},
            notes={k: e["note"] for k, e in v.items() if "note" in e},
        )  # fmt: skip
        print(f"[{name} seq {seq}] dpl {row['dpl_ms']} ms, eager {row['eager_ms']} ms, torch.compile "
              f"{row['compile_ms']} ms (built in {row['torch_compile_s']} s) {row['errors'] or ''}", flush=True)  # fmt: skip
        rows.append(row)
        if out:  # after every length, should a later one outrun the command's time limit
            Path(out).write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows}, indent=2) + "\n")
        del check, program, result
        torch.cuda.empty_cache()
    return rows


def table(rows: list[dict]) -> str:
    head = ["model", "seq", "compile s (capture+passes+nvrtc)", "kernels/launches", "rel err vs f64",
            "argmax", "dpl ms", "eager ms", "compile ms", "eager/dpl", "compile/dpl", "verdict"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        c = r["compile_s"]
        ok = (
            r["rel_err_f64"] < TOLERANCE and r["argmax_agree"] == r["positions"]
            and r["compile_total_s"] < COMPILE_TARGET_S.get(r["model"], float("inf"))
        )  # fmt: skip

        def ratio(x):
            return f"{x / r['dpl_ms']:.2f}x" if x and r.get("dpl_ms") else "-"

        def ms(x):
            return f"{x:.2f}" if x else "-"

        lines.append("| " + " | ".join([
            r["model"], str(r["seq"]),
            f"{r['compile_total_s']:.1f} ({c['capture']:.1f}+{c['passes']:.1f}+{c['nvrtc']:.1f})",
            f"{r['kernels']}/{r['launches']}", f"{r['rel_err_f64']:.2e}",
            f"{r['argmax_agree']}/{r['positions']}", ms(r.get("dpl_ms")), ms(r.get("eager_ms")),
            ms(r.get("compile_ms")), ratio(r.get("eager_ms")), ratio(r.get("compile_ms")),
            "ok" if ok else "FAIL",
        ]) + " |")  # fmt: skip
    return "\n".join(lines)


def fewer_layers(cfg: dict, n: int) -> dict:
    """config.json's `cfg` cut to its first `n` layers: num_hidden_layers, and the per-layer
    `layer_types` where the config lists them (transformers checks that they agree)."""
    cfg = dict(cfg, num_hidden_layers=n)
    if isinstance(cfg.get("layer_types"), list):
        cfg["layer_types"] = cfg["layer_types"][:n]
    return cfg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, choices=sorted(hf.CONFIGS))
    parser.add_argument("--seqs", default="128,512")
    parser.add_argument("--num-layers", type=int, default=None, help="use the first N layers only")
    parser.add_argument("--out", default=None, help="write the rows as JSON here")
    parser.add_argument("--modes", default="eager,compile", help="what dpl is timed against")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/models.py needs a CUDA GPU")
    root = Path(os.environ.get("DPL_MODELS_DIR", "/tmp/dpl-models"))
    folder = root / args.model
    if not (folder / "done").is_file():
        took = write_checkpoint(args.model, folder)
        print(f"wrote {folder} (random bf16 weights) in {took:.0f} s", flush=True)
    if args.num_layers is not None:
        cut = root / f"{args.model}-{args.num_layers}l"
        if not cut.is_dir():  # the same shards; the config says fewer layers
            cut.mkdir(parents=True)
            for f in folder.iterdir():
                if f.name != "config.json":
                    (cut / f.name).symlink_to(f)
            cfg = fewer_layers(json.loads((folder / "config.json").read_text()), args.num_layers)
            (cut / "config.json").write_text(json.dumps(cfg))
        folder = cut
    rows = run(args.model, [int(s) for s in args.seqs.split(",")], folder, args.verbose, args.out,
               tuple(args.modes.split(",")))  # fmt: skip
    print(f"\n{torch.cuda.get_device_name()}, torch {torch.__version__}\n")
    print(table(rows))
    if not all(r["rel_err_f64"] < TOLERANCE and r["argmax_agree"] == r["positions"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
