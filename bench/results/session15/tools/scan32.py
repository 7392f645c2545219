"""Sweep programs (seeds given) whose matmul picks move with 32 x 32's trip cost (no GPU)."""
import sys, re, math, subprocess
sys.path.insert(0, "bench")
import sweep
def small(name):
    m = re.match(r"(matmul|bmm)_\w\w_(?:b(\d+)_)?(\d+)x(\d+)x(\d+)$", name)
    l = re.match(r"linear_\w+_(\d+)x(\d+)to(\d+)$", name)
    if m: return int(m[2] or 1) * math.ceil(int(m[3]) / 64) * math.ceil(int(m[4]) / 64) < 132
    if l: return math.ceil(int(l[1]) / 64) * math.ceil(int(l[3]) / 64) < 132
    return False
specs = [f"{s}:{c.name}" for s in map(int, sys.argv[1:]) for c in sweep.all_cases(s) if small(c.name)]
print(len(specs), flush=True)
import runpy
sys.argv = ["picks32.py", *specs]
runpy.run_path(".gpu/picks32.py", run_name="__main__")
