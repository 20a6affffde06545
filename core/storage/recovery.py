"""Rolling back a batch a crash interrupted.

A pending batch file (`commit.py` writes it first) whose records did not all reach the
journal means the process died mid-commit: its entry files are put back as they were
before, and the records it did append are cut, so the store is as before the batch.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memdesk.core.atomic import fsync_dir
from memdesk.core.entry import Entry, EntryError
from memdesk.core.entry_files import write_entry_file
from memdesk.core.journal import Journal
from memdesk.core.jsonfile import read_json
from memdesk.core.safepath import is_entry_id
from memdesk.core.storage.changes import no_nulls


def roll_back_pending(
    pending_path: Path, entries_dir: Path, journal: Journal, path_of: Callable[[str], Path]
) -> bool:
    """Undo the half-done batch of `pending_path`, if any; call under the store lock on
    a store this process can write. True when a pending file was dealt with (entry
    files may have changed)."""
    if not pending_path.exists():
        return False
    try:
        pending = pending_batch(read_json(pending_path))
    except (OSError, ValueError):
        pending = None
    written = sum(1 for r in journal.records() if r.group == pending["group"]) if pending else 0
    if pending and not all(
        isinstance(op, dict) and is_entry_id(op.get("entry_id")) for op in pending["ops"]
    ):
        # Not a batch memdesk wrote: its ids would name files anywhere. Nothing is
        # rolled back; `problems` names the id, and the next commit replaces it.
        return False
    # Committed only when every record of the batch reached the journal; a
    # torn append may have left the first few, which go with the rollback.
    if pending and written < len(pending["ops"]):
        if written:
            journal.drop_trailing_group(pending["group"])
        for item in reversed(pending["ops"]):
            path = path_of(item["entry_id"])
            before = item.get("before")
            if before is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                try:
                    restored = Entry.from_dict(no_nulls(before))
                except EntryError:
                    continue  # not an entry: the file stays as it is, for `problems`
                write_entry_file(path, restored)
        fsync_dir(entries_dir)
    pending_path.unlink(missing_ok=True)
    return True


def pending_batch(data: Any) -> dict[str, Any] | None:
    """The pending batch file's content when it has the shape a commit writes; a
    damaged one is dropped (its entries' files were not written by it, or fully)."""
    if not isinstance(data, dict) or not isinstance(data.get("group"), str):
        return None
    ops = data.get("ops")
    if not isinstance(ops, list) or not all(
        isinstance(op, dict)
        and isinstance(op.get("entry_id"), str)
        and isinstance(op.get("before"), dict | None)
        for op in ops
    ):
        return None
    return data
