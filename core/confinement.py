"""What in and around `.memdesk/` would lead memdesk outside the working directory.

Two kinds of finding, both `Problem`s for `memdesk problems` and `memdesk doctor`:

* layout refusals: `.memdesk/` itself, or anything directly in it (`entries/`, `inbox/`,
  `journal.jsonl`, `lock`, `settings.toml`...), is a symbolic link leading outside. The
  store does not open at all then: each of these is read or written on every command.
* file refusals: something the store would skip while it keeps working: a `MEMORY.md`,
  inbox file, conflict file or retired file linked outside, or an id or name in the
  pending batch, the journal, a conflict file or MEMORY.md's state that is not one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memdesk.core.jsonfile import read_json
from memdesk.core.safepath import RETIRED_NAME, is_entry_id, leaves

if TYPE_CHECKING:
    from memdesk.core.entry_files import Problem

META_DIR = ".memdesk"
MEMORY_FILE = "MEMORY.md"
# Folders under .memdesk/ whose files are read one by one (and may be links themselves).
_FILE_FOLDERS = ("inbox", "conflicts", "retired")


def layout_problems(root: Path) -> list[Problem]:
    """`.memdesk/` or one of its direct children linked outside: the store refuses to open."""
    root = Path(root)
    meta = root / META_DIR
    found: list[Problem] = []
    why = leaves(meta, root)
    if why is not None:
        return [_problem(META_DIR, why + "; the store is not opened", "symlink")]
    try:
        children = sorted(os.scandir(meta), key=lambda c: c.name)
    except OSError:
        return []
    for child in children:
        why = leaves(child.path, root)
        if why is not None:
            found.append(
                _problem(f"{META_DIR}/{child.name}", why + "; the store is not opened", "symlink")
            )
    # The search index is read by libraries that follow links; it is derived, so a link
    # out inside it is refused too (deleting the folder rebuilds it).
    index = meta / "index"
    if index.is_dir() and leaves(index, root) is None:
        for path in _walk(index):
            why = leaves(path, root)
            if why is not None:
                found.append(
                    _problem(
                        path.relative_to(root).as_posix(),
                        why + "; the store is not opened (delete .memdesk/index/: it is rebuilt)",
                        "symlink",
                    )
                )
    return found


def file_problems(root: Path, journal_ids: Iterable[tuple[int, object]] = ()) -> list[Problem]:
    """Files and ids the store skips; `journal_ids` are (line, id) of journal records whose
    entry id is not one (`Journal.unsafe_ids`)."""
    root = Path(root)
    meta = root / META_DIR
    found: list[Problem] = []
    why = leaves(root / MEMORY_FILE, root)
    if why is not None:
        found.append(_problem(MEMORY_FILE, why + "; neither ingested nor rewritten", "symlink"))
    for folder in _FILE_FOLDERS:
        base = meta / folder
        if not base.is_dir() or leaves(base, root) is not None:
            continue
        for path in _walk(base):
            why = leaves(path, root)
            if why is not None:
                shown = path.relative_to(root).as_posix()
                found.append(_problem(shown, why + "; not followed", "symlink"))
    found += _pending_problems(meta / "pending-batch.json", root)
    for line, entry_id in journal_ids:
        if entry_id and not is_entry_id(entry_id):
            found.append(_bad_id(f"{META_DIR}/journal.jsonl", line, entry_id, "not undone"))
    found += _conflict_problems(meta / "conflicts", root)
    found += _state_problems(meta / "memory_md.json", root)
    return found


def _walk(base: Path) -> list[Path]:
    """Every path under `base`, links included, without descending into linked folders."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(base):
        for name in [*dirnames, *filenames]:
            out.append(Path(dirpath) / name)
    return sorted(out)


def _read_json(path: Path, root: Path) -> object:
    if not path.is_file() or leaves(path, root) is not None:
        return None
    try:
        return read_json(path)
    except (OSError, ValueError):
        return None


def _pending_problems(path: Path, root: Path) -> list[Problem]:
    data = _read_json(path, root)
    ops = data.get("ops") if isinstance(data, dict) else None
    if not isinstance(ops, list):
        return []
    found: list[Problem] = []
    for number, op in enumerate(ops, 1):
        entry_id = op.get("entry_id") if isinstance(op, dict) else op
        if not is_entry_id(entry_id):
            found.append(
                _bad_id(
                    f"{META_DIR}/pending-batch.json",
                    None,
                    entry_id,
                    f"batch not rolled back (op {number})",
                )
            )
    return found


def _conflict_problems(folder: Path, root: Path) -> list[Problem]:
    found: list[Problem] = []
    if not folder.is_dir() or leaves(folder, root) is not None:
        return found
    for path in sorted(folder.glob("*.json")):
        data = _read_json(path, root)
        if not isinstance(data, dict):
            continue
        shown = path.relative_to(root).as_posix()
        if not is_entry_id(data.get("entry_id")):
            found.append(_bad_id(shown, None, data.get("entry_id"), "conflict not offered"))
        elif data.get("kind") == "conflict-markers" and not is_entry_file_path(data.get("path")):
            found.append(
                _problem(
                    shown,
                    f"path {str(data.get('path'))[:80]!r} is not an entry file; conflict not offered",
                    "unsafe-path",
                )
            )
    return found


def is_entry_file_path(value: object) -> bool:
    """`.memdesk/entries/ID.toml`, as the store writes a conflict-markers path."""
    if not isinstance(value, str):
        return False
    prefix, _, name = value.rpartition("/")
    return prefix == f"{META_DIR}/entries" and name.endswith(".toml") and is_entry_id(name[:-5])


def _state_problems(path: Path, root: Path) -> list[Problem]:
    data = _read_json(path, root)
    if not isinstance(data, dict):
        return []
    names: list[object] = []
    retired = data.get("retired")
    if isinstance(retired, dict):
        names += list(retired)
    drained = data.get("drained")
    if isinstance(drained, list):
        names += drained
    return [
        _problem(
            f"{META_DIR}/memory_md.json",
            f"{str(name)[:80]!r} is not a retired MEMORY.md file name; ignored",
            "unsafe-id",
        )
        for name in names
        if not (isinstance(name, str) and RETIRED_NAME.fullmatch(name))
    ]


def _bad_id(path: str, line: int | None, value: object, consequence: str) -> Problem:
    return _problem(
        path,
        f"{str(value)[:80]!r} is not an entry id (letters, digits, '-', '_', '.'); {consequence}",
        "unsafe-id",
        line,
    )


def _problem(path: str, message: str, kind: str, line: int | None = None) -> Problem:
    from memdesk.core.entry_files import Problem  # the entry model: only for a finding

    return Problem(path, line, message, kind)


__all__ = ["file_problems", "is_entry_file_path", "layout_problems"]
