"""md5 of each matmul-class sweep case's CUDA: python md5s.py SEEDS OUT"""
import hashlib, json, logging, os, sys
sys.path.insert(0, "bench")
import torch, sweep, dpl
from dpl.driver.compile import compile_program
from dpl.frontend import capture
logging.disable(logging.WARNING)
out = {}
for seed in [int(s) for s in sys.argv[1].split(",")]:
    for case in sweep.all_cases(seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"]):
        fn, inputs = case.build("meta")
        try:
            cu = compile_program(capture(fn, *inputs, dtype=torch.float32)).cuda
            out[f"{seed}:{case.name}"] = hashlib.md5(cu.encode()).hexdigest()
        except Exception as e:
            out[f"{seed}:{case.name}"] = "error " + str(e)[:100]
json.dump(out, open(sys.argv[2], "w"), indent=0)
print(dpl.__file__, len(out))
