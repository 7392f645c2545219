"""Session 43 (host): the loop IR after fuse-loops of every program of sessions 32-43's batches,
the sweep (seed 0, 3 a class) and TinyLlama's layer: kernel count, a hash of the IR, the compile
time and the deepest count of shared copies logged. Run it before and after a fuse-loops change
and join the two outputs on the name to see which programs it changes:

    PYTHONPATH=<dir holding dpl> python3 bench/results/session43/tools/loopir43.py [REGEX] > out.txt"""
import sys, hashlib, importlib, time, torch, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0,"bench")
import sweep
from dpl.frontend.capture import capture
from dpl.transforms.pipelines import run_pipeline
from dpl.dialects import loop
import logging
LINES=[]
class H(logging.Handler):
    def emit(self, r): LINES.append(r.getMessage())
lg=logging.getLogger("dpl.passes"); lg.setLevel(logging.INFO); lg.addHandler(H())
progs=[]
for sess,mod in [(32,"ordinary32"),(33,"ordinary33"),(33,"ordinary33b"),(34,"ordinary34"),(34,"ordinary34b"),(38,"ordinary38"),(40,"ordinary40"),(42,"ordinary42"),(43,"ordinary43")]:
    sys.path.insert(0,f"bench/results/session{sess}/tools")
    try: progs += [(c.name, c) for c in importlib.import_module(mod).CASES]
    except Exception as e: print("skip", mod, e)
progs += [(c.name, c) for c in sweep.all_cases(seed=0, per_class=3)]
seen=set()
pat=sys.argv[1] if len(sys.argv)>1 else ""
import re
for name,c in progs:
    if name in seen or not re.search(pat,name) or name.startswith("lstm"): continue
    seen.add(name)
    t=time.time()
    try:
        m,x=c.build("cpu")
        prog=capture(m,*x)
        run_pipeline(prog.module,"decompose-torch,fold-index-maps,fold-concats,fuse-elementwise,lower-to-loops,fuse-loops")
        ks=sum(1 for k in prog.module.walk() if isinstance(k,loop.KernelOp))
        print(f"{name} {ks} {hashlib.sha1(str(prog.module).encode()).hexdigest()[:10]} {time.time()-t:.1f}s copies {max([int(l.split(' holds ')[1].split()[0]) for l in LINES if ' shared copies' in l] or [0])}", flush=True); LINES.clear()
    except Exception as e:
        print(f"{name} ERR {type(e).__name__} {str(e)[:80]}", flush=True)
from dpl.frontend.hf import decoder_layer
for mdl in ("tinyllama",):
    module, inputs = decoder_layer(mdl, seq=128, dtype=torch.float32, seed=0)
    prog=capture(module,*inputs)
    run_pipeline(prog.module,"decompose-torch,fold-index-maps,fold-concats,fuse-elementwise,lower-to-loops,fuse-loops")
    ks=sum(1 for k in prog.module.walk() if isinstance(k,loop.KernelOp))
    print(f"{mdl}_layer {ks} {hashlib.sha1(str(prog.module).encode()).hexdigest()[:10]} copies {max([int(l.split(' holds ')[1].split()[0]) for l in LINES if ' shared copies' in l] or [0])}", flush=True)
