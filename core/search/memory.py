"""Returning memory freed by the search side to the operating system (glibc only).

glibc raises its trim threshold (up to 64 MB) each time a large block is freed, and keeps
that much freed memory resident. With tantivy committing from its own threads and numpy
temporaries coming and going, a process held 30-80 MB of freed memory after 20 single-
entry updates at 100k entries (bench/search_speed.py). A fixed threshold turns that off.
After a bulk sync, `malloc_trim` hands back what is still free in the middle of the heap.
Elsewhere (macOS, Windows, musl) both are no-ops.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from typing import Any

_M_TRIM_THRESHOLD = -1  # mallopt parameter (malloc.h)
_TRIM_THRESHOLD = 1 << 20  # freed memory above the heap's top beyond this goes back


@functools.cache
def _glibc() -> Any | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        # The symbols the process already has (libc's among them): no library is looked
        # up by name, so no `ldconfig -p` child process (`ctypes.util.find_library`
        # runs one on Linux) and no search path from the environment is involved.
        libc = ctypes.CDLL(None)
        libc.mallopt  # noqa: B018  (musl has no mallopt / malloc_trim)
        libc.malloc_trim  # noqa: B018
        return libc
    except (OSError, AttributeError):
        return None


@functools.cache
def keep_freed_memory_small() -> bool:
    """Fix glibc's trim threshold (once per process). True when applied."""
    libc = _glibc()
    return bool(libc and libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))


def release_free_memory() -> bool:
    """Return free heap pages now (a few ms to ~30 ms on a large heap: after bulk work
    only). True when memory was returned."""
    libc = _glibc()
    return bool(libc and libc.malloc_trim(0))
