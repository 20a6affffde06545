"""Returning freed memory to the system runs no program (no `ldconfig` child)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from memdesk.core.search import memory


def test_glibc_is_found_without_running_ldconfig(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []

    def refuse(self: object, args: object, *rest: object, **kw: object) -> None:
        started.append(args)
        raise AssertionError(f"a child process was started: {args!r}")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    memory._glibc.cache_clear()
    memory.keep_freed_memory_small.cache_clear()
    try:
        libc = memory._glibc()
        if sys.platform.startswith("linux") and "glibc" in " ".join(_libc_version()):
            assert libc is not None  # glibc's mallopt and malloc_trim were found
            assert memory.keep_freed_memory_small()
            assert isinstance(memory.release_free_memory(), bool)
    finally:
        memory._glibc.cache_clear()
        memory.keep_freed_memory_small.cache_clear()
    assert started == []


def _libc_version() -> tuple[str, str]:
    import platform

    return platform.libc_ver()
