"""Reading and writing entry files, tolerating damage.

A damaged file never stops the store from loading: it becomes a `Problem` naming the
path, the line and what is wrong. Files with git conflict markers are parsed side by
side and offered as a conflict.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from memdesk.core import plain_file
from memdesk.core.atomic import atomic_write_bytes
from memdesk.core.entry import Entry, EntryError
from memdesk.core.entry_toml import loads_entry_toml
from memdesk.core.toml_errors import loads_toml

MAX_ENTRY_BYTES = 1_000_000  # an entry is a few hundred bytes; a megabyte is junk

_TOML_LINE = re.compile(r"line (\d+)")


@dataclass
class Problem:
    """Something wrong with a file in the store, for the user to see and fix."""

    path: str
    line: int | None
    message: str
    kind: str = "invalid"  # invalid, binary, too-large, conflict-markers, symlink, unreadable
    sides: dict[str, Entry | None] = field(default_factory=dict)  # for conflict markers
    side_errors: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "kind": self.kind,
            "message": self.message,
            "sides": {k: (v.to_json() if v else None) for k, v in self.sides.items()},
            "side_errors": self.side_errors,
        }


CONFLICT_MARKERS: tuple[str, ...] = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")


def entry_to_toml(entry: Entry) -> bytes:
    text = tomli_w.dumps(entry.to_dict(), multiline_strings=True)
    if any(line.startswith(CONFLICT_MARKERS) for line in text.splitlines()):
        # A line of the text starts like a git conflict marker: as a multi-line string
        # it would start a line of the file and the file would read as conflicted.
        # One-line strings (newlines escaped) keep every marker inside its value.
        text = tomli_w.dumps(entry.to_dict(), multiline_strings=False)
    return text.encode("utf-8")


def write_entry_file(path: Path, entry: Entry, *, durable: bool = True) -> None:
    atomic_write_bytes(path, entry_to_toml(entry), durable=durable)


def parse_entry_text(text: str, path: str) -> Entry:
    """Parse TOML text into an Entry; raises EntryError with a line where known. A file
    in the shape memdesk writes is read by `entry_toml` (what `tomllib` would give,
    faster), any other by `tomllib`."""
    data = loads_entry_toml(text)
    try:
        if data is None:
            data = loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        err = EntryError(f"malformed TOML: {exc}", path=path)
        err.line = int(match.group(1)) if match else None
        raise err from exc
    entry = Entry.from_dict(data, path=path)
    return entry


def _field_line(text: str, field_name: str) -> int | None:
    pattern = re.compile(rf"^\s*{re.escape(field_name.split('.')[-1])}\s*=", re.M)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def split_conflict_markers(text: str) -> tuple[str, str, str | None, int] | None:
    """Split git conflict markers into (ours, theirs, base-or-None, first marker line)."""
    if "<<<<<<< " not in text and "\n<<<<<<<" not in text and not text.startswith("<<<<<<<"):
        return None
    ours: list[str] = []
    theirs: list[str] = []
    base: list[str] = []
    has_base = False
    state = "both"
    first_line = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.startswith("<<<<<<<"):
            state = "ours"
            first_line = first_line or number
            continue
        if line.startswith("|||||||") and state == "ours":
            state, has_base = "base", True
            continue
        if line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
            continue
        if line.startswith(">>>>>>>") and state == "theirs":
            state = "both"
            continue
        if state == "both":
            ours.append(line)
            theirs.append(line)
            base.append(line)
        elif state == "ours":
            ours.append(line)
        elif state == "base":
            base.append(line)
        else:
            theirs.append(line)
    if not first_line:
        return None
    return "".join(ours), "".join(theirs), "".join(base) if has_base else None, first_line


def is_within(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (3.11, 3.12)
        return False


def _loops(path: Path) -> bool:
    """Whether following the link `path` never ends (a link to itself, or a ring)."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


# O_NONBLOCK: a FIFO in place of an entry file is opened without waiting for a writer
# (then refused as not a plain file), not waited on forever.
_NO_FOLLOW = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NONBLOCK", 0)
)


def read_plain_entry_file(
    folder: str, name: str, shown_folder: str
) -> tuple[Entry | Problem, os.stat_result] | None:
    """`read_entry_file` of `folder/name`, for a caller reading a whole folder inside
    the working directory (`shown_folder`: the folder as a Problem names it), and the
    file's stat taken on the open file once it was read (what was read is the file of
    that stat; a write meanwhile moves its times). One open, one fstat and the reads:
    none of the path walks and stats of `read_entry_file`. None for anything but a
    plain file of at most `MAX_ENTRY_BYTES` opened as such (a link, a folder, an
    unreadable file...): `read_entry_file` then reads it and says what it is."""
    if not hasattr(os, "O_NOFOLLOW"):
        return None  # without O_NOFOLLOW a link could be read as a plain file
    try:
        fd = os.open(f"{folder}/{name}", _NO_FOLLOW)
    except OSError:
        return None
    try:
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ENTRY_BYTES:
                return None
        st = os.fstat(fd)
    except OSError:
        return None  # a folder (EISDIR) or another error: reported by the slow path
    finally:
        os.close(fd)
    if not stat.S_ISREG(st.st_mode):
        return None
    raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    shown = f"{shown_folder}/{name}" if shown_folder else name
    stem = name[:-5] if name.endswith(".toml") and len(name) > 5 else Path(name).stem
    return _entry_of_bytes(raw, shown, stem, name), st


def read_entry_file(
    path: Path, root: Path, *, folder_inside: bool | None = None
) -> Entry | Problem:
    """Read one entry file; return the entry or a Problem describing the damage.

    `folder_inside`: whether the file's folder, resolved, is inside `root` (a caller
    reading a whole folder works it out once): a file that is no link is then inside
    exactly when its folder is, without resolving every path (two walks of the path's
    components per file, a tenth of the time a first read of 10k entries took)."""
    link = path.is_symlink()
    if link and _loops(path):
        try:
            looped = str(path.relative_to(root))
        except ValueError:
            looped = str(path)
        return Problem(
            looped, None, "symbolic link that loops back on itself; not followed", "symlink"
        )
    within = folder_inside if folder_inside is not None and not link else is_within(path, root)
    shown = str(path.relative_to(root)) if within else str(path)
    if link and not within:
        return Problem(
            shown, None, "symlink leads outside the working directory; not followed", "symlink"
        )
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        return Problem(shown, None, f"cannot read: {exc.strerror}", "unreadable")
    if size > MAX_ENTRY_BYTES:
        return Problem(
            shown, None, f"file is {size:,} bytes; an entry is at most 1 MB", "too-large"
        )
    try:
        raw = plain_file.read_bytes(path, MAX_ENTRY_BYTES)
    except plain_file.NotPlainFile as exc:
        kind = "too-large" if exc.errno == errno.EFBIG else "unreadable"
        return Problem(shown, None, exc.strerror or "not a plain file", kind)
    except OSError as exc:
        return Problem(shown, None, f"cannot read: {exc.strerror}", "unreadable")
    return _entry_of_bytes(raw, shown, path.stem, path.name)


def _entry_of_bytes(raw: bytes, shown: str, stem: str, name: str) -> Entry | Problem:
    """What an entry file's bytes hold (`shown`: its path as a Problem names it; `stem`,
    its name's stem, must be the entry's id)."""
    if b"\x00" in raw:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        return Problem(shown, line, "binary data (NUL byte), not a TOML entry", "binary")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return Problem(shown, line, "not UTF-8 text (binary junk?)", "binary")
    split = split_conflict_markers(text)
    if split is not None:
        ours_text, theirs_text, base_text, line = split
        problem = Problem(
            shown,
            line,
            "git conflict markers: both sides are offered as a conflict to resolve",
            "conflict-markers",
        )
        for side, side_text in (("ours", ours_text), ("theirs", theirs_text), ("base", base_text)):
            if side_text is None:
                continue
            try:
                problem.sides[side] = parse_entry_text(side_text, shown)
            except EntryError as exc:
                problem.sides[side] = None
                problem.side_errors[side] = str(exc)
        return problem
    try:
        entry = parse_entry_text(text, shown)
    except EntryError as exc:
        error_line = exc.line or (_field_line(text, exc.field) if exc.field else None)
        return Problem(shown, error_line, str(exc).removeprefix(f"{shown}: "), "invalid")
    if stem != entry.id:
        return Problem(
            shown,
            _field_line(text, "id"),
            f"id {entry.id!r} does not match the file name {name!r}",
            "invalid",
        )
    return entry
