"""Run dpl's kernels under compute-sanitizer; the steps of scripts/sanitize.sh.

    python scripts/sanitize.py prepare DIR [--cases REGEX]   # compile every case (no GPU needed)
    compute-sanitizer --tool T ... python scripts/sanitize.py run DIR > DIR/T.log 2>&1
    python scripts/sanitize.py report DIR                    # one line per kernel; exit 1 on findings

The cases (`CASES`): the bench suite (bench/suite.py) at shapes that run the same kernel code
paths in less device time (the row lengths, matmul classes and decoder layers stay; see
`SUITE`), the seeds' examples and every frontend op of tests/test_exec_torch.py. `prepare`
captures and compiles each on the CPU and saves its kernel IR and arguments, so the sanitized
runs only parse, load and launch. `run` launches each program once, between `SANITIZE-BEGIN
<case> <kernels...>` and `SANITIZE-END <case>` lines. `report` reads DIR/<tool>.log for each
tool, gives each sanitizer finding to the kernel it names (in the case it was reported in), and
prints `<tool> <case> <kernel> ok` or `... FOUND n: <first line>` for every kernel, then the
totals; a finding, a case that failed or did not finish, or a nonzero sanitizer summary makes the
exit status 1.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("memcheck", "racecheck", "synccheck")

#: bench/suite.py's cases, by name, at the shapes sanitized: (maker, its arguments). The same
#: kernels at fewer rows (norms, softmax, SwiGLU), the projections with the suite's K and N at
#: seq 128 and 512 (both matmul tiles, split-K with its zero-fill kernel, bias epilogue), SDPA at
#: seq 128 (and seq 512 with 4 heads), and both decoder layers at seq 128.
SUITE = {
    "rmsnorm_1x32x2048": ("_rmsnorm", ((1, 32, 2048),)),
    "rmsnorm_1x256x4096": ("_rmsnorm", ((1, 256, 4096),)),
    "relu_matmul_16x64x16": (None, ()),
    "silu_mul_16x18944": ("silu", (16, 18944)),
    "softmax_1x4x64x2048": ("softmax", (1, 4, 64, 2048)),
    "linear_3584x3584_s128": ("_linear", (3584, 3584, 128, False)),
    "linear_3584x512_bias_s128": ("_linear", (3584, 512, 128, True)),
    "linear_3584x512_bias_s512": ("_linear", (3584, 512, 512, True)),
    "sdpa_causal_h28_d128_s128": ("_sdpa", (28, 128, 128)),
    "sdpa_causal_h4_d128_s512": ("_sdpa", (4, 512, 128)),
    "tinyllama_layer_s128": ("_decoder", ("tinyllama", 128)),
    "qwen2.5-7b_layer_s128": ("_decoder", ("qwen2.5-7b", 128)),
}


def suite_cases():
    """(name, () -> (module, inputs)) for SUITE, made on the CPU."""
    import torch

    from dpl.bench import suite

    suite.DEV = "cpu"
    by_name = {c.name: c for c in suite.CASES}
    for name, (maker, args) in SUITE.items():
        if maker is None:
            yield name, by_name[name].make
        elif maker == "silu":
            yield name, lambda a=args: (suite.SiluMul(), (torch.randn(*a), torch.randn(*a)))
        elif maker == "softmax":
            yield name, lambda a=args: (suite.Softmax(), (torch.randn(*a),))
        else:
            yield name, getattr(suite, maker)(*args)


def example_cases():
    """(name, expression) for the seeds' examples and every frontend op's test expression."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_exec_torch import EXPRESSIONS, SEEDS

    for i, expr in enumerate(SEEDS):
        yield f"seed{i}", expr
    yield from sorted(EXPRESSIONS.items())


def prepare(out: Path, pattern: str | None) -> int:
    import torch

    from dpl.driver.compile import lower
    from dpl.frontend import capture, capture_expression
    from dpl.frontend.check import fresh_inputs

    out.mkdir(parents=True, exist_ok=True)
    names = []
    programs = [(n, lambda m=m: capture(*_made(m), dtype=torch.float32)) for n, m in suite_cases()]
    programs += [(n, lambda e=e: capture_expression(e, dtype=torch.float32)) for n, e in example_cases()]
    for name, make in programs:
        if pattern and not re.search(pattern, name):
            continue
        torch.manual_seed(0)
        prog = make()
        module, _ = lower(prog)
        inputs = fresh_inputs(prog, 1)
        params = [p.detach().to(torch.float32).contiguous() for p in prog.args[prog.num_inputs :]]
        torch.save({"ir": str(module), "args": [*inputs, *params]}, out / f"{name}.pt")
        names.append(name)
        print(f"prepared {name}", flush=True)
    (out / "cases.txt").write_text("\n".join(names) + "\n")
    return 0


def _made(make):
    fn, inputs = make()
    return (fn, *inputs)


def run(out: Path) -> int:
    import torch

    from dpl.dialects import make_context
    from dpl.dialects.parsing import parse_module
    from dpl.driver.host import HostProgram, aligned

    failed = 0
    for name in (out / "cases.txt").read_text().split():
        try:
            saved = torch.load(out / f"{name}.pt")
            host = HostProgram(parse_module(make_context(), saved["ir"], name))
            kernels = list(dict.fromkeys(launch.kernel.name for launch in host.launches))
            print(f"SANITIZE-BEGIN {name} {' '.join(kernels)}", flush=True)
            host(*[aligned(t.cuda()) for t in saved["args"]])
            torch.cuda.synchronize()
            print(f"SANITIZE-END {name}", flush=True)
        except Exception as e:  # noqa: BLE001 - one broken case must not hide the others
            failed += 1
            print(f"SANITIZE-FAIL {name} {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            traceback.print_exc()
            sys.stdout.flush()
    return 1 if failed else 0


#: A sanitizer line that starts a finding (not a summary, banner or continuation line).
FINDING = re.compile(r"^========= (?!ERROR SUMMARY|RACECHECK SUMMARY|COMPUTE-SANITIZER|\s)(.*\S)")
SUMMARY = re.compile(r"^========= (?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")


def read_log(text: str):
    """Per case: its kernels, whether it ended, and its findings [(kernel or "?", first line)];
    and the sanitizer's summary counts."""
    cases: dict[str, dict] = {}
    current = None
    finding: list[str] | None = None
    summaries = []

    def close() -> None:
        nonlocal finding
        if finding is not None and current is not None:
            case = cases[current]
            block = "\n".join(finding)
            kernel = next((k for k in case["kernels"] if re.search(rf"\b{re.escape(k)}\b", block)), "?")
            case["findings"].append((kernel, finding[0]))
        finding = None

    for line in text.splitlines():
        if line.startswith("SANITIZE-BEGIN "):
            close()
            _, name, *kernels = line.split()
            current = name
            cases[name] = {"kernels": kernels, "ended": False, "findings": [], "failed": None}
        elif line.startswith("SANITIZE-END "):
            close()
            cases[line.split()[1]]["ended"] = True
        elif line.startswith("SANITIZE-FAIL "):
            close()
            name = line.split()[1]
            cases.setdefault(name, {"kernels": [], "ended": False, "findings": [], "failed": None})
            cases[name]["failed"] = line
        elif (m := SUMMARY.match(line)) is not None:
            close()
            summaries.append(int(m.group(1) or m.group(2)))
        elif FINDING.match(line):
            close()
            finding = [FINDING.match(line).group(1)]  # type: ignore[union-attr]
        elif finding is not None and line.startswith("========="):
            finding.append(line)
        else:
            close()
    close()
    return cases, summaries


def report(out: Path) -> int:
    names = (out / "cases.txt").read_text().split()
    bad = 0
    kernels_checked = 0
    for tool in TOOLS:
        log = out / f"{tool}.log"
        if not log.exists():
            print(f"{tool:9} -: no log ({log})")
            bad += 1
            continue
        cases, summaries = read_log(log.read_text())
        for name in names:
            case = cases.get(name)
            if case is None or case["failed"] or not case["ended"]:
                why = (case or {}).get("failed") or "did not finish"
                print(f"{tool:9} {name} -: FAILED {why}")
                bad += 1
                if case is None:
                    continue
            for kernel in [*case["kernels"], "?"]:
                found = [f for k, f in case["findings"] if k == kernel]
                if kernel == "?" and not found:
                    continue
                kernels_checked += kernel != "?"
                if found:
                    bad += 1
                    print(f"{tool:9} {name} {kernel}: FOUND {len(found)}: {found[0]}")
                else:
                    print(f"{tool:9} {name} {kernel}: ok")
        if not summaries or any(summaries):
            print(f"{tool:9} summary: {summaries or 'missing'}")
            bad += 1
    print(f"{kernels_checked} kernel checks over {len(names)} cases and {len(TOOLS)} tools: "
          f"{'clean' if not bad else f'{bad} findings or failures'}")  # fmt: skip
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=["prepare", "run", "report"])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--cases", help="regular expression over case names (prepare)")
    args = ap.parse_args(argv)
    if args.step == "prepare":
        return prepare(args.dir, args.cases)
    if args.step == "run":
        return run(args.dir)
    return report(args.dir)


if __name__ == "__main__":
    sys.exit(main())
