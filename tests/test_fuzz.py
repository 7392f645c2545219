"""Fuzzing dpl-opt and dpl-translate: no input and no pass option ends in a traceback or a hang.

Bounded and seeded: each mutant is one lit case (test/lit/**/*.mlir, split at `// -----`) with a
few random edits (a line deleted, doubled or swapped, a number or type or keyword replaced, an SSA
name swapped, the text cut short, stray punctuation) run through a pipeline (the case's own RUN
pipeline, or one or two random passes with random options: in range, at the ends of the range,
past them), or through dpl-translate. Everything runs in process, each under a time limit. A
mutant passes when the tool succeeds or ends in its one-line error (exit code 1); anything that
escapes the tool's error handling is a traceback and fails the test with the mutant's text.

    python3 tests/test_fuzz.py [--mutants N] [--seed S]     # a longer run by hand
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.ir import Attribute

from dpl.tools import dpl_opt, dpl_translate
from dpl.transforms import all_passes

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_pass_options import RANGES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "test" / "lit"
MUTANTS = 600
SEED = 20261123
TIME_LIMIT_S = 20
MAX_CASE_CHARS = 6000  # small cases keep each mutant fast

TYPES = ["f32", "f64", "i32", "i64", "i1", "index", "f16", "bf16", "memref<4xf32>", "tensor<2x3xf32>"]
KEYWORDS = [
    ("thread", "block"), ("block", "cell"), ("free", "reduce"), ("reduce", "free"), ("add", "mul"),
    ("max", "min"), ("sync", "async"), ("async", "tma"), ("x", "z"), ("ins", "outs"), ("to", "step"),
]  # fmt: skip
NUMBERS = ["0", "-1", "1", "3", "7", "65536", "2147483648", "9223372036854775808",
           "0xfff0000000000000", "1.5", "1e40", "-0.0"]  # fmt: skip
JUNK = ["{", "}", "(", ")", "[", "]", ",", ":", "%", "%0", "->", "<", ">", "=", "// -----", "\"", "#"]


def lit_cases() -> list[tuple[str, str, str]]:
    """(case id, text, RUN pipeline or '') of every lit case small enough to fuzz quickly."""
    cases = []
    for path in sorted(LIT.rglob("*.mlir")):
        text = path.read_text()
        spec = ""
        m = re.search(r"--pass-pipeline=('[^']*'|\S+)", text)
        if m:
            spec = m.group(1).strip("'")
        for i, part in enumerate(text.split("// -----")):
            body = "\n".join(line for line in part.splitlines() if not line.lstrip().startswith("//"))
            if body.strip() and len(body) <= MAX_CASE_CHARS:
                cases.append((f"{path.relative_to(LIT)}#{i}", body, spec))
    return cases


def nudge(text: str, rng: random.Random) -> str:
    """A gentle edit that mostly still parses: one number (an extent, a shape, an offset) changed
    to a nearby or an edge value, or one keyword swapped."""
    if rng.random() < 0.3:
        old, new = rng.choice(KEYWORDS)
        hits = list(re.finditer(rf"\b{old}\b", text))
        if hits:
            m = rng.choice(hits)
            return text[: m.start()] + new + text[m.end() :]
    nums = list(re.finditer(r"(?<![%\w#.])\d+(?![\w.])", text))
    if not nums:
        return text
    m = rng.choice(nums)
    n = int(m.group())
    value = rng.choice([n + 1, max(n - 1, 0), n * 2, n * 3, 1, 0, 3, 5, 31, 33, 96, 1000, 65536, 65537])
    return text[: m.start()] + str(value) + text[m.end() :]


def mutate(text: str, rng: random.Random) -> str:
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 2)):
            text = nudge(text, rng)
        return text
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        kind = rng.randrange(9)
        if kind == 0 and len(lines) > 1:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            nums = list(re.finditer(r"(?<![%\w#])-?\d+(\.\d+)?", lines[i]))
            if nums:
                m = rng.choice(nums)
                lines[i] = lines[i][: m.start()] + rng.choice(NUMBERS) + lines[i][m.end() :]
        elif kind == 4:
            types = list(re.finditer(r"\b(f32|f64|i32|i64|i1|index)\b", lines[i]))
            if types:
                m = rng.choice(types)
                lines[i] = lines[i][: m.start()] + rng.choice(TYPES) + lines[i][m.end() :]
        elif kind == 5:
            old, new = rng.choice(KEYWORDS)
            lines[i] = re.sub(rf"\b{old}\b", new, lines[i], count=1)
        elif kind == 6:
            names = re.findall(r"%[\w.]+", text)
            here = list(re.finditer(r"%[\w.]+", lines[i]))
            if names and here:
                m = rng.choice(here)
                lines[i] = lines[i][: m.start()] + rng.choice(names) + lines[i][m.end() :]
        elif kind == 7:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + rng.choice(JUNK) + lines[i][cut:]
        else:
            joined = "\n".join(lines)
            return joined[: rng.randrange(len(joined) + 1)]
    return "\n".join(lines) + "\n"


def option_value(spec: tuple, rng: random.Random):
    """Mostly a value in the option's range (an end, or a small or a large one), else one past it."""
    if spec[0] == "choices":
        return rng.choice([*spec[1:], *spec[1:], 0, 16, 256, -32])
    lo, hi = spec
    inside = [lo, lo + 1, lo + 2, lo + 3, lo * 2 + 4, lo + 7, lo + 32] + ([hi] if hi is not None else [10**6])
    outside = [lo - 1, -(10**9)] + ([hi + 1, 10**9] if hi is not None else [])
    value = rng.choice(inside if rng.random() < 0.75 else outside)
    if hi is not None and value in inside:
        value = min(value, hi)
    return float(value) if isinstance(lo, float) else value


def random_pipeline(own: str, rng: random.Random) -> str:
    passes = sorted(all_passes())
    options: dict[str, list[tuple[str, tuple]]] = {}
    for (p, o), spec in RANGES.items():
        options.setdefault(p, []).append((o, spec))
    if own and rng.random() < 0.6:
        chosen = [s.split("{")[0] for s in re.split(r",(?![^{]*\})", own)]
        if rng.random() < 0.3:  # and on down to kernel IR
            chosen += ["schedule", "materialize"] if "schedule" not in own and "tile" not in own else ["materialize"]
    else:
        chosen = [rng.choice(passes) for _ in range(rng.randint(1, 2))]
    parts = []
    for p in chosen:
        opts = [f"{o}={option_value(spec, rng)}" for o, spec in options.get(p, []) if rng.random() < 0.6]
        parts.append(p + ("{" + " ".join(opts) + "}" if opts else ""))
    return ",".join(parts)


@dataclass
class Outcome:
    code: int
    stderr: str


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_tool(main, argv: list[str], text: str) -> Outcome:
    """Run a tool's `main` in process on `text` (the file `-` in `argv`), under the time limit.
    A traceback (an exception the tool let through) or a hang propagates."""
    post_init = Attribute.__post_init__  # --disable-verify switches it off process-wide
    stdin, err = sys.stdin, io.StringIO()
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    argv = [f.name if a == "-" else a for a in argv]
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            main(argv)
        return Outcome(0, err.getvalue())
    except SystemExit as e:
        return Outcome(int(e.code or 0), err.getvalue())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        sys.stdin = stdin
        Attribute.__post_init__ = post_init
        Path(f.name).unlink()


def mutants(n: int, seed: int):
    """`n` (description, tool main, argv, text) mutants, the same for the same seed."""
    rng = random.Random(seed)
    cases = lit_cases()
    for k in range(n):
        case_id, text, own = rng.choice(cases)
        mutated = mutate(text, rng)
        if "kernel.func" in text and rng.random() < 0.25:
            argv = [rng.choice(["--to-cuda", "--manifest"]), "-"]
            yield f"#{k} {case_id} dpl-translate {' '.join(argv)}", dpl_translate.main, argv, mutated
            continue
        if rng.random() < 0.15:
            mutated = text  # the case as it is, only the options mutate
        argv = ["-", "--pass-pipeline", random_pipeline(own, rng)]
        if rng.random() < 0.1:
            argv.append("--disable-verify")
        if rng.random() < 0.1:
            argv.append("--verify-diagnostics")
        yield f"#{k} {case_id} dpl-opt {' '.join(argv)}", dpl_opt.main, argv, mutated


def fuzz(n: int, seed: int) -> tuple[int, list[str]]:
    """Run `n` mutants; (how many ended in a one-line error, the failures)."""
    errors, failures = 0, []
    for what, main, argv, text in mutants(n, seed):
        try:
            outcome = run_tool(main, argv, text)
        except Hang:
            failures.append(f"{what}: hang (> {TIME_LIMIT_S} s)\n{text}")
            continue
        except Exception as e:  # noqa: BLE001 - exactly what this test looks for
            failures.append(f"{what}: traceback: {type(e).__name__}: {e}\n{text}")
            continue
        if outcome.code not in (0, 1) or (outcome.code == 1 and outcome.stderr.count("\n") > 1):
            failures.append(f"{what}: exit {outcome.code}: {outcome.stderr}\n{text}")
        errors += outcome.code == 1
    return errors, failures


def test_mutants_end_in_one_line_errors_not_tracebacks():
    start = time.time()
    errors, failures = fuzz(MUTANTS, SEED)
    assert not failures, f"{len(failures)} of {MUTANTS} mutants failed:\n\n" + "\n\n".join(failures[:5])
    assert errors > MUTANTS // 4  # the mutants do reach the error paths
    assert time.time() - start < 600


def test_mutation_is_seeded():
    a = [(w, t) for w, _, _, t in mutants(20, 7)]
    b = [(w, t) for w, _, _, t in mutants(20, 7)]
    assert a == b and len(lit_cases()) > 200


if __name__ == "__main__":
    n = int(sys.argv[sys.argv.index("--mutants") + 1]) if "--mutants" in sys.argv else MUTANTS
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else SEED
    t0 = time.time()
    errors, failures = fuzz(n, seed)
    for f in failures:
        print(f, "\n")
    print(f"{n} mutants (seed {seed}): {errors} one-line errors, {len(failures)} failures, {time.time() - t0:.0f} s")
    sys.exit(1 if failures else 0)
