"""The on-disk kernel cache (no CUDA needed): where it lives, how entries are written and checked.

Location: `$DPL_CACHE_DIR`, else `$XDG_CACHE_HOME/dpl`, else `~/.cache/dpl`. The directory is
created private (mode 0700); one that is not owned by the user is not used (a warning says so and
kernels are compiled without the cache), one of ours that others may write is made private again.

An entry is one file `<key>.cubin`, `key` the sha256 of everything that determines the cubin
(source, arch, options, NVRTC version). Its first line says what it holds,

    dpl-cubin 1 <key> <sha256 of the payload> <payload bytes>\n

and the cubin follows. `load` checks all of it: an entry that is truncated, corrupt, planted by
hand (a bare cubin), or filed under another key is reported with a warning and treated as a
miss, so the caller rebuilds it and `store` replaces it; it is never run and never fatal. Writes
go to a temporary file in the same directory renamed over the entry, so concurrent writers of
one key never leave half a file (the last complete write wins).

`write_atomic` is the same write for any file: the tools' `-o` and the results JSON use it, so a
failed run leaves the old file as it was.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

MAGIC = b"dpl-cubin 1"


class CacheWarning(UserWarning):
    """A cache entry or directory that could not be used; the kernel is compiled again."""


def write_atomic(path: str | os.PathLike, data: bytes | str) -> None:
    """Write `data` to `path` through a temporary file in its directory renamed over it: readers
    see the old content or the new, never a part, and a failure leaves the old file as it was."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        if path.exists():
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cache_dir() -> Path:
    """`$DPL_CACHE_DIR`, else `$XDG_CACHE_HOME/dpl`, else `~/.cache/dpl`."""
    env = os.environ.get("DPL_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dpl"


def make_private(path: Path) -> Path:
    """`path`, created with mode 0700 if missing (made private again if others may write it); an
    OSError saying why where it cannot be a private directory of this user. The kernel cache and
    the tuning cache (driver/tune_cache.py) both live in one, each warning in its own words."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.stat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise OSError(f"{path} is not a directory of this user")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def private_dir(path: Path) -> Path | None:
    """`path` as a private directory (`make_private`), or None with a warning."""
    try:
        return make_private(path)
    except OSError as e:
        warnings.warn(f"dpl: kernel cache {path} cannot be used ({e}); compiling without it",
                      CacheWarning, stacklevel=3)  # fmt: skip
        return None


def cache_key(source: str, arch: str, options: Sequence[str], nvrtc_version: str = "") -> str:
    """sha256 over everything that determines the cubin: source, arch, options, NVRTC version."""
    h = hashlib.sha256()
    for part in (source, arch, "\x1f".join(options), nvrtc_version):
        h.update(part.encode())
        h.update(b"\x00")
    return h.hexdigest()


def entry_path(directory: Path, key: str) -> Path:
    return directory / f"{key}.cubin"


def _header(key: str, payload: bytes) -> bytes:
    digest = hashlib.sha256(payload).hexdigest().encode()
    return b"%s %s %s %d\n" % (MAGIC, key.encode(), digest, len(payload))


def load(directory: Path, key: str) -> bytes | None:
    """The cubin stored under `key`, checked; None when there is none or it does not check out
    (with a warning saying why)."""
    path = entry_path(directory, key)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        warnings.warn(f"dpl: kernel cache entry {path} cannot be read ({e}); rebuilding it",
                      CacheWarning, stacklevel=3)  # fmt: skip
        return None
    header, _, payload = data.partition(b"\n")
    if header + b"\n" != _header(key, payload):
        why = "its content does not match its header" if header.startswith(MAGIC) else "not a dpl cache entry"
        warnings.warn(f"dpl: kernel cache entry {path} failed its check ({why}); rebuilding it",
                      CacheWarning, stacklevel=3)  # fmt: skip
        return None
    return payload


def store(directory: Path, key: str, payload: bytes) -> Path:
    """Store `payload` under `key` (atomically, replacing whatever was there)."""
    path = entry_path(directory, key)
    write_atomic(path, _header(key, payload) + payload)
    return path


def cached(key: str, build: Callable[[], bytes], use_cache: bool = True) -> tuple[bytes, Path | None, bool]:
    """The payload stored under `key`, else `build()`'s, stored for next time: (payload, the
    entry's path or None when nothing is stored, whether it came from the cache). A cache that
    cannot be used or written only costs the rebuild (with a warning)."""
    directory = private_dir(cache_dir()) if use_cache else None
    if directory is not None:
        payload = load(directory, key)
        if payload is not None:
            return payload, entry_path(directory, key), True
    payload = build()
    if directory is None:
        return payload, None, False
    try:
        return payload, store(directory, key, payload), False
    except OSError as e:
        warnings.warn(f"dpl: kernel cache entry for {key} cannot be written ({e})",
                      CacheWarning, stacklevel=2)  # fmt: skip
        return payload, None, False
