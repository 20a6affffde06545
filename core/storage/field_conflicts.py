"""Concurrent-edit conflicts: kept for the conflict screen, found in entry files git
left conflict markers in, and turned into the write that resolves them.

A conflict saved under `.memdesk/conflicts/ID.json` holds the field-wise choices of an
edit that raced another (`MergeConflict`); an entry file with git's markers is offered
as a conflict between its two sides. Unscreened text never reaches disk.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memdesk.core.atomic import atomic_write_text
from memdesk.core.confinement import is_entry_file_path
from memdesk.core.entry import EDITABLE_FIELDS, Entry, now
from memdesk.core.entry_files import Problem
from memdesk.core.jsonfile import read_json
from memdesk.core.merge import (
    Conflict,
    FieldConflict,
    MergeConflict,
    merge_entry_dicts,
    redacted_conflict,
)
from memdesk.core.safepath import UnsafePath, check_entry_id, is_entry_id, leaves
from memdesk.core.storage.changes import Op, no_nulls
from memdesk.core.storage.errors import StoreError


def conflict_file(conflicts_dir: Path, entry_id: str) -> Path:
    """Where the conflict of `entry_id` is kept (the id is checked: no '/', no '..')."""
    try:
        checked = check_entry_id(entry_id, "conflict id")
    except UnsafePath as exc:
        raise StoreError(str(exc)) from exc
    return conflicts_dir / f"{checked}.json"


def merged_edit(base: Entry, wanted: Entry, current: Entry) -> Entry:
    """An edit made on `base` while the entry moved on to `current`: 3-way merged.
    Only overlapping changes raise `MergeConflict`, which carries the field-wise choice."""
    result = merge_entry_dicts(base.to_json(), wanted.to_json(), current.to_json())
    if not result.clean:
        conflict = Conflict(
            current.id,
            base.to_json(),
            wanted.to_json(),
            current.to_json(),
            result.conflicts,
            result.merged,
            created=now().isoformat(),
        )
        raise MergeConflict(redacted_conflict(conflict))
    return Entry.from_dict(no_nulls(result.merged))


def save_conflict(conflicts_dir: Path, conflict: Conflict) -> Path:
    """Keep an unresolved conflict for the conflict screen (`.memdesk/conflicts/`)."""
    path = conflict_file(conflicts_dir, conflict.entry_id)
    data = redacted_conflict(conflict).to_json()  # unscreened text never reaches disk
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, default=str))
    return path


def open_conflicts(conflicts_dir: Path, root: Path, problems: Iterable[Problem]) -> list[Conflict]:
    """Saved concurrent-edit conflicts plus entry files with git conflict markers."""
    return saved_conflicts(conflicts_dir, root) + marker_conflicts(problems)


def saved_conflicts(conflicts_dir: Path, root: Path) -> list[Conflict]:
    found: list[Conflict] = []
    if not conflicts_dir.is_dir():
        return found
    for path in sorted(conflicts_dir.glob("*.json")):
        if leaves(path, root) is not None:
            continue  # a link out: not read (listed by `problems`)
        try:
            conflict = Conflict.from_json(read_json(path))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if is_entry_id(conflict.entry_id) and (
            conflict.kind != "conflict-markers" or is_entry_file_path(conflict.path)
        ):
            found.append(conflict)  # others are listed by `problems`
    return found


def marker_conflicts(problems: Iterable[Problem]) -> list[Conflict]:
    """Entry files with git's conflict markers, as conflicts between their sides."""
    found: list[Conflict] = []
    for problem in problems:
        if problem.kind != "conflict-markers":
            continue
        ours, theirs = problem.sides.get("ours"), problem.sides.get("theirs")
        if ours is None or theirs is None:
            continue
        base = problem.sides.get("base")
        result = merge_entry_dicts(
            base.to_json() if base else None, ours.to_json(), theirs.to_json()
        )
        fields = result.conflicts
        if base is None:  # no common base: every differing field is a choice
            fields = [
                fc
                for fc in (
                    field_conflict(name, ours.to_json(), theirs.to_json())
                    for name in EDITABLE_FIELDS
                )
                if fc is not None
            ]
        found.append(
            Conflict(
                ours.id,
                base.to_json() if base else None,
                ours.to_json(),
                theirs.to_json(),
                fields,
                result.merged,
                kind="conflict-markers",
                path=problem.path,
            )
        )
    return found


def field_conflict(name: str, ours: dict[str, Any], theirs: dict[str, Any]) -> FieldConflict | None:
    if ours.get(name) == theirs.get(name):
        return None
    return FieldConflict(name, None, ours.get(name), theirs.get(name))


def resolved_entry(resolved: dict[str, Any]) -> Entry:
    return Entry.from_dict(no_nulls(resolved))


def check_resolvable(conflict: Conflict) -> None:
    """A conflict-markers conflict names an entry file (.memdesk/entries/ID.toml)."""
    if conflict.kind == "conflict-markers" and not is_entry_file_path(conflict.path):
        raise StoreError(
            f"conflict {conflict.entry_id}: {str(conflict.path)[:80]!r} is not an entry "
            "file (.memdesk/entries/ID.toml); refused"
        )


def marker_resolution(conflict: Conflict, entry: Entry) -> Op:
    """The write that replaces a file with conflict markers by `entry` (screened):
    it takes the file's id and a version above both sides'."""
    entry.id = Path(conflict.path).stem
    entry.version = (
        max(int(conflict.ours.get("version") or 1), int(conflict.theirs.get("version") or 1)) + 1
    )
    entry.updated = now()
    before = Entry.from_dict(no_nulls(conflict.theirs))
    return Op("resolve", entry.id, before, entry)
