"""The kernel cache without a GPU (backend/cache.py, the logic compile_cuda runs NVRTC through):
a private directory, entries checked on load, a planted, corrupt, truncated or misfiled entry
rebuilt with a warning (never run, never fatal), concurrent writers safe; and atomic writes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dpl.backend import cache

KEY = cache.cache_key("extern \"C\" __global__ void k() {}", "sm_90", ("-arch=sm_90",), "13.0")
CUBIN = b"\x7fELF" + bytes(range(256)) * 4  # stands for what NVRTC builds


class Builds:
    """A stand-in for NVRTC that counts its compiles."""

    def __init__(self, payload: bytes = CUBIN):
        self.payload, self.count = payload, 0

    def __call__(self) -> bytes:
        self.count += 1
        return self.payload


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "cache" / "dpl"
    monkeypatch.setenv("DPL_CACHE_DIR", str(path))
    return path


def test_directory_is_created_private(cache_home):
    build = Builds()
    payload, path, hit = cache.cached(KEY, build)
    assert (payload, hit, build.count) == (CUBIN, False, 1)
    assert path == cache_home / f"{KEY}.cubin"
    assert stat.S_IMODE(cache_home.stat().st_mode) == 0o700


def test_a_shared_directory_of_ours_is_made_private(cache_home):
    cache_home.mkdir(parents=True)
    os.chmod(cache_home, 0o777)
    cache.cached(KEY, Builds())
    assert stat.S_IMODE(cache_home.stat().st_mode) == 0o700


def test_second_lookup_is_a_checked_hit(cache_home):
    cache.cached(KEY, Builds())
    build = Builds(b"other")
    payload, _, hit = cache.cached(KEY, build)
    assert (payload, hit, build.count) == (CUBIN, True, 0)
    assert (cache_home / f"{KEY}.cubin").read_bytes().startswith(b"dpl-cubin 1 " + KEY.encode())


def _damage(entry: Path, how: str) -> None:
    data = entry.read_bytes()
    if how == "planted":  # a bare cubin of someone's choosing, under the right name
        entry.write_bytes(b"\x7fELF planted kernel that returns 42.0")
    elif how == "corrupt":  # one bit of the payload flipped
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif how == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        entry.write_bytes(b"")
    elif how == "header only":
        entry.write_bytes(data.partition(b"\n")[0] + b"\n")
    elif how == "misfiled":  # a valid entry of another key copied under this one's name
        other = cache.cache_key("other source", "sm_90", ("-arch=sm_90",), "13.0")
        cache.store(entry.parent, other, CUBIN)
        entry.write_bytes((entry.parent / f"{other}.cubin").read_bytes())


@pytest.mark.parametrize("how", ["planted", "corrupt", "truncated", "empty", "header only", "misfiled"])
def test_a_bad_entry_is_rebuilt_with_a_warning(cache_home, how):
    _, entry, _ = cache.cached(KEY, Builds())
    _damage(entry, how)
    build = Builds()
    with pytest.warns(cache.CacheWarning, match=r"kernel cache entry .* failed its check .*; rebuilding it"):
        payload, path, hit = cache.cached(KEY, build)
    assert (payload, hit, build.count) == (CUBIN, False, 1)  # rebuilt, the bad bytes never returned
    assert cache.load(cache_home, KEY) == CUBIN  # and replaced by a good entry
    payload, _, hit = cache.cached(KEY, Builds(b"unused"))
    assert (payload, hit) == (CUBIN, True)


def test_an_unusable_directory_only_costs_the_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("DPL_CACHE_DIR", str(blocker / "dpl"))
    build = Builds()
    with pytest.warns(cache.CacheWarning, match="cannot be used"):
        payload, path, hit = cache.cached(KEY, build)
    assert (payload, path, hit, build.count) == (CUBIN, None, False, 1)


def test_a_failed_write_is_not_fatal(cache_home, monkeypatch):
    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache, "write_atomic", full)
    with pytest.warns(cache.CacheWarning, match="cannot be written"):
        payload, path, hit = cache.cached(KEY, Builds())
    assert (payload, path, hit) == (CUBIN, None, False)


WRITER = """
import sys
from pathlib import Path
from dpl.backend import cache
directory, key, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(n):
    cache.store(directory, key, bytes([i % 251]) * 100_000)
    payload = cache.load(directory, key)
    assert payload is not None and len(payload) == 100_000 and len(set(payload)) == 1, "torn entry"
"""


def test_concurrent_writers_never_leave_a_torn_entry(cache_home):
    cache_home.mkdir(parents=True, mode=0o700)
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(cache_home), KEY, "40"], stderr=subprocess.PIPE)
        for _ in range(4)
    ]  # fmt: skip
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    assert cache.load(cache_home, KEY) is not None
    assert [p.name for p in cache_home.iterdir()] == [f"{KEY}.cubin"]  # no temporary files left


def test_write_atomic_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old\n")
    os.chmod(target, 0o640)

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        cache.write_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    monkeypatch.undo()
    cache.write_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # keeps its mode
