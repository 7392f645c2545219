"""End to end on the GPU: PyTorch -> every IR level -> CUDA (NVRTC) -> run, against PyTorch.

Every frontend op (tests/test_exec_torch.py's EXPRESSIONS), the seeds' examples and both decoder
layers at seq 128 are compiled with the default pipeline, run on fresh random fp32 inputs with
outputs and intermediates poisoned (NaN), and compared with PyTorch in float64: relative error
under 1e-5, or 1e-4 for programs with matmul/attention (DESIGN.md, Measuring), and every element
within atol + rtol·|ref| (rtol that bar, atol the bar × the output's RMS; driver/compile.Parity).

`python3 tests/test_e2e_gpu.py [--out FILE]` prints the same checks as a markdown table.
"""

from __future__ import annotations

import datetime
import sys
import time
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_exec_torch import EXPRESSIONS, SEEDS  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]

LAYERS = [("tinyllama", 128), ("qwen2.5-7b", 128)]


def _capture(case: str):
    from dpl.frontend import capture, capture_expression, hf

    if case.startswith("layer:"):
        name, seq = case[len("layer:") :].split("@")
        module, inputs = hf.decoder_layer(name, seq=int(seq), dtype=torch.float32)
        return capture(module, *inputs, dtype=torch.float32)
    expr = EXPRESSIONS.get(case, case)
    return capture_expression(expr, dtype=torch.float32)


def check(case: str):
    """(Parity, number of kernels) of `case`."""
    from dpl.driver.compile import check_parity, compile_program

    prog = _capture(case)
    compiled = compile_program(prog)
    return check_parity(compiled, prog), compiled.num_kernels


CASES = sorted(EXPRESSIONS) + SEEDS + [f"layer:{n}@{s}" for n, s in LAYERS]


@pytest.mark.parametrize("case", CASES)
def test_parity(case: str):
    parity, _ = check(case)
    assert parity.ok, f"{case}: {parity}"


def main() -> None:
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = [
        f"# dpl end to end on {torch.cuda.get_device_name()} ({datetime.date.today()})",
        "",
        f"torch {torch.__version__}; fresh random fp32 inputs, outputs poisoned (NaN), "
        "reference PyTorch in float64.",
        "",
        "| case | kernels | relative error | worst element / bound | elements past | tolerance | ok | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    failures = 0
    for case in CASES:
        t0 = time.time()
        try:
            p, n = check(case)
            ok = p.ok
            rows.append(f"| `{case}` | {n} | {p.rel_err:.2e} | {p.elem_err:.2g} | {p.bad} | {p.tol:.0e} | "
                        f"{'yes' if ok else 'NO'} | {time.time() - t0:.1f} |")  # fmt: skip
        except Exception as e:  # noqa: BLE001 - one failing case must not hide the others
            ok = False
            msg = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
            rows.append(f"| `{case}` | - | error: {msg} | - | - | - | NO | {time.time() - t0:.1f} |")
        failures += not ok
        print(rows[-1], flush=True)
    rows += ["", f"{len(CASES) - failures}/{len(CASES)} cases pass."]
    text = "\n".join(rows) + "\n"
    print(text)
    if out:
        Path(out).write_text(text)


if __name__ == "__main__":
    main()
