"""Make writes under a folder fail as a read-only mount or a full disk would.

The tests run as root, where `chmod a-w` stops nothing. Two ways instead:

* `failing_writes(root, errno)`: an audit hook (PEP 578) that raises OSError for every
  write-like file operation Python makes under `root` (open for writing, mkdir of a new
  folder, rename, unlink, link, truncate, chmod). Works in this process and, through
  `cli_with_failing_writes`, in a real `memdesk` process. Native code (the search
  index's Rust library) is not seen by the hook.
* `cli_on_read_only_mount(root, ...)`: a real read-only bind mount in a private mount
  namespace (`unshare -m`, needs root); `read_only_mount_works()` says whether it can.
"""

from __future__ import annotations

import contextlib
import errno as errno_codes
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

HOOK = r"""
import errno, os, sys
_ROOT = os.path.realpath(os.environ["MEMDESK_TEST_FAIL_UNDER"])
_ERR = int(os.environ["MEMDESK_TEST_FAIL_ERRNO"])
_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_active = [True]

def _under(path):
    if isinstance(path, int) or path is None:
        return False
    try:
        full = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return full == _ROOT or full.startswith(_ROOT + os.sep)

def _fail(path):
    raise OSError(_ERR, os.strerror(_ERR), os.fsdecode(path))

def _hook(event, args):
    if not _active[0]:
        return
    if event == "open":
        path, mode, flags = args
        writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(
            (flags or 0) & _WRITE
        )
        if writing and _under(path):
            if _ERR == errno.ENOSPC and not (flags or 0) & os.O_CREAT and not isinstance(mode, str):
                return  # a full disk still opens an existing file; the write fails
            _fail(path)
    elif event == "os.mkdir":
        if _under(args[0]) and not os.path.exists(args[0]):
            _fail(args[0])
    elif event in ("os.rename", "os.link", "os.symlink"):
        if _under(args[0]) or _under(args[1]):
            _fail(args[1])
    elif event in ("os.remove", "os.rmdir", "os.truncate", "os.chmod", "os.utime"):
        if _under(args[0]):
            _fail(args[0])

sys.addaudithook(_hook)
"""

_installed: dict[str, object] = {}


@contextlib.contextmanager
def failing_writes(root: Path, code: int = errno_codes.EROFS) -> Iterator[None]:
    """Inside the block, writes under `root` in this process fail with `code`."""
    if "active" not in _installed:
        # An audit hook cannot be removed: install one that the flag switches off.
        os.environ["MEMDESK_TEST_FAIL_UNDER"] = str(root)
        os.environ["MEMDESK_TEST_FAIL_ERRNO"] = str(code)
        namespace: dict[str, object] = {}
        exec(HOOK, namespace)
        _installed["active"] = namespace["_active"]
        _installed["namespace"] = namespace
    namespace = _installed["namespace"]  # type: ignore[assignment]
    namespace["_ROOT"] = os.path.realpath(root)  # type: ignore[index]
    namespace["_ERR"] = code  # type: ignore[index]
    active = _installed["active"]
    active[0] = True  # type: ignore[index]
    try:
        yield
    finally:
        active[0] = False  # type: ignore[index]


def cli_with_failing_writes(
    root: Path, code: int, *args: str, stdin: str | None = None, fail_under: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`memdesk --dir ROOT ARGS` in a real process whose writes under ROOT (or under
    `fail_under`) fail."""
    program = HOOK + "\nfrom memdesk.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "MEMDESK_TEST_FAIL_UNDER": str(fail_under or root),
        "MEMDESK_TEST_FAIL_ERRNO": str(code),
    }
    return subprocess.run(
        [sys.executable, "-c", program, "--dir", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


_MOUNT = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'


def read_only_mount_works(scratch: Path) -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    source, target = scratch / "probe-src", scratch / "probe-dst"
    source.mkdir(exist_ok=True)
    target.mkdir(exist_ok=True)
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            _MOUNT,
            "sh",
            str(source),
            str(target),
            "touch",
            str(target / "x"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return probe.returncode != 0 and "Read-only" in probe.stderr


def cli_on_read_only_mount(
    root: Path, mount_point: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """`memdesk --dir MOUNT ARGS` with ROOT bind-mounted read-only at MOUNT."""
    mount_point.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            _MOUNT,
            "sh",
            str(root),
            str(mount_point),
            sys.executable,
            "-m",
            "memdesk.cli",
            "--dir",
            str(mount_point),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
