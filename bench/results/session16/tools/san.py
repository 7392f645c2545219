"""Run short-K tensor-core programs once each (for compute-sanitizer), the schedule told to take
the tensor cores: python3 .gpu/san.py SPEC..  (shortk.py's specs)"""
import re, sys, torch
sys.path.insert(0, ".gpu"); sys.path.insert(0, "bench")
from shortk import case_of
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.pipelines import kernel_schedule
TC = re.sub(r"\bschedule\b(?!\{)", "schedule{tensor-cores=true}", kernel_schedule())
for spec in sys.argv[1:]:
    fn, xs = case_of(spec).build("cuda")
    f = dpl_compile(fn, *xs, pipeline=TC, tune_cache=False)
    assert "wgmma" in f.source if hasattr(f, "source") else True
    with torch.no_grad():
        out = f(*xs)
        torch.cuda.synchronize()
        ref = fn(*[x.double() for x in xs])
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(spec, "rel err", f"{err:.1e}", flush=True)
    assert err < 1e-5, spec
