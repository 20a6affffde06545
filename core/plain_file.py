"""Reading a file the repository controls: a plain file only, and only so much of it.

Every byte of `.memdesk/` and `MEMORY.md` may come from someone else's branch or an
unpacked archive. A FIFO in its place would block a read forever (opening it waits for
a writer), a link to `/dev/zero` would be read until memory runs out. Here the file is
opened without waiting (`O_NONBLOCK`), checked on the open descriptor to be a regular
file, and read up to a limit; anything else is a `NotPlainFile`, an `OSError` whose
message is one line naming the file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
# Settings, MEMORY.md, manifests, state files: a megabyte is far more than any is.
MAX_SMALL = 1 << 20


def _size(limit: int) -> str:
    if limit % (1 << 20) == 0:
        return f"{limit >> 20} MB"
    return f"{limit:,} bytes"


class NotPlainFile(OSError):
    """A path that is not a regular file, or is larger than its reader takes."""

    def __init__(self, path: Path | str, reason: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def read_bytes(path: Path | str, limit: int = MAX_SMALL) -> bytes:
    """The bytes of the regular file at `path` (links followed: the caller confines
    them), at most `limit` of them. `FileNotFoundError` and other `OSError`s pass
    through; a FIFO, device, socket or folder, or a larger file, is `NotPlainFile`."""
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotPlainFile(path, f"is {_kind(st.st_mode)}, not a file; not read")
        if st.st_size > limit:
            raise NotPlainFile(path, _too_large(limit), errno.EFBIG)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while read
                raise NotPlainFile(path, _too_large(limit), errno.EFBIG)
    finally:
        os.close(fd)
    return b"".join(chunks)


def open_plain(path: Path | str) -> BinaryIO:
    """The regular file at `path` opened for binary reading, without ever waiting on a
    FIFO; `NotPlainFile` for anything else. The caller bounds what it reads."""
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotPlainFile(path, f"is {_kind(st.st_mode)}, not a file; not read")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _too_large(limit: int) -> str:
    return f"too large (more than {_size(limit)}); not read"


def read_text(
    path: Path | str, limit: int = MAX_SMALL, encoding: str = "utf-8", errors: str = "strict"
) -> str:
    """`read_bytes` decoded with universal newlines, as `Path.read_text` reads
    (`UnicodeDecodeError` passes through)."""
    text = read_bytes(path, limit).decode(encoding, errors)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


__all__ = ["MAX_SMALL", "NotPlainFile", "open_plain", "read_bytes", "read_text"]
