"""Telling memdesk's own writes of a memory file from everyone else's.

When memdesk writes a memory file (MEMORY.md, a managed file) it records the file's
fingerprint: inode, size and modification time in nanoseconds, taken from the written
file itself before it was renamed into place. Any later change by someone else (an
append, an editor's save, an atomic replace) changes at least one of the three. So a
file watcher's report of a file whose fingerprint is still the recorded one is memdesk
hearing its own write, and nothing needs reading.
"""

from __future__ import annotations

import os
from pathlib import Path

from memdesk.core import plain_file

# (inode, size, mtime in ns); NO_FINGERPRINT: nothing recorded.
Fingerprint = tuple[int, int, int]
NO_FINGERPRINT: Fingerprint = (0, 0, 0)


def fingerprint(st: os.stat_result) -> Fingerprint:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def on_disk(path: Path) -> Fingerprint | None:
    """The file's fingerprint now (links followed), or None when it cannot be seen."""
    try:
        return fingerprint(os.stat(path))
    except OSError:
        return None


def read_with_fingerprint(path: Path) -> tuple[bytes, Fingerprint]:
    """The file's bytes and the fingerprint of exactly those bytes (NO_FINGERPRINT when
    it grew while being read). Raises OSError like `Path.read_bytes`."""
    with plain_file.open_plain(path) as handle:
        data = handle.read()
        st = os.fstat(handle.fileno())
    return data, fingerprint(st) if st.st_size == len(data) else NO_FINGERPRINT


def as_fingerprint(value: object) -> Fingerprint:
    """A fingerprint read back from a state file (anything else: none recorded)."""
    if (
        isinstance(value, list | tuple)
        and len(value) == 3
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return (int(value[0]), int(value[1]), int(value[2]))
    return NO_FINGERPRINT


def is_own_write(path: Path, recorded: Fingerprint) -> bool:
    """Is the file still exactly as memdesk last wrote (or read) it?"""
    return recorded != NO_FINGERPRINT and on_disk(path) == recorded
