"""Features of each measured point (local, no GPU): python .gpu/feats.py data.jsonl out.jsonl [part nparts] [--tc-alt]
(--tc-alt: only the tensor-core points, each also modeled at PADDED_BLOCK_STEPS 5, 3, 2, 1, 0)"""
import json, logging, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import torch, sweep
from dpl.frontend import capture
from dpl.driver.tune import program_kernels
from dpl.dialects import make_context, loop, tile, mma
from dpl.dialects.parsing import parse_module
from dpl.transforms.tile.schedule import (scratch, point_spec, classify, modeled_us, matmul_us, mma_us, pointwise_us,
    element_staged, stage_bytes, MATMUL_TILES, _k_outer, SPLIT_AXIS)
from dpl.transforms.tile.target import arch_smem
import dpl.transforms.tile.schedule_mma as SM
logging.disable(logging.WARNING)
SMS, TARGET = 132, "sm_90"
tc_alt = "--tc-alt" in sys.argv
args = [a for a in sys.argv[1:] if a != "--tc-alt"]
src, dst = args[0], args[1]
part, nparts = (int(args[2]), int(args[3])) if len(args) > 3 else (0, 1)
rows = [json.loads(l) for l in open(src)]
rows = [r for r in rows if r.get("us") and "error" not in r]
cases = sorted({r["case"] for r in rows})[part::nparts]
out = open(dst, "w")
smem = arch_smem(TARGET)
for spec in cases:
    seed, cname = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == cname]
    fn, inputs = case.build("meta")
    prog = capture(fn, *inputs, dtype=torch.float32)
    kern = {k.name: k for k in program_kernels(prog.module)}
    for r in [r for r in rows if r["case"] == spec and (not tc_alt or r["point"].get("tensor_cores"))]:
        k = kern[r["kernel"]]
        ctx = make_context()
        (kernel,) = [o for o in parse_module(ctx, k.text, "<k>").walk() if isinstance(o, loop.KernelOp)]
        try:
            block, _ = scratch(ctx, kernel, point_spec(classify(kernel), r["point"], TARGET, SMS, k.precision))
        except Exception as e:
            print("ERR", spec, e, file=sys.stderr); continue
        tiles = []
        for t in [t for t in block.walk() if isinstance(t, tile.TileOp)]:
            if any(isinstance(o, mma.DotOp) for o in t.walk()):
                tiles.append({"kind": "tc", "us": mma_us(t, SMS, smem), "element": element_staged(t)})
                if tc_alt:
                    tiles[-1]["alt"] = {}
                    for v in (5.0, 3.0, 2.0, 1.0, 0.0):
                        SM.PADDED_BLOCK_STEPS = v
                        tiles[-1]["alt"][str(v)] = mma_us(t, SMS, smem)
                    SM.PADDED_BLOCK_STEPS = 5.0
            elif any(kk == tile.AxisKind.CELL for _, _, kk in t.axes):
                cells = math.prod(e for _, e, kk in t.axes if kk == tile.AxisKind.CELL)
                blocks = math.prod(e for _, e, kk in t.axes if kk == tile.AxisKind.BLOCK)
                splits = next((e for v, e, _ in t.axes if v.name_hint == SPLIT_AXIS), 1)
                trips = next((o.extent.data for o in t.body.block.ops if _k_outer(o)), 1)
                threads = math.prod(e for _, e, kk in t.axes if kk == tile.AxisKind.THREAD)
                outs = {o.memref for o in t.walk() if isinstance(o, tile.AtomicOp)}
                nbytes = sum(math.prod(v.type.get_shape()) * 4 for v in outs)
                tiles.append({"kind": "simt", "cells": cells, "blocks": blocks, "splits": splits, "trips": trips,
                              "threads": threads, "fits": smem // max(1, stage_bytes(t)), "element": element_staged(t),
                              "atomic_bytes": nbytes, "us": matmul_us(t, SMS, smem)})
            elif not any(isinstance(o, loop.ForOp) and o.is_reduce for o in t.walk()):
                tiles.append({"kind": "pw", "us": pointwise_us(t)})
            else:
                tiles.append({"kind": "other"})
        r["tiles"] = tiles
        r["model_us"] = modeled_us(block, SMS, smem)
        out.write(json.dumps(r) + "\n"); out.flush()
