"""Returning memory freed by a bulk job to the operating system.

glibc keeps blocks freed by the tantivy writer threads and by large temporaries of a
sync in its arenas, where they stay counted in the process's resident memory (20-40 MB
after indexing 100k entries, bench/search_speed.py). `malloc_trim` hands them back.
Elsewhere (macOS, Windows, musl) this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> bool:
    """True when memory was returned (glibc only)."""
    trim = _malloc_trim()
    return bool(trim and trim(0))
