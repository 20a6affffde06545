"""Crash-safe file writes and a cross-process lock.

A write is: temp file in the same folder, fsync, rename over the target, fsync the
folder. A reader therefore sees the old file or the new one, never half of one, even
when the writer is killed with SIGKILL at any point.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from memdesk.core.safepath import open_no_follow

if sys.platform == "win32":  # pragma: no cover - a lock file with O_EXCL instead
    fcntl = None
else:  # POSIX advisory locks
    import fcntl

TEMP_PREFIX = ".memdesk-tmp-"
# errno values that mean "this store cannot be written here", not "memdesk is broken".
NOT_WRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def describe_os_error(exc: OSError) -> str:
    """One line for a failed file operation: what, where, and what to do."""
    where = f"{exc.filename}: " if exc.filename else ""
    what = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC or exc.errno == getattr(errno, "EDQUOT", -1):
        return (
            f"{where}{what}: the disk is full; nothing half-written is kept "
            "(an interrupted change is rolled back on the next run). Free space and retry"
        )
    if exc.errno in NOT_WRITABLE:
        return f"{where}{what}: this store cannot be written here (reading still works)"
    return f"{where}{what}"


def fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> os.stat_result:
    """Replace `path` with `data` atomically. `durable=False` skips the fsyncs for a
    caller that makes many writes durable at once (see `sync_all`).

    Returns the written file's stat, taken before the rename: its inode, size and mtime
    are exactly this write's (a later append changes them), which is how memdesk tells
    its own writes from others' (core/own_writes.py)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        # mkstemp makes the file 0600; the target gets the mode it already has, or what
        # the umask gives a new file (an agent running as another user reads MEMORY.md).
        with contextlib.suppress(OSError):
            os.fchmod(fd, _mode_for(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            written = os.fstat(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if durable:
        fsync_dir(path.parent)
    return written


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process umask, read without changing it where the system allows (changing
    it, even for a moment, races with other threads creating files)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", "rb") as status:
        for line in status:
            if line.startswith(b"Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def sync_all() -> None:
    """Flush every pending write to disk with one call: for a batch of many files this
    costs one sync instead of two fsyncs per file."""
    if hasattr(os, "sync"):
        os.sync()


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def append_line_durably(path: Path, line: str, *, durable: bool = True) -> None:
    """Append one line (O_APPEND, fsync unless `durable=False`). Lines are written
    whole with one write().

    Never through a symbolic link, nor a hard link (`open_own`): the files appended to
    are memdesk's own, and a link there would make the append land under another name."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = open_own(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def open_own(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """`open_no_follow` for a write in place (an append, a truncation) to a file memdesk
    alone writes. A file with another name (a hard link: git never makes one, but a
    local user can link a file of yours outside the working directory into it) first
    gets an inode of its own: its bytes are copied to a new file renamed over it, so
    the other name keeps exactly what it had and the write lands in the copy only."""
    for _ in range(3):
        fd = open_no_follow(path, flags, mode)
        try:
            info = os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise
        if info.st_nlink <= 1 or not stat.S_ISREG(info.st_mode):
            return fd
        os.close(fd)
        reader = open_no_follow(path, os.O_RDONLY)
        try:
            with os.fdopen(reader, "rb", closefd=False) as handle:
                data = handle.read()
        finally:
            os.close(reader)
        atomic_write_bytes(Path(path), data)
    raise OSError(errno.EMLINK, "hard-linked again as it was copied; not written", str(path))


def remove_stale_temp_files(directory: Path) -> int:
    """Temp files left by a killed writer are garbage: the target was never replaced."""
    removed = 0
    if not directory.is_dir():
        return 0
    for child in directory.iterdir():
        if child.name.startswith(TEMP_PREFIX):
            with contextlib.suppress(OSError):
                child.unlink()
                removed += 1
    return removed


def scratch_dir(prefix: str) -> Path:
    """A private temporary folder, removed when the process exits."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path


class FileLock:
    """An exclusive lock shared by every memdesk process on the same store.

    Re-entrant within one process (threads of the TUI and nested store calls), using
    flock across processes so the TUI, the CLI and agents can write at once.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        # Why this process cannot take the lock for writing ("" when it can): a store
        # on a read-only mount, or another user's. Reading then goes on under a shared
        # lock (or none), and the store refuses to write.
        self.read_only_reason = ""

    def acquire(self) -> None:
        self._thread_lock.acquire()
        try:
            if self._depth == 0:
                self._fd = self._lock_fd()
        except BaseException:
            self._thread_lock.release()
            raise
        self._depth += 1

    def _lock_fd(self) -> int | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Not through a link: creating the lock must not create a file elsewhere.
            fd = open_no_follow(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno not in NOT_WRITABLE:
                raise
            self.read_only_reason = f"{exc.filename or self.path}: {exc.strerror}"
            try:  # a shared lock still waits for a writer to finish
                fd = open_no_follow(self.path, os.O_RDONLY)
            except OSError:
                return None
            if fcntl is not None:
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_SH)
            return fd
        self.read_only_reason = ""
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        self._thread_lock.release()

    def hold_in_process(self) -> None:
        """Take the lock from every other thread of this process, never to give it back:
        returns once no other thread is inside a write (one under way finishes first),
        and none can start one. For a process about to end (tui/run.py). Other
        processes are not waited for: nothing is held across processes here."""
        self._thread_lock.acquire()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()
