"""torch.compile(model, backend="dpl") on the GPU: every program of the benchmark suite
(bench/suite.py, the Hugging Face decoder layers included) compiles whole into one dpl part and
matches PyTorch in float64 within DESIGN.md's tolerances (1e-5; 1e-4 with matmul/attention), as
`dpl run` must; a part replays a CUDA graph on fixed buffers without clobbering outputs the
caller still holds.

`python3 tests/test_dynamo_gpu.py` prints the same checks as a table.
"""

from __future__ import annotations

import copy
import gc
import sys
import time
import warnings
from pathlib import Path

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]

ROOT = Path(__file__).resolve().parent.parent
_HEAVY_TAGS = {"matmul", "linear", "attention", "decoder"}


@pytest.fixture(autouse=True)
def _registered():
    from dpl.driver.dynamo import register

    register()


def _suite():
    from dpl.bench import suite

    return suite


def _flat(x) -> list[torch.Tensor]:
    if isinstance(x, torch.Tensor):
        return [x]
    return [t for y in x for t in _flat(y)]


def _rel(out, ref) -> float:
    num = sum(float((o.double() - r.double()).pow(2).sum()) for o, r in zip(out, ref))
    den = sum(float(r.double().pow(2).sum()) for r in ref)
    return (num / den) ** 0.5 if den else num**0.5


class _Recorder:
    def __init__(self):
        self.parts = []

    def __call__(self, gm, example_inputs, **kwargs):
        from dpl.driver.dynamo import dpl_backend

        fn = dpl_backend(gm, example_inputs, **kwargs)
        self.parts.append(fn)
        return fn


def check_case(name: str) -> tuple[float, float, int, list[str]]:
    """(error vs float64, tolerance, dpl parts, backend warnings) of one suite program."""
    from dpl.driver.dynamo import DplBackendWarning, DplPart

    suite = _suite()
    case = next(c for c in suite.CASES if c.name == name)
    torch.manual_seed(0)
    fn, inputs = case.make()
    if isinstance(fn, torch.nn.Module):
        fn = fn.cuda().eval()
    torch._dynamo.reset()
    rec = _Recorder()
    compiled = torch.compile(fn, backend=rec, fullgraph=True, dynamic=False)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = _flat(compiled(*inputs))
        out = _flat(compiled(*inputs))  # the second call on the same buffers replays a graph
    messages = [str(w.message) for w in record if issubclass(w.category, DplBackendWarning)]
    fn64 = copy.deepcopy(fn).double() if isinstance(fn, torch.nn.Module) else fn
    with torch.no_grad():
        ref = _flat(fn64(*[x.double() for x in inputs]))
    parts = sum(isinstance(m, DplPart) for f in rec.parts for m in f.graph_module.children())
    err = _rel(out, ref)
    tol = 1e-4 if _HEAVY_TAGS & set(case.tags) else 1e-5
    del fn, fn64, compiled, out, ref, inputs
    torch._dynamo.reset()
    gc.collect()
    torch.cuda.empty_cache()
    return err, tol, parts, messages


def _case_names() -> list[str]:
    try:
        return [c.name for c in _suite().CASES]
    except Exception:  # noqa: BLE001 - collected on a machine without the suite's deps
        return []


@pytest.mark.parametrize("name", _case_names())
def test_suite_program_through_torch_compile(name: str):
    err, tol, parts, messages = check_case(name)
    assert messages == [], messages
    assert parts == 1, f"{name}: {parts} dpl parts (expected the whole graph in one)"
    assert err < tol, f"{name}: relative error {err:.2e} >= {tol:.0e}"


def test_hf_decoder_layer_through_torch_compile():
    from dpl.frontend import hf

    module, inputs = hf.decoder_layer("qwen2.5-7b", seq=32, dtype=torch.float32, seed=0)
    module = module.cuda().eval()
    inputs = [x.cuda() for x in inputs]
    torch._dynamo.reset()
    compiled = torch.compile(module, backend="dpl", fullgraph=True, dynamic=False)
    with torch.no_grad():
        out = _flat(compiled(*inputs))
        ref = _flat(copy.deepcopy(module).double()(*[x.double() for x in inputs]))
    assert _rel(out, ref) < 1e-4


def test_graph_replay_keeps_held_outputs():
    """The second call on the same buffers captures a CUDA graph and replays it; a replay writes
    into the graph's output buffers only when the caller no longer holds the previous ones."""
    from dpl.driver.dynamo import DplPart

    torch._dynamo.reset()
    fn = lambda x: torch.nn.functional.leaky_relu(x, 0.1) * 2.0  # noqa: E731
    rec = _Recorder()
    compiled = torch.compile(fn, backend=rec, fullgraph=True, dynamic=False)
    x = torch.randn(64, 1024, device="cuda")
    ref1 = fn(x)
    with torch.no_grad():
        first = compiled(x)  # launched directly
        second = compiled(x)  # same buffers: captured and replayed
        (part,) = [m for m in rec.parts[-1].graph_module.children() if isinstance(m, DplPart)]
        assert part._graph is not None
        x2 = torch.randn(64, 1024, device="cuda")
        x.copy_(x2)
        third = compiled(x)  # `second` still holds the graph's outputs: launched directly
        torch.cuda.synchronize()
        torch.testing.assert_close(first, ref1)
        torch.testing.assert_close(second, ref1)
        torch.testing.assert_close(third, fn(x2))
        del first, second, third
        for _ in range(3):  # outputs dropped each time: replays into the same buffers
            torch.testing.assert_close(compiled(x), fn(x2))


def main() -> None:
    from dpl.driver.dynamo import register

    register()
    print(f"| case | dpl parts | error vs float64 | tolerance | ok | warnings | s |  "
          f"({torch.cuda.get_device_name()})")
    print("|---|---|---|---|---|---|---|")
    bad = 0
    names = _case_names()
    for name in names:
        t0 = time.time()
        try:
            err, tol, parts, messages = check_case(name)
            ok = err < tol and parts == 1 and not messages
            print(f"| {name} | {parts} | {err:.2e} | {tol:.0e} | {'yes' if ok else 'NO'} | "
                  f"{'; '.join(messages)[:120]} | {time.time() - t0:.1f} |")
        except Exception as e:  # noqa: BLE001 - one failing case must not hide the others
            ok = False
            print(f"| {name} | - | {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''} | - | NO | - | - |")
        bad += not ok
    print(f"{len(names) - bad}/{len(names)} suite programs match through torch.compile(backend='dpl')")


if __name__ == "__main__":
    main()
