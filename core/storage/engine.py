"""The store: a working directory's memory, one TOML file per entry, journaled.

`EntryStore` reads entries (through the file cache) and changes them; every change is
one commit (`commit.py`) under a cross-process file lock, so the store is always
either before or after a batch, and `recover` (on every open) rolls back a batch a
crash interrupted. What follows a commit (memory files, the search index, the desk)
subscribes to it: the store knows nothing above it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Self

from memdesk.core.atomic import FileLock, remove_stale_temp_files, scratch_dir
from memdesk.core.confinement import file_problems
from memdesk.core.entry import EDITABLE_FIELDS, Entry, now, text_hash
from memdesk.core.entry_files import Problem
from memdesk.core.journal import Journal, JournalRecord, new_group
from memdesk.core.merge import Conflict
from memdesk.core.safepath import UnsafePath, entry_path, is_entry_id
from memdesk.core.storage import field_conflicts, history, screening
from memdesk.core.storage.changes import Batch, Change, Op, applied, folded, fresh_id
from memdesk.core.storage.commit import CommitSubscriber, Committer
from memdesk.core.storage.entry_snapshot import SNAPSHOT_NAME, EntrySnapshot
from memdesk.core.storage.errors import GuardRefused, NotFound, StoreError
from memdesk.core.storage.file_cache import EntryFileCache
from memdesk.core.storage.history import HUMAN_ACTORS, UndoResult
from memdesk.core.storage.layout import META_DIR, check_openable, lay_out, read_settings
from memdesk.core.storage.recovery import roll_back_pending
from memdesk.core.storage.screening import check_flag_name, cleared_of, screened, unflagged


class EntryStore:
    """A memdesk working directory (`root`) and its `.memdesk/` folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.meta_dir = self.root / META_DIR
        self.entries_dir = self.meta_dir / "entries"
        self.inbox_dir = self.meta_dir / "inbox"
        self.index_dir = self.meta_dir / "index"
        self.conflicts_dir = self.meta_dir / "conflicts"
        self.settings_path = self.meta_dir / "settings.toml"
        self.pending_path = self.meta_dir / "pending-batch.json"
        self.lock = FileLock(self.meta_dir / "lock")
        self.journal = Journal(self.meta_dir / "journal.jsonl")
        # A big store opens from a derived snapshot of its entry files (see
        # entry_snapshot.py); a store this process cannot write never rewrites it.
        snapshot = EntrySnapshot(self.meta_dir / "index" / SNAPSHOT_NAME)
        self.files = EntryFileCache(
            self.entries_dir, self.root, snapshot, lambda: not self.lock.read_only_reason
        )
        self.committer = Committer(
            self.entries_dir, self.pending_path, self.journal, self.files, self.path_of
        )
        self._batch: Batch | None = None

    # -- opening -----------------------------------------------------------------
    @classmethod
    def init(cls, root: Path | str) -> Self:
        root = Path(root)
        lay_out(root)
        store = cls(root)
        store.recover()
        return store

    @classmethod
    def open(cls, root: Path | str) -> Self:
        root = Path(root)
        check_openable(root)
        store = cls(root)
        with contextlib.suppress(OSError):  # a read-only store is still read
            store.entries_dir.mkdir(parents=True, exist_ok=True)
        store.recover()
        if store.lock.read_only_reason:
            # The search index is derived and local: on a store this process cannot
            # write, build it in a scratch folder removed at exit.
            store.index_dir = scratch_dir("memdesk-index-")
        return store

    def recover(self) -> None:
        """Roll back a batch interrupted by a crash; drop temp files of killed writers."""
        with self.lock.held():
            remove_stale_temp_files(self.entries_dir)
            remove_stale_temp_files(self.meta_dir)
            remove_stale_temp_files(self.conflicts_dir)
            remove_stale_temp_files(self.root)  # a memory file rewrite killed midway
            self.journal.cut_torn_tail()
            if self.lock.read_only_reason:
                return  # no way to roll back a read-only store
            if roll_back_pending(self.pending_path, self.entries_dir, self.journal, self.path_of):
                self.files.clear()

    # -- settings ----------------------------------------------------------------
    @property
    def settings(self) -> dict[str, Any]:
        """Raw settings (validated by the component that reads each section)."""
        return read_settings(self.settings_path)

    def settings_problem(self) -> str | None:
        """One line saying why settings.toml cannot be used, or None when it can."""
        try:
            _ = self.settings
        except StoreError as exc:
            return str(exc)
        return None

    # -- reading -----------------------------------------------------------------
    def path_of(self, entry_id: str, where: str = "entry id") -> Path:
        """The file of an entry. The id is checked (no '/', no '..'): with `entries/`
        checked at open, the path cannot leave the working directory."""
        try:
            return entry_path(self.entries_dir, entry_id, where)
        except UnsafePath as exc:
            raise StoreError(str(exc)) from exc

    def entries(self) -> list[Entry]:
        return sorted(self._current(), key=lambda e: (e.created, e.id))

    def _current(self) -> list[Entry]:
        """Every entry, in no particular order (callers that only look skip the sort)."""
        self.files.scan()
        found = self.files.entries()
        if self._batch:
            by_id = {e.id: e for e in found}
            for entry_id, entry in self._batch.overlay.items():
                if entry is None:
                    by_id.pop(entry_id, None)
                else:
                    by_id[entry_id] = entry
            found = list(by_id.values())
        return found

    @property
    def problems(self) -> list[Problem]:
        """Damaged entry files, and what the store refused to follow (links leading
        outside the working directory, ids in its own files that are not ids)."""
        found = self.entry_problems() + file_problems(self.root, self.journal.unsafe_ids())
        return sorted(found, key=lambda p: (p.path, p.line or 0))

    def entry_problems(self) -> list[Problem]:
        """Entry files that cannot be read as entries (damaged, conflict markers)."""
        self.files.scan()
        return self.files.problems()

    def entry_file_problems(self) -> list[Problem]:
        """The damaged entry files alone, sorted (what `problems` lists first), without
        reading the journal for forged ids: the desk's conflict count asks at start-up."""
        return sorted(self.entry_problems(), key=lambda p: (p.path, p.line or 0))

    def get(self, entry_id: str) -> Entry:
        entry = self.find(entry_id)
        if entry is None:
            raise NotFound(f"no entry with id {entry_id!r}")
        return entry

    def find(self, entry_id: str) -> Entry | None:
        if not is_entry_id(entry_id):
            return None  # not an id: names no entry (and no file)
        if self._batch and entry_id in self._batch.overlay:
            return self._batch.overlay[entry_id]
        path = self.path_of(entry_id)
        try:
            st = path.stat()
        except OSError:
            return None
        item = self.files.read(path.name, st)
        return item if isinstance(item, Entry) else None

    def resolve_id(self, prefix: str) -> str:
        """Full id from a unique prefix (people type short ids)."""
        if self.find(prefix):
            return prefix
        matches = [e.id for e in self.entries() if e.id.startswith(prefix)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise NotFound(f"no entry with id {prefix!r}")
        raise StoreError(f"id prefix {prefix!r} is ambiguous: {', '.join(matches[:5])}")

    def known_hashes(self) -> set[str]:
        """Hashes of every summary the store holds or has rejected/deleted/merged away."""
        if self._batch:
            hashes = {e.text_hash for e in self._current()}
        else:
            self.files.scan()
            hashes = self.files.hashes()
        # "merge": a candidate folded into another entry must not come back from
        # MEMORY.md as a new candidate on the next render.
        for record in self.journal.records_of(("reject", "delete", "merge")):
            if record.before:
                hashes.add(text_hash(record.before.get("summary", "")))
        return hashes

    def due_to_expire(self, today: dt.date | None = None) -> list[Entry]:
        return [
            e
            for e in self.entries()
            if e.status in ("candidate", "confirmed") and e.is_past_valid_until(today)
        ]

    @property
    def version(self) -> int:
        """Changes with every commit (any process): a cheap cache key for derived views."""
        self.files.scan()
        try:
            journal_size = os.stat(self.journal.path).st_size
        except OSError:
            journal_size = 0
        return hash((journal_size, self.files.stat_keys()))

    # -- history -----------------------------------------------------------------
    def history(self, entry_id: str) -> list[JournalRecord]:
        return self.journal.for_entry(entry_id)

    def version_of(self, entry_id: str, version: int) -> Entry | None:
        """Rebuild any old version of an entry from the journal."""
        return history.version_of(self.journal, entry_id, version, self.find)

    # -- subscribers ---------------------------------------------------------------
    def subscribe(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        """Call `callback(change)` after every commit; returns the unsubscribe."""
        return self.committer.listen(callback)

    def attach(self, subscriber: CommitSubscriber) -> Callable[[], None]:
        """Work that follows each commit under the lock (see `CommitSubscriber`)."""
        return self.committer.attach(subscriber)

    @property
    def warnings(self) -> list[str]:
        """What committed changes could not finish (e.g. a memory file lags)."""
        return self.committer.warnings

    # -- committing ---------------------------------------------------------------
    @contextlib.contextmanager
    def batch(self, actor: str = "user", label: str = "batch") -> Iterator[Batch]:
        """Many operations as one journaled, atomic, undoable group."""
        if self._batch is not None:  # nested: join the outer batch
            yield self._batch
            return
        with self.lock.held():
            self._batch = Batch(actor, label)
            try:
                yield self._batch
                ops = self._batch.ops
            finally:
                batch, self._batch = self._batch, None
            if ops:
                self.commit(ops, batch.actor, batch.label)

    def stage(self, ops: list[Op], actor: str, label: str) -> None:
        """Commit `ops` now, or with the batch that is open."""
        if self._batch is not None:
            for op in ops:
                self._batch.ops.append(op)
                self._batch.overlay[op.entry_id] = op.after
            return
        with self.lock.held():
            self.commit(ops, actor, label)

    def commit(self, ops: list[Op], actor: str, label: str, target_group: str = "") -> Change:
        """Write `ops` as one group (call under the lock; `stage` is what operations use)."""
        self.check_writable()
        change = self.committer.commit(ops, actor, label, target_group)
        screening.note_written(self.index_dir, (op.after for op in ops if op.after is not None))
        return change

    def check_writable(self) -> None:
        """Raise StoreError when this process cannot write the store (read-only mount,
        another user's files); call under the lock. Reading works all the same."""
        if self.lock.read_only_reason:
            raise StoreError(
                f"cannot write to this store ({self.lock.read_only_reason}); "
                "reading verbs still work"
            )

    def record_event(self, op: str, payload: dict[str, Any], actor: str = "agent") -> None:
        """Journal an event that changes no entry (e.g. memory_flushed)."""
        with self.lock.held():
            self.check_writable()
            self.journal.append(
                JournalRecord(op=op, actor=actor, group=new_group(), payload=payload)
            )

    # -- operations --------------------------------------------------------------
    def add(self, entry: Entry, actor: str = "user") -> Entry:
        return self.add_many([entry], actor, label="add")[0]

    def add_many(
        self,
        entries: Iterable[Entry],
        actor: str = "user",
        label: str = "add",
        refused: list[tuple[Entry, GuardRefused]] | None = None,
    ) -> list[Entry]:
        """Add entries (guard-screened); an id already taken gets a fresh id.

        The guard's refusal raises, unless `refused` is given: then refused entries are
        collected there and the others are still added."""
        stamp = now()
        prepared: list[Entry] = []
        with self.lock.held():
            taken: set[str] = set()
            for entry in entries:
                try:
                    entry = screened(entry)
                except GuardRefused as exc:
                    if refused is None:
                        raise
                    refused.append((entry, exc))
                    continue
                if entry.id in taken or self.find(entry.id) is not None:
                    entry.id = fresh_id(lambda i: i in taken or self.find(i) is not None)
                taken.add(entry.id)
                entry.version = 1
                entry.updated = stamp
                prepared.append(entry)
            if prepared:
                self.stage([Op("add", e.id, None, e) for e in prepared], actor, label)
        return prepared

    def edit(
        self,
        entry_id: str,
        changes: dict[str, Any],
        *,
        base_version: int | None = None,
        actor: str = "user",
        op: str = "edit",
    ) -> Entry:
        """Change fields of an entry.

        `base_version` is the version the caller read. If the entry moved on since, the
        change is 3-way merged with that version (from the journal) as the base; only
        overlapping changes raise `MergeConflict`, which carries the field-wise conflict.
        """
        unknown = set(changes) - set(EDITABLE_FIELDS)
        if unknown:
            raise StoreError(f"cannot edit field(s) {sorted(unknown)}")
        with self.lock.held():
            current = self.get(entry_id)
            base = current
            if base_version is not None and base_version != current.version:
                older = self.version_of(entry_id, base_version)
                if older is None:
                    raise StoreError(f"version {base_version} of {entry_id} is not in the journal")
                base = older
            wanted = applied(base, changes)
            if base is not current:
                wanted = field_conflicts.merged_edit(base, wanted, current)
            after = screened(wanted, cleared=cleared_of(current))
            after.id, after.created = current.id, current.created
            after.version = current.version + 1
            after.updated = now()
            unstamped = {"version": 0, "updated": None}
            if after.to_json() | unstamped == current.to_json() | unstamped:
                return current  # nothing changed: no version, no journal line
            self.stage([Op(op, entry_id, current, after)], actor, op)
            return after

    def set_status(self, ids: Iterable[str], status: str, op: str, actor: str) -> list[Entry]:
        """Move entries to `status`, journaled as `op`, in one group."""
        out: list[Entry] = []
        with self.batch(actor, op):
            for entry_id in ids:
                out.append(self.edit(entry_id, {"status": status}, actor=actor, op=op))
        return out

    def approve(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        return self.set_status(ids, "confirmed", "approve", actor)

    def expire(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        return self.set_status(ids, "expired", "expire", actor)

    def rescope(self, ids: Iterable[str], scope: str, actor: str = "user") -> list[Entry]:
        with self.batch(actor, "rescope"):
            return [self.edit(i, {"scope": scope}, actor=actor, op="rescope") for i in ids]

    def remove(self, ids: Iterable[str], op: str, actor: str) -> list[Entry]:
        """Remove entries, journaled as `op` (reject, delete, merge): undo brings them back."""
        removed: list[Entry] = []
        with self.lock.held():
            for entry_id in ids:
                removed.append(self.get(entry_id))
            self.stage([Op(op, e.id, e, None) for e in removed], actor, op)
        return removed

    def clear_flag(self, entry_id: str, name: str = "suspicious", actor: str = "user") -> Entry:
        """A person has read a flagged entry and vouches for it: the guard's flag goes,
        and stays gone until the text it was about changes (journaled, undoable)."""
        check_flag_name(name)
        with self.lock.held():
            current = self.get(entry_id)
            after = unflagged(current, name)
            after.id, after.created = current.id, current.created
            after.version = current.version + 1
            after.updated = now()
            self.stage([Op("clear-flag", entry_id, current, after)], actor, "clear-flag")
            return after

    def reject(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        """Reject candidates: the file goes; the journal keeps it (undo brings it back)
        and its text stays known, so the same fact appended again is not re-queued."""
        return self.remove(ids, "reject", actor)

    def delete(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        return self.remove(ids, "delete", actor)

    def supersede(self, old_id: str, new_id: str, actor: str = "user") -> tuple[Entry, Entry]:
        """`new` replaces `old`: old becomes superseded (linked both ways); new is confirmed."""
        if old_id == new_id:
            raise StoreError("an entry cannot supersede itself")
        with self.batch(actor, "supersede"):
            new = self.get(new_id)
            old_after = self.edit(
                old_id,
                {"status": "superseded", "superseded_by": new_id},
                actor=actor,
                op="supersede",
            )
            supersedes = [*new.supersedes, *([old_id] if old_id not in new.supersedes else [])]
            new_changes: dict[str, Any] = {"supersedes": supersedes}
            if new.status in ("candidate", "expired"):
                new_changes["status"] = "confirmed"
            new_after = self.edit(new_id, new_changes, actor=actor, op="supersede")
        return old_after, new_after

    def merge_into(self, source_id: str, target_id: str, actor: str = "user") -> Entry:
        """Fold a candidate into an existing entry: its facts, tags and links join the
        target; the candidate is removed (journaled, undoable)."""
        with self.batch(actor, "merge"):
            source, target = self.get(source_id), self.get(target_id)
            merged = self.edit(target_id, folded(source, target), actor=actor, op="merge")
            self.remove([source_id], "merge", actor)
        return merged

    # -- undo / redo ---------------------------------------------------------------
    def undo_state(
        self, actors: frozenset[str] | None = HUMAN_ACTORS
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(undoable, redoable) groups of `actors`, oldest first (see `history`)."""
        return history.undo_state(self.journal.records(), actors)

    def undo(self, actors: frozenset[str] | None = HUMAN_ACTORS, actor: str = "user") -> UndoResult:
        """Reverse the latest not-yet-undone group of `actors` (default: people)."""
        with self.lock.held():
            applied, _ = self.undo_state(actors)
            if not applied:
                raise StoreError("nothing to undo")
            target, realised = applied[-1]
            return self._reverse_group(realised, target, "undo", actor)

    def redo(self, actors: frozenset[str] | None = HUMAN_ACTORS, actor: str = "user") -> UndoResult:
        """Re-apply the latest undone group (until a new change clears the redo stack)."""
        with self.lock.held():
            _, redo_stack = self.undo_state(actors)
            if not redo_stack:
                raise StoreError("nothing to redo")
            target, undo_group = redo_stack[-1]
            return self._reverse_group(undo_group, target, "redo", actor)

    def _reverse_group(self, group: str, target: str, op: str, actor: str) -> UndoResult:
        ops = history.reversal(self.journal, group, op, self.find)
        did = history.first_op(self.journal, target, op)
        self.commit(ops, actor, op, target_group=target)
        return UndoResult(target, did, [o.entry_id for o in ops])

    # -- conflicts -------------------------------------------------------------------
    def save_conflict(self, conflict: Conflict) -> Path:
        """Keep an unresolved conflict for the conflict screen (`.memdesk/conflicts/`)."""
        return field_conflicts.save_conflict(self.conflicts_dir, conflict)

    def open_conflicts(self) -> list[Conflict]:
        """Saved concurrent-edit conflicts plus entry files with git conflict markers."""
        return field_conflicts.open_conflicts(self.conflicts_dir, self.root, self.entry_problems())

    def resolve_conflict(
        self, conflict: Conflict, resolved: dict[str, Any], actor: str = "user"
    ) -> Entry:
        """Write the resolution atomically; the conflict disappears."""
        entry = screened(field_conflicts.resolved_entry(resolved))
        conflict_file = field_conflicts.conflict_file(self.conflicts_dir, conflict.entry_id)
        field_conflicts.check_resolvable(conflict)
        with self.lock.held():
            if conflict.kind == "conflict-markers":
                path = self.root / conflict.path
                self.stage([field_conflicts.marker_resolution(conflict, entry)], actor, "resolve")
                if path != self.path_of(entry.id) and path.exists():
                    path.unlink()
            else:
                current = self.get(conflict.entry_id)
                changes = {k: getattr(entry, k) for k in EDITABLE_FIELDS}
                self.edit(current.id, changes, actor=actor, op="resolve")
            conflict_file.unlink(missing_ok=True)
            return self.get(entry.id)
