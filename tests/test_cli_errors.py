"""The tools end bad input in one line and exit code 1, never a traceback, and never lose a file:
`-o` is written only when the run succeeds (onto its own input too); `dpl-opt -` reads standard
input and takes MLIR's `builtin.module(...)` pipeline spelling with -p too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpl.bench import harness as B
from dpl.tools import dpl as dpl_cli
from dpl.tools import dpl_opt, dpl_translate

ROOT = Path(__file__).resolve().parent.parent
TILEIFY = ROOT / "test/lit/tile/tileify.mlir"
KERNEL = ROOT / "test/lit/translate/rms_norm.mlir"


def run_tool(main, argv: list[str], capsys, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, tool: str) -> str:
    assert code == 1, err
    assert "Traceback" not in err and err.count("\n") <= 1, err
    assert err.startswith(f"{tool}: "), err
    return err.strip()


def test_dpl_opt_o_onto_its_input_keeps_it_when_the_run_fails(tmp_path, capsys):
    f = tmp_path / "f.mlir"
    f.write_text(TILEIFY.read_text())
    before = f.read_bytes()
    for argv in (
        [str(f), "-p", "no-such-pass", "-o", str(f)],
        [str(f), "-p", "register-tile{rows=0}", "-o", str(f)],
    ):
        code, _, err = run_tool(dpl_opt.main, argv, capsys)
        one_line_error(code, err, "dpl-opt")
        assert f.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["f.mlir"]  # no temporary file left behind
    # a pass that fails half way through the file (after earlier cases were written)
    f.write_text(TILEIFY.read_text() + "\n// -----\n" + (ROOT / "test/lit/kernel/materialize-errors.mlir").read_text())
    before = f.read_bytes()
    code, _, err = run_tool(dpl_opt.main, [str(f), "--split-input-file", "-p", "materialize", "-o", str(f)], capsys)
    assert "'memref.alloca' is not supported inside a tile kernel" in one_line_error(code, err, "dpl-opt")
    assert f.read_bytes() == before


def test_dpl_opt_o_onto_its_input_replaces_it_when_the_run_succeeds(tmp_path, capsys):
    f = tmp_path / "f.mlir"
    f.write_text(TILEIFY.read_text())
    code, out, err = run_tool(dpl_opt.main, [str(f), "--split-input-file", "-p", "tileify", "-o", str(f)], capsys)
    assert (code, out, err) == (0, "", "")
    assert "tile.tile" in f.read_text() and "tile.kernel" in f.read_text()


def test_dpl_translate_o_onto_its_input_keeps_it_when_the_run_fails(tmp_path, capsys):
    f = tmp_path / "k.mlir"
    f.write_text(KERNEL.read_text().replace("kernel.barrier", "kernel.no_such_op"))
    before = f.read_bytes()
    code, _, err = run_tool(dpl_translate.main, ["--to-cuda", str(f), "-o", str(f)], capsys)
    one_line_error(code, err, "dpl-translate")
    assert f.read_bytes() == before
    good = tmp_path / "ok.mlir"
    good.write_text(KERNEL.read_text())
    code, _, _ = run_tool(dpl_translate.main, ["--to-cuda", str(good), "-o", str(tmp_path / "k.cu")], capsys)
    assert code == 0 and "__global__" in (tmp_path / "k.cu").read_text()


def test_dpl_opt_reads_stdin_from_dash_and_takes_the_mlir_wrapper(capsys, monkeypatch):
    text = "func.func @f(%a: i32) -> i32 {\n  %b = arith.addi %a, %a : i32\n  %c = arith.addi %a, %a : i32\n  %d = arith.addi %b, %c : i32\n  func.return %d : i32\n}\n"
    code, out, err = run_tool(dpl_opt.main, ["-", "-p", "builtin.module(cse)"], capsys, text, monkeypatch)
    assert (code, err) == (0, "")
    assert out.count("arith.addi") == 2


def test_hex_float_constant_too_wide_is_a_located_error(tmp_path, capsys):
    f = tmp_path / "hex.mlir"
    f.write_text("func.func @f() -> f32 {\n  %c = arith.constant 0xfff0000000000000 : f32\n  func.return %c : f32\n}\n")
    code, _, err = run_tool(dpl_opt.main, [str(f)], capsys)
    assert one_line_error(code, err, "dpl-opt") == (
        f"dpl-opt: {f}:2:23: error: hexadecimal literal 0xfff0000000000000 has more bits than its float type"
    )
    f.write_text(f.read_text().replace("f32", "f64"))  # 64 bits fit an f64: -inf
    code, out, _ = run_tool(dpl_opt.main, [str(f)], capsys)
    assert code == 0 and "0xfff0000000000000 : f64" in out


def _nested(n: int) -> str:
    lines = ["func.func @f(%x: memref<8xf32>, %o: memref<8xf32>) {",
             "  loop.kernel @k ins(%x : memref<8xf32>) outs(%o : memref<8xf32>) {"]  # fmt: skip
    lines += [f"loop.for free %a{i} < 2 {{" for i in range(n)]
    lines += ["%v = loop.load %x[%a0] : memref<8xf32>", "loop.store %v, %o[%a0] : memref<8xf32>"]
    lines += ["}"] * n + ["  }", "  func.return", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("depth", [63, 136, 5000])
def test_deep_nesting_is_a_one_line_error(tmp_path, capsys, depth):
    f = tmp_path / "deep.mlir"
    f.write_text(_nested(depth))
    code, _, err = run_tool(dpl_opt.main, [str(f)], capsys)
    assert "regions nest more than 64 deep, dpl's limit" in one_line_error(code, err, "dpl-opt")


def test_nesting_within_the_limit_runs(tmp_path, capsys):
    f = tmp_path / "deep.mlir"
    f.write_text(_nested(62))
    code, out, err = run_tool(dpl_opt.main, [str(f), "-p", "fuse-loops,hoist-loop-invariants"], capsys)
    assert (code, err) == (0, "") and out.count("loop.for") == 62


def test_disable_verify_on_malformed_ir_is_one_line(tmp_path):
    """In a subprocess: --disable-verify switches off xDSL's attribute checks process-wide."""
    f = tmp_path / "bad.mlir"
    f.write_text("""func.func @main(%x: memref<8x64xf32>, %o: memref<8x64xf32>) {
  tile.kernel @k ins(%x : memref<8x64xf32>) outs(%o : memref<8x64xf32>) {
    tile.tile (%a0 : 64 = thread, %a1 : 8 = block) {
      "tile.strided_for"(%a0) <{kind = #loop<iter_kind free>, bound = #builtin.int<64>, step = #builtin.int<64>}> ({
        loop.yield
      }) : (index) -> ()
    }
  }
  func.return
}
""")
    for extra, what in (([], "printing"), (["-p", "materialize"], "'materialize'")):
        r = subprocess.run([sys.executable, "-m", "dpl.tools.dpl_opt", "--disable-verify", *extra, str(f)],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.strip() == (f"dpl-opt: error: {what} failed on IR that was not verified "
                                    "(--disable-verify): IndexError: tuple index out of range")  # fmt: skip


@pytest.mark.parametrize("argv,message", [
    (["compile", "--model", "tinyllama-layer", "--seq", "-1"], "dpl: error: --seq must be a positive integer, got -1"),
    (["compile", "--model", "tinyllama-layer", "--seq", "0"], "dpl: error: --seq must be a positive integer, got 0"),
    (["compile", "--model", "tinyllama", "--num-layers", "0"], "dpl: error: --num-layers must be a positive integer, got 0"),
    (["compile", "--model", "qwen2.5-7b", "--num-layers", "-2"], "dpl: error: --num-layers must be a positive integer, got -2"),
])  # fmt: skip
def test_dpl_rejects_non_positive_sizes(argv, message, capsys):
    code, _, err = run_tool(dpl_cli.main, argv, capsys)
    assert one_line_error(code, err, "dpl") == message


def test_dpl_help_says_c_runs_python(capsys):
    code, out, _ = run_tool(dpl_cli.main, ["compile", "-h"], capsys)
    assert code == 0 and "runs as `python -c` would (builtins included)" in " ".join(out.split())
    assert "`python -c`" in (ROOT / "README.md").read_text()


def test_results_json_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "results.json"
    B.write_json(str(path), {"cases": [1.0, float("nan")]})
    assert json.loads(path.read_text()) == {"cases": [1.0, None]}
    before = path.read_text()
    with pytest.raises(TypeError):
        B.write_json(str(path), {"cases": [object()]})  # not JSON: fails before anything is written
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_an_unclosed_string_is_a_quick_error(tmp_path, capsys):
    """xDSL's string-literal pattern backtracks exponentially on a quote left open early in a
    long line (found by tests/test_fuzz.py as a hang); dpl's lexer does not."""
    f = tmp_path / "quote.mlir"
    f.write_text('func.func @f(%x: memref<8"x64xf32>, %o: memref<8x64xf32>, %y: memref<8x64xf32>) {\n  func.return\n}\n')
    code, _, err = run_tool(dpl_opt.main, [str(f)], capsys)
    assert "End of file reached before closing string literal." in one_line_error(code, err, "dpl-opt")


def test_a_large_constant_of_several_values_is_a_one_line_error(tmp_path, capsys):
    """lower-to-loops stores a constant element by element; past 4096 of them it asks for a
    table (a splat of any size is a fill loop: test/lit/loop/lower-to-loops.mlir)."""
    f = tmp_path / "big.mlir"
    values = ", ".join(f"{i}.0" for i in range(4097))
    f.write_text(f"func.func @main(%x: tensor<4097xf32>) -> tensor<4097xf32> {{\n"
                 f"  %c = tensor.constant dense<[{values}]> : tensor<4097xf32>\n"
                 f"  func.return %c : tensor<4097xf32>\n}}\n")  # fmt: skip
    code, _, err = run_tool(dpl_opt.main, [str(f), "-p", "lower-to-loops"], capsys)
    assert one_line_error(code, err, "dpl-opt").endswith(
        "lower-to-loops: tensor.constant with 4097 elements is too large to inline (limit 4096); pass it "
        "as an argument of @main instead, as the frontend does with its tables"
    )
