"""The CUDA printed from every valid kernel-IR lit file compiles with nvcc (sm_90; sm_90a, as
`-gencode=arch=compute_90a,code=sm_90a`, where the manifest asks for it: wgmma).

This is what proves in CI that generated CUDA compiles; it needs nvcc but no GPU (skipped where
nvcc is missing). Files whose RUN lines expect failure (`not ...`, --verify-diagnostics) are left out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dpl.backend.cuda_printer import CudaPrintError, print_cuda, print_manifest
from dpl.dialects import make_context
from dpl.dialects.parsing import LocatingParser

ROOT = Path(__file__).resolve().parent.parent
LIT_DIRS = [ROOT / "test/lit/dialects/kernel", ROOT / "test/lit/dialects/mma", ROOT / "test/lit/translate"]
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def nvcc_arch(arch: str) -> str:
    """nvcc's flag for `arch`: `-arch=sm_90`, or the -gencode form for sm_90a (with nvcc 13.0 the
    `-arch=sm_90a` shorthand also runs a plain sm_90 pass, which rejects wgmma)."""
    if arch.endswith("a"):
        n = arch[len("sm_") :]
        return f"-gencode=arch=compute_{n},code=sm_{n}"
    return f"-arch={arch}"


def _valid_kernel_files() -> list[Path]:
    files = []
    for d in LIT_DIRS:
        for path in sorted(d.glob("*.mlir")):
            text = path.read_text()
            run_lines = [line for line in text.splitlines() if "RUN:" in line]
            if any("not " in r or "--verify-diagnostics" in r for r in run_lines):
                continue
            if "kernel.func" in text:
                files.append(path)
    return files


def _parse(path: Path):
    module = LocatingParser(make_context(), path.read_text(), str(path)).parse_module()
    module.verify()
    return module


FILES = _valid_kernel_files()


def test_found_kernel_files():
    names = {p.name for p in FILES}
    assert {"roundtrip.mlir", "rms_norm.mlir", "tma.mlir", "f64_ops.mlir", "wgmma.mlir", "mma_sync.mlir"} <= names


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_printed_cuda_compiles(path: Path, tmp_path: Path):
    module = _parse(path)
    source = print_cuda(module)
    cu = tmp_path / (path.stem + ".cu")
    cu.write_text(source)
    arch = nvcc_arch(print_manifest(module).get("arch", "sm_90"))
    result = subprocess.run(
        [NVCC, arch, "-c", "-o", str(tmp_path / (path.stem + ".o")), str(cu)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"nvcc failed on {path.name}:\n{result.stderr}\n{source}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_manifest_matches_signature(path: Path):
    module = _parse(path)
    manifest = print_manifest(module)
    json.dumps(manifest)  # JSON-able
    source = print_cuda(module)
    for kernel in manifest["kernels"]:
        assert f"void {kernel['name']}(" in source
        assert f"__launch_bounds__({kernel['block'][0] * kernel['block'][1] * kernel['block'][2]})" in source
        ctypes = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long",
                  "bool": "bool"}
        params = ", ".join(
            f"{'const ' if a['role'] == 'in' else ''}{ctypes[a['dtype']]}* __restrict__ {a['name']}"
            for a in kernel["args"]
        )
        assert f"void {kernel['name']}({params}) {{" in source


def test_unsupported_op_is_one_line_error():
    text = """
kernel.func @k(%x: memref<32xi32>, %y: memref<32xi32>) grid [1, 1, 1] block [32, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xi32>
  %n = math.ctpop %v : i32
  kernel.store %n, %y[%t] : memref<32xi32>
}
"""
    module = LocatingParser(make_context(), text, "k.mlir").parse_module()
    with pytest.raises(CudaPrintError, match=r"^k.mlir:5:3: 'math.ctpop' has no CUDA lowering$"):
        print_cuda(module)
