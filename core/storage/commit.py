"""Committing a batch, and telling whoever listens.

Every mutation is one commit: the planned before/after states are written to a pending
batch file (the WAL), then the entry files (atomically), then the journal records in a
single append, then the pending file is removed. A process killed anywhere in between
leaves a pending file that the next open rolls back (`recovery.py`), so the store is
always either before or after a batch. The caller holds the store's file lock.

After the commit, subscribers hear of the `Change`. A `CommitSubscriber` (the memory
files) may refuse a change before anything is written (`prepare` raises StoreError),
and its work after the commit can fail without undoing it: the failure becomes a
warning line, for the caller to show; a committed change is never reported as failed.
Plain listeners (the search index, the desk) are called last; a broken listener never
breaks a write.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from memdesk.core.atomic import atomic_write_text, fsync_dir, sync_all
from memdesk.core.entry import now
from memdesk.core.entry_files import write_entry_file
from memdesk.core.errors import describe_error
from memdesk.core.journal import Journal, JournalRecord, new_group
from memdesk.core.storage.changes import Change, Op, diff
from memdesk.core.storage.file_cache import EntryFileCache

Listener = Callable[[Change], None]


class CommitSubscriber(Protocol):
    """Work that follows a commit under the store's lock (rewriting memory files)."""

    # What is left undone when `committed` fails, as in "saved, but <this>: why".
    lag_note: str

    def prepare(self, change: Change) -> bool:
        """Before anything is written: does this change concern the subscriber? Raise
        StoreError to refuse the change (say, its work could not be done at all)."""
        ...

    def committed(self, change: Change) -> None:
        """After the commit (only when `prepare` said True)."""
        ...


class Committer:
    """Writes batches of one store and announces them."""

    def __init__(
        self,
        entries_dir: Path,
        pending_path: Path,
        journal: Journal,
        cache: EntryFileCache,
        path_of: Callable[[str], Path],
    ) -> None:
        self.entries_dir = entries_dir
        self.pending_path = pending_path
        self.journal = journal
        self.cache = cache
        self.path_of = path_of
        self.subscribers: list[CommitSubscriber] = []
        self.listeners: list[Listener] = []
        # Things a committed change could not finish (a memory file render), for the
        # caller to show: the change itself is done and is never reported as failed.
        self.warnings: list[str] = []

    def listen(self, callback: Listener) -> Callable[[], None]:
        """Call `callback(change)` after every commit; returns the unsubscribe."""
        self.listeners.append(callback)
        return lambda: self.listeners.remove(callback)

    def attach(self, subscriber: CommitSubscriber) -> Callable[[], None]:
        self.subscribers.append(subscriber)
        return lambda: self.subscribers.remove(subscriber)

    def commit(self, ops: list[Op], actor: str, label: str, target_group: str = "") -> Change:
        group = new_group()
        change = Change(label, [op.entry_id for op in ops], actor, group, ops)
        # Asked before anything is written: a subscriber may still refuse the change.
        following = [s for s in list(self.subscribers) if s.prepare(change)]
        self.write(ops, actor, label, group, target_group)
        for subscriber in following:
            try:
                subscriber.committed(change)
            except Exception as exc:  # the change is committed: say what lags, never fail
                self.warnings.append(f"saved, but {subscriber.lag_note}: {describe_error(exc)}")
        for listener in list(self.listeners):
            with contextlib.suppress(Exception):  # a broken listener never breaks a write
                listener(change)
        return change

    def write(self, ops: list[Op], actor: str, label: str, group: str, target_group: str) -> None:
        """Pending file, entry files, journal, pending file gone: the batch is done."""
        pending = {
            "group": group,
            "ops": [
                {
                    "entry_id": op.entry_id,
                    "before": op.before.to_json() if op.before else None,
                    "after": op.after.to_json() if op.after else None,
                }
                for op in ops
            ],
        }
        atomic_write_text(self.pending_path, json.dumps(pending, ensure_ascii=False, default=str))
        # Few files: fsync each. Many: write them all, then one sync. Either way the files
        # are durable before the journal says the batch happened.
        one_by_one = len(ops) <= 3
        for op in ops:
            path = self.path_of(op.entry_id)
            if op.after is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                write_entry_file(path, op.after, durable=one_by_one)
                self.cache.wrote(path, op.after)  # we know what we wrote: no re-read
        if one_by_one:
            fsync_dir(self.entries_dir)
        else:
            sync_all()
        time = now().isoformat()
        records = [
            JournalRecord(
                op=op.op,
                entry_id=op.entry_id,
                actor=actor,
                time=time,
                group=group,
                version_before=op.before.version if op.before else None,
                version_after=op.after.version if op.after else None,
                changes=op.changes or diff(op.before, op.after),
                before=op.before.to_json() if op.before else None,
                after=op.after.to_json() if op.after else None,
                payload={"label": label} if len(ops) > 1 else {},
                target_group=target_group,
            )
            for op in ops
        ]
        self.journal.append_many(records)
        self.pending_path.unlink(missing_ok=True)
