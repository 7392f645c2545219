"""Session 27 (host): each column-norm program timed in calls 1-2 with its A/B ratio and the tile
it now gets (the lanes and the threads along the column axis), sorted by ratio:

    python bench/results/session27/tools/colw27.py | sort -n"""
import sys, json, torch, re
sys.path.insert(0,'bench'); import sweep
from dpl.frontend import capture
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
r1 = {r['name']: r['tree8']['median_ms']/r['h32f0.5']['median_ms'] for r in json.load(open('bench/results/session27/call1-col.json'))['cases']}
r2 = {r['name']: r['old']['median_ms']/r['new']['median_ms'] for r in json.load(open('bench/results/session27/call2-heldout.json'))['cases']}
col = [(int(l.split()[0]), l.split()[1]) for l in open('bench/results/session27/colchanged.txt')]
for s, n in col:
    x = r1.get(n) or r2.get(n)
    if x is None: continue
    case = next(c for c in sweep.all_cases(seed=s) if c.name == n)
    fn, inputs = case.build("meta")
    mod = capture(fn, *inputs, dtype=torch.float32).module
    run_pipeline(mod, IR_PIPELINES["tile"])
    t = [str(o).split('{')[0] for o in mod.walk() if o.name == 'tile.tile'][0]
    last = re.findall(r'%(\w+) : (\d+) = (\w+)', t)
    print(f"{x:.2f} {n:30s} {t.strip()[10:]}")
