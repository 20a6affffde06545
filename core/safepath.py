"""Paths built from data stay inside the working directory.

memdesk's state is shared through git, so every id and name it reads from a file (the
pending batch, journal records, conflict files, MEMORY.md's state, inbox names, ids typed
at the CLI) may come from someone else's branch. Every path built from such data goes
through this module: an id must be an entry id (`ENTRY_ID`), and the path must resolve,
symbolic links included, inside the working directory. Anything else raises
`UnsafePath`, whose message is one line naming the path and why it was refused.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

# What an entry id may be (the entry model takes it from here: this module is on the
# start-up path of every command, the entry model is not).
ENTRY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")

# A hard link of a replaced MEMORY.md inode, named by memdesk (`MEMORY.md.<inode>`).
RETIRED_NAME = re.compile(r"MEMORY\.md\.[0-9]{1,20}")


class UnsafePath(Exception):
    """A path from data that would leave the working directory; the message says which."""

    def __init__(self, path: str, message: str, kind: str = "unsafe-path") -> None:
        self.path = path
        self.message = message
        self.kind = kind  # unsafe-id, symlink, unsafe-path
        super().__init__(f"{path}: {message}")


def is_entry_id(value: object) -> bool:
    return isinstance(value, str) and ENTRY_ID.fullmatch(value) is not None


def check_entry_id(value: object, where: str = "entry id") -> str:
    """`value` if it is an entry id; else UnsafePath naming `where` (file:line)."""
    if is_entry_id(value):
        return str(value)
    raise UnsafePath(
        where,
        f"{str(value)[:80]!r} is not an entry id (letters, digits, '-', '_', '.'); refused",
        "unsafe-id",
    )


def is_inside(path: Path | str, root: Path | str) -> bool:
    """Whether `path`, every symbolic link followed, lies inside `root` (or is it)."""
    real = os.path.realpath(path)
    base = os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def shown(path: Path | str, root: Path | str) -> str:
    """`path` relative to `root` when it is written under it (not resolved), for messages."""
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def leaves(path: Path | str, root: Path | str) -> str | None:
    """Why following `path` would leave `root` (one phrase), or None when it stays in.

    A dangling link counts by where it points: creating through it would write there."""
    if not os.path.lexists(path):
        return None
    if is_inside(path, root):
        return None
    target = os.path.realpath(path)
    if os.path.islink(path):
        return f"is a symbolic link to {target}, outside the working directory"
    return f"leads to {target} (through a symbolic link), outside the working directory"


def entry_path(entries_dir: Path, entry_id: object, where: str = "entry id") -> Path:
    """The file of entry `entry_id`. The id is checked (no '/', no '..', no NUL), so the
    path stays in `entries_dir`, which the store checks once when it opens."""
    return entries_dir / f"{check_entry_id(entry_id, where)}.toml"


def open_no_follow(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """os.open that never goes through a symbolic link at the last step.

    For files memdesk alone writes (journal, lock): a link there was put by someone
    else, and appending to or creating through it would write wherever it points."""
    no_follow = getattr(os, "O_NOFOLLOW", 0)
    if not no_follow and os.path.islink(path):  # pragma: no cover - not on POSIX
        raise UnsafePath(str(path), "is a symbolic link; not followed", "symlink")
    try:
        return os.open(path, flags | no_follow, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(str(path), "is a symbolic link; not followed", "symlink") from exc
        raise


__all__ = [
    "ENTRY_ID",
    "RETIRED_NAME",
    "UnsafePath",
    "check_entry_id",
    "entry_path",
    "is_entry_id",
    "is_inside",
    "leaves",
    "open_no_follow",
    "shown",
]
