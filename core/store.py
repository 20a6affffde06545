"""The store: a working directory's memory, one TOML file per entry, journaled.

Every mutation is one commit: the planned before/after states are written to a pending
batch file (the WAL), then the entry files (atomically), then the journal records in a
single append, then the pending file is removed. A process killed anywhere in between
leaves a pending file that the next open rolls back, so the store is always either
before or after a batch. All of it happens under a cross-process file lock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.atomic import (
    FileLock,
    atomic_write_text,
    fsync_dir,
    remove_stale_temp_files,
    scratch_dir,
    sync_all,
)
from memdesk.core.confinement import file_problems, is_entry_file_path, layout_problems
from memdesk.core.entry import (
    EDITABLE_FIELDS,
    Entry,
    EntryError,
    Source,
    new_id,
    now,
    text_hash,
)
from memdesk.core.entry_files import (
    MAX_ENTRY_BYTES,
    Problem,
    entry_to_toml,
    is_within,
    read_entry_file,
    write_entry_file,
)
from memdesk.core.entry_snapshot import SNAPSHOT_NAME, EntrySnapshot
from memdesk.core.journal import Journal, JournalRecord, new_group
from memdesk.core.memory_md import ExternalLine, MemoryFile, MemoryState
from memdesk.core.merge import (
    Conflict,
    FieldConflict,
    MergeConflict,
    merge_entry_dicts,
    redacted_conflict,
)
from memdesk.core.safepath import UnsafePath, check_entry_id, entry_path, is_entry_id, leaves
from memdesk.core.toml_errors import describe_toml_error

META_DIR = ".memdesk"
# `source.origin` of entries that live in a managed memory file (core/memfiles/).
MANAGED_ORIGIN = "memory-file"
# Actors whose actions `undo` reverses by default: a person at the CLI or in the TUI.
# Automatic writers (MEMORY.md ingestion, agent flushes, watchers) are not undone by
# a person's undo, so pressing undo never eats an agent's fact.
HUMAN_ACTORS: frozenset[str] = frozenset({"cli", "tui", "user"})
DEFAULT_SETTINGS = """\
# memdesk settings for this working directory. Every key is optional.

[context]
purpose = "coding"       # coding | chat | a purpose defined under [context.purposes]
budget = 2000            # MEMORY.md and the default preview are limited to this
unit = "tokens"          # tokens | chars
"""


# What is local to one checkout (derived or in-flight) stays out of git.
GITIGNORE = """\
# derived from the entries, or local to this checkout
index/
lock
retired/
conflicts/
pending-batch.json
memory_md.json
ingest_state.json
"""
# The journal is append-only: a union merge keeps both branches' records. Entry files
# merge field by field with `memdesk merge-driver` once git is told about it (see
# `memdesk merge-driver --install`); without that, git's text merge leaves markers that
# memdesk offers as a conflict.
GITATTRIBUTES = """\
journal.jsonl merge=union
entries/*.toml merge=memdesk
"""


class StoreError(Exception):
    """A store operation that cannot be done; the message says why, for a person."""


class NotFound(StoreError):
    pass


class GuardRefused(StoreError):
    """The do-not-write guard refused an entry (a secret, a recalled memory block...)."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("refused by the do-not-write guard: " + "; ".join(reasons))


class TooLarge(GuardRefused):
    """An entry bigger than the store reads back (`MAX_ENTRY_BYTES` on disk)."""

    def __init__(self, size: int) -> None:
        self.reasons = [f"{size:,} bytes on disk; an entry is at most 1 MB"]
        StoreError.__init__(
            self,
            f"the entry would be {size:,} bytes on disk; an entry is at most 1 MB "
            f"({MAX_ENTRY_BYTES:,} bytes): keep the summary short, put the rest in a file",
        )


@dataclass
class Change:
    """What one commit did; sent to subscribers (the TUI, the search index)."""

    op: str
    ids: list[str]
    actor: str
    group: str


@dataclass
class _Op:
    op: str
    entry_id: str
    before: Entry | None
    after: Entry | None
    changes: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class UndoResult:
    group: str
    op: str
    ids: list[str]


def _diff(before: Entry | None, after: Entry | None) -> dict[str, list[Any]]:
    b = before.to_json() if before else {}
    a = after.to_json() if after else {}
    skip = {"version", "updated", "last_access"}
    return {k: [b.get(k), a.get(k)] for k in {*a, *b} if k not in skip and b.get(k) != a.get(k)}


class Store:
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
        self.memory_file = MemoryFile(self.root, self.meta_dir)
        self._files: dict[str, tuple[int, int, Entry | Problem]] = {}
        # What the entry files held at the last save (derived, under index/): a big
        # store opens without parsing every file. See core/entry_snapshot.py.
        self._snapshot = EntrySnapshot(self.meta_dir / "index" / SNAPSHOT_NAME)
        # How many cached entries have each summary hash, and which hash each file was
        # counted under: `known_hashes` (every ingest of MEMORY.md) without hashing all.
        # Files read but not hashed yet wait in `_unhashed`: opening a big store to list
        # or assemble context never hashes every summary.
        self._hash_count: Counter[str] = Counter()
        self._file_hash: dict[str, str] = {}
        self._unhashed: set[str] = set()
        self._listeners: list[Callable[[Change], None]] = []
        self._batch: _Batch | None = None
        self.auto_render = True
        # Things a committed change could not finish (a MEMORY.md render), for the caller
        # to show: the change itself is done and is never reported as failed.
        self.warnings: list[str] = []

    # -- opening -----------------------------------------------------------------
    @classmethod
    def init(cls, root: Path | str) -> Store:
        root = Path(root)
        if not root.exists() and root.parent.is_dir():
            root.mkdir()  # `init` on a new folder makes it, like `git init DIR`
        if not root.is_dir():
            raise StoreError(f"{root}: not a directory")
        _refuse_layout(root)
        meta = root / META_DIR
        for sub in ("entries", "inbox", "index", "conflicts"):
            (meta / sub).mkdir(parents=True, exist_ok=True)
        gitignore = meta / ".gitignore"
        if not gitignore.exists():
            atomic_write_text(gitignore, GITIGNORE)
        gitattributes = meta / ".gitattributes"
        if not gitattributes.exists():
            atomic_write_text(gitattributes, GITATTRIBUTES)
        settings = meta / "settings.toml"
        if not settings.exists():
            atomic_write_text(settings, DEFAULT_SETTINGS)
        (meta / "journal.jsonl").touch()
        store = cls(root)
        store.recover()
        store._adopt_existing_memory_md()
        return store

    def _adopt_existing_memory_md(self) -> None:
        """A MEMORY.md memdesk never wrote is an agent's memory: adopt it as it is
        (emptying it into the review queue would leave the agent with nothing)."""
        path = self.memory_file.path
        if self.memory_file.state_path.exists() or self._memory_md_managed():
            return
        try:
            if not path.is_file() or not path.read_bytes().strip():
                return
        except OSError:
            return
        from memdesk.core.memfiles.adopt import adopt

        adopt(self, path)

    @classmethod
    def open(cls, root: Path | str) -> Store:
        root = Path(root)
        if not root.exists():
            raise StoreError(
                f"{root}: not a memdesk working directory (no such folder); `memdesk init` makes it"
            )
        if not (root / META_DIR).is_dir():
            raise StoreError(
                f"{root}: not a memdesk working directory (no {META_DIR}/); run `memdesk init`"
            )
        _refuse_layout(root)
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
            remove_stale_temp_files(self.root)  # a MEMORY.md rewrite killed midway
            self.journal.cut_torn_tail()
            if not self.pending_path.exists() or self.lock.read_only_reason:
                return  # nothing to roll back, or no way to (a read-only store)
            try:
                pending = _pending_batch(json.loads(self.pending_path.read_text("utf-8")))
            except (OSError, ValueError):
                pending = None
            written = (
                sum(1 for r in self.journal.records() if r.group == pending["group"])
                if pending
                else 0
            )
            if pending and not all(
                isinstance(op, dict) and is_entry_id(op.get("entry_id")) for op in pending["ops"]
            ):
                # Not a batch memdesk wrote: its ids would name files anywhere. Nothing is
                # rolled back; `problems` names the id, and the next commit replaces it.
                return
            # Committed only when every record of the batch reached the journal; a
            # torn append may have left the first few, which go with the rollback.
            if pending and written < len(pending["ops"]):
                if written:
                    self.journal.drop_trailing_group(pending["group"])
                for item in reversed(pending["ops"]):
                    path = self._path(item["entry_id"])
                    before = item.get("before")
                    if before is None:
                        with contextlib.suppress(FileNotFoundError):
                            path.unlink()
                    else:
                        try:
                            restored = Entry.from_dict(_no_nulls(before))
                        except EntryError:
                            continue  # not an entry: the file stays as it is, for `problems`
                        write_entry_file(path, restored)
                fsync_dir(self.entries_dir)
            self.pending_path.unlink(missing_ok=True)
            self._files.clear()
            self._hash_count.clear()
            self._file_hash.clear()
            self._unhashed.clear()

    # -- settings ----------------------------------------------------------------
    @property
    def settings(self) -> dict[str, Any]:
        """Raw settings (validated by the component that reads each section)."""
        try:
            return tomllib.loads(self.settings_path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise StoreError(describe_toml_error(self.settings_path, exc)) from exc

    def settings_problem(self) -> str | None:
        """One line saying why settings.toml cannot be used, or None when it can."""
        try:
            _ = self.settings
        except StoreError as exc:
            return str(exc)
        return None

    def _check_render_settings(self) -> None:
        """Raise StoreError when MEMORY.md could not be rendered with these settings:
        called before a commit that re-renders it, so a broken settings file stops the
        change instead of failing after it was made."""
        from memdesk.core.context.settings import context_settings

        try:
            context_settings(self.settings)  # what the render reads; no tokenizer load
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{self.settings_path}: {exc}") from exc

    # -- reading -----------------------------------------------------------------
    def _path(self, entry_id: str, where: str = "entry id") -> Path:
        """The file of an entry. The id is checked (no '/', no '..'): with `entries/`
        checked at open, the path cannot leave the working directory."""
        try:
            return entry_path(self.entries_dir, entry_id, where)
        except UnsafePath as exc:
            raise StoreError(str(exc)) from exc

    def _scan(self) -> None:
        """Refresh the in-memory view; only files whose inode, mtime or size changed are read.

        Every entry file is stat'ed (another process may have rewritten any of them), so
        the loop is kept lean: at 10k files it is what an ingest of MEMORY.md waits for."""
        seen: set[str] = set()
        files = self._files
        if not files:
            self._snapshot.load()
        try:
            with os.scandir(self.entries_dir) as scan:
                children = list(scan)
        except FileNotFoundError:
            children = []
        for child in children:
            name = child.name
            if not name.endswith(".toml") or name.startswith("."):
                continue
            seen.add(name)
            try:
                st = child.stat(follow_symlinks=True)
            except OSError:
                st = None
            else:
                cached = files.get(name)
                if cached is not None and cached[:2] == _file_key(st):
                    continue  # unchanged: the common case
            self._cached_read(name, st)
        if len(seen) != len(files):
            for name in set(files) - seen:
                self._keep(name, None)
        self._snapshot.settle(seen, writable=not self.lock.read_only_reason)

    def _cached_read(self, name: str, st: os.stat_result | None) -> Entry | Problem:
        """The file's entry (or problem), read again only when the file changed. Takes
        the file name: building a Path per file costs as much as its stat at 10k files."""
        key = _file_key(st) if st is not None else (-1, -1)
        cached = self._files.get(name)
        if cached and cached[:2] == key and st is not None:
            return cached[2]
        item = self._snapshot.recall(name, st) if st is not None else None
        if item is None:
            item = read_entry_file(self.entries_dir / name, self.root)
            self._snapshot.learn(self.entries_dir, name, st, item)
        self._keep(name, (*key, item))
        return item

    def _keep(self, name: str, record: tuple[int, int, Entry | Problem] | None) -> None:
        """Cache what a file holds (None: it is gone), keeping the hash counts right."""
        counted = self._file_hash.pop(name, None)
        if counted is not None:
            left = self._hash_count[counted] - 1
            if left:
                self._hash_count[counted] = left
            else:
                del self._hash_count[counted]
        self._unhashed.discard(name)
        if record is None:
            self._files.pop(name, None)
            return
        self._files[name] = record
        if isinstance(record[2], Entry):
            self._unhashed.add(name)

    def _count_hashes(self) -> None:
        """Count the summary hashes of the files read since the last count."""
        for name in self._unhashed:
            item = self._files[name][2]
            if isinstance(item, Entry):
                digest = item.text_hash
                self._file_hash[name] = digest
                self._hash_count[digest] += 1
        self._unhashed.clear()

    def entries(self) -> list[Entry]:
        return sorted(self._current(), key=lambda e: (e.created, e.id))

    def _current(self) -> list[Entry]:
        """Every entry, in no particular order (callers that only look skip the sort)."""
        self._scan()
        found = [item for _, _, item in self._files.values() if isinstance(item, Entry)]
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
        found = self._entry_problems() + file_problems(self.root, self.journal.unsafe_ids())
        return sorted(found, key=lambda p: (p.path, p.line or 0))

    def entry_file_problems(self) -> list[Problem]:
        """The damaged entry files alone (what `problems` lists first), without reading
        the whole journal for forged ids: the desk's conflict count asks at start-up."""
        return sorted(self._entry_problems(), key=lambda p: (p.path, p.line or 0))

    def _entry_problems(self) -> list[Problem]:
        self._scan()
        return [item for _, _, item in self._files.values() if isinstance(item, Problem)]

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
        path = self._path(entry_id)
        try:
            st = path.stat()
        except OSError:
            return None
        item = self._cached_read(path.name, st)
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
            self._scan()
            self._count_hashes()
            hashes = set(self._hash_count)
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
        self._scan()
        try:
            journal_size = os.stat(self.journal.path).st_size
        except OSError:
            journal_size = 0
        return hash((journal_size, tuple(sorted((k, v[0], v[1]) for k, v in self._files.items()))))

    # -- history -----------------------------------------------------------------
    def history(self, entry_id: str) -> list[JournalRecord]:
        return self.journal.for_entry(entry_id)

    def version_of(self, entry_id: str, version: int) -> Entry | None:
        """Rebuild any old version of an entry from the journal."""
        for record in reversed(self.journal.for_entry(entry_id)):
            for state in (record.after, record.before):
                if state and state.get("version") == version:
                    return Entry.from_dict(_no_nulls(state))
        current = self.find(entry_id)
        if current and current.version == version:
            return current
        return None

    # -- subscribers ---------------------------------------------------------------
    def subscribe(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    # -- committing ---------------------------------------------------------------
    @contextlib.contextmanager
    def batch(self, actor: str = "user", label: str = "batch") -> Iterator[_Batch]:
        """Many operations as one journaled, atomic, undoable group."""
        if self._batch is not None:  # nested: join the outer batch
            yield self._batch
            return
        with self.lock.held():
            self._batch = _Batch(actor, label)
            try:
                yield self._batch
                ops = self._batch.ops
            finally:
                batch, self._batch = self._batch, None
            if ops:
                self._commit(ops, batch.actor, batch.label)

    def _stage(self, ops: list[_Op], actor: str, label: str) -> None:
        if self._batch is not None:
            for op in ops:
                self._batch.ops.append(op)
                self._batch.overlay[op.entry_id] = op.after
            return
        with self.lock.held():
            self._commit(ops, actor, label)

    def _commit(self, ops: list[_Op], actor: str, label: str, target_group: str = "") -> None:
        self.check_writable()
        render = self.auto_render and self._touches_memory_md(ops)
        if render:
            self._check_render_settings()  # before anything is written
        group = new_group()
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
            path = self._path(op.entry_id)
            if op.after is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                write_entry_file(path, op.after, durable=one_by_one)
                with contextlib.suppress(OSError):  # we know what we wrote: no re-read
                    st = path.stat()
                    self._keep(path.name, (*_file_key(st), op.after.copy()))
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
                changes=op.changes or _diff(op.before, op.after),
                before=op.before.to_json() if op.before else None,
                after=op.after.to_json() if op.after else None,
                payload={"label": label} if len(ops) > 1 else {},
                target_group=target_group,
            )
            for op in ops
        ]
        self.journal.append_many(records)
        self.pending_path.unlink(missing_ok=True)
        change = Change(label, [op.entry_id for op in ops], actor, group)
        if render:
            try:
                self.render_memory_md()
            except (OSError, StoreError) as exc:
                # The change is committed: say MEMORY.md lags, never that it failed.
                from memdesk.core.errors import describe_error

                self.warnings.append(
                    f"saved, but MEMORY.md was not rewritten: {describe_error(exc)}"
                )
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a broken listener never breaks a write
                listener(change)

    def _touches_memory_md(self, ops: list[_Op]) -> bool:
        """Could these changes alter MEMORY.md? Only confirmed entries are rendered,
        unless settings let candidates in; skipping the render keeps agents' candidate
        writes cheap."""
        if any(
            (op.before is not None and op.before.status == "confirmed")
            or (op.after is not None and op.after.status == "confirmed")
            for op in ops
        ):
            return True
        # A candidate kept in place in a managed file leaves it when it is rejected.
        if any(op.before is not None and op.before.source.origin == MANAGED_ORIGIN for op in ops):
            return True
        try:
            context = self.settings.get("context", {})
        except StoreError:
            # Unknown whether candidates are shown; MEMORY.md catches up on the next
            # render. An agent's candidate is never refused for a broken settings file.
            return False
        return bool(isinstance(context, dict) and context.get("include_candidates"))

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

    # -- guard -------------------------------------------------------------------
    @staticmethod
    def _screen(entry: Entry, cleared: str = "") -> Entry:
        from memdesk.core.guard import screen

        verdict = screen(entry, cleared=cleared)
        if verdict.entry is None:
            raise GuardRefused(verdict.reasons or ["refused"])
        # Validate and normalise exactly as a read from disk would (trimmed summary,
        # known kinds...), so the journal's after-state is what the file reads back as.
        checked = Entry.from_dict(verdict.entry.to_dict())
        # A file the store would refuse to read must not be written (only big texts
        # can come near the limit: the others skip the extra serialisation).
        rough = len(checked.summary) + sum(map(len, checked.facts)) + len(checked.source.excerpt)
        if rough * 4 > MAX_ENTRY_BYTES:
            size = len(entry_to_toml(checked))
            if size > MAX_ENTRY_BYTES:
                raise TooLarge(size)
        return checked

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
                    entry = self._screen(entry)
                except GuardRefused as exc:
                    if refused is None:
                        raise
                    refused.append((entry, exc))
                    continue
                if entry.id in taken or self.find(entry.id) is not None:
                    entry.id = _fresh_id(lambda i: i in taken or self.find(i) is not None)
                taken.add(entry.id)
                entry.version = 1
                entry.updated = stamp
                prepared.append(entry)
            if prepared:
                self._stage([_Op("add", e.id, None, e) for e in prepared], actor, label)
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
                base = self.version_of(entry_id, base_version)
                if base is None:
                    raise StoreError(f"version {base_version} of {entry_id} is not in the journal")
            wanted = _apply(base, changes)
            if base is not current:
                result = merge_entry_dicts(base.to_json(), wanted.to_json(), current.to_json())
                if not result.clean:
                    conflict = Conflict(
                        entry_id,
                        base.to_json(),
                        wanted.to_json(),
                        current.to_json(),
                        result.conflicts,
                        result.merged,
                        created=now().isoformat(),
                    )
                    raise MergeConflict(redacted_conflict(conflict))
                wanted = Entry.from_dict(_no_nulls(result.merged))
            from memdesk.core.guard import CLEARED_FLAG  # the guard loads on a write only

            after = self._screen(wanted, cleared=current.flags.get(CLEARED_FLAG, ""))
            after.id, after.created = current.id, current.created
            after.version = current.version + 1
            after.updated = now()
            if after.to_json() | {"version": 0, "updated": None} == current.to_json() | {
                "version": 0,
                "updated": None,
            }:
                return current  # nothing changed: no version, no journal line
            self._stage([_Op(op, entry_id, current, after)], actor, op)
            return after

    def _set_status(self, ids: Iterable[str], status: str, op: str, actor: str) -> list[Entry]:
        out: list[Entry] = []
        with self.batch(actor, op):
            for entry_id in ids:
                out.append(self.edit(entry_id, {"status": status}, actor=actor, op=op))
        return out

    def approve(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        return self._set_status(ids, "confirmed", "approve", actor)

    def expire(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        return self._set_status(ids, "expired", "expire", actor)

    def rescope(self, ids: Iterable[str], scope: str, actor: str = "user") -> list[Entry]:
        with self.batch(actor, "rescope"):
            return [self.edit(i, {"scope": scope}, actor=actor, op="rescope") for i in ids]

    def _remove(self, ids: Iterable[str], op: str, actor: str) -> list[Entry]:
        removed: list[Entry] = []
        with self.lock.held():
            for entry_id in ids:
                removed.append(self.get(entry_id))
            self._stage([_Op(op, e.id, e, None) for e in removed], actor, op)
        return removed

    def clear_flag(self, entry_id: str, name: str = "suspicious", actor: str = "user") -> Entry:
        """A person has read a flagged entry and vouches for it: the guard's flag goes,
        and stays gone until the text it was about changes (journaled, undoable)."""
        from memdesk.core.guard import FLAG_NAMES, fingerprint

        if name not in FLAG_NAMES:
            raise StoreError(f"unknown flag {name!r}; the guard sets: {', '.join(FLAG_NAMES)}")
        with self.lock.held():
            current = self.get(entry_id)
            if name not in current.flags:
                raise StoreError(f"entry {entry_id} has no {name!r} flag")
            wanted = current.copy()
            for flag in FLAG_NAMES:
                wanted.flags.pop(flag, None)
            after = self._screen(wanted, cleared=fingerprint(current))
            after.id, after.created = current.id, current.created
            after.version = current.version + 1
            after.updated = now()
            self._stage([_Op("clear-flag", entry_id, current, after)], actor, "clear-flag")
            return after

    def reject(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        """Reject candidates: the file goes; the journal keeps it (undo brings it back)
        and its text stays known, so the same fact appended again is not re-queued."""
        return self._remove(ids, "reject", actor)

    def delete(self, ids: Iterable[str], actor: str = "user") -> list[Entry]:
        return self._remove(ids, "delete", actor)

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
            facts = [*target.facts]
            for fact in [source.summary, *source.facts]:
                if fact != target.summary and fact not in facts:
                    facts.append(fact)
            tags = [*target.tags, *[t for t in source.tags if t not in target.tags]]
            related = [*target.related, *[r for r in source.related if r not in target.related]]
            merged = self.edit(
                target_id,
                {"facts": facts, "tags": tags, "related": related},
                actor=actor,
                op="merge",
            )
            self._remove([source_id], "merge", actor)
        return merged

    # -- undo / redo ---------------------------------------------------------------
    def _undo_state(
        self, actors: frozenset[str] | None
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """Groups that can be undone and redone, oldest first, as (logical group, the
        group whose records last realised it): a redone group is undone by reversing
        the redo, an undone group is redone by reversing the undo."""
        applied: list[tuple[str, str]] = []
        redo_stack: list[tuple[str, str]] = []
        for record in self.journal.records():
            if actors is not None and record.actor not in actors:
                continue
            if record.op in ("undo", "redo"):
                target = record.target_group
                if record.op == "undo" and any(t == target for t, _ in applied):
                    applied = [item for item in applied if item[0] != target]
                    redo_stack.append((target, record.group))
                elif record.op == "redo" and any(t == target for t, _ in redo_stack):
                    redo_stack = [item for item in redo_stack if item[0] != target]
                    applied.append((target, record.group))
            elif record.entry_id and not any(g == record.group for g, _ in applied):
                applied.append((record.group, record.group))
                redo_stack.clear()
        return applied, redo_stack

    def undo(self, actors: frozenset[str] | None = HUMAN_ACTORS, actor: str = "user") -> UndoResult:
        """Reverse the latest not-yet-undone group of `actors` (default: people)."""
        with self.lock.held():
            applied, _ = self._undo_state(actors)
            if not applied:
                raise StoreError("nothing to undo")
            target, realised = applied[-1]
            return self._reverse_group(realised, target, "undo", actor)

    def redo(self, actors: frozenset[str] | None = HUMAN_ACTORS, actor: str = "user") -> UndoResult:
        """Re-apply the latest undone group (until a new change clears the redo stack)."""
        with self.lock.held():
            _, redo_stack = self._undo_state(actors)
            if not redo_stack:
                raise StoreError("nothing to redo")
            target, undo_group = redo_stack[-1]
            return self._reverse_group(undo_group, target, "redo", actor)

    def _reverse_group(self, group: str, target: str, op: str, actor: str) -> UndoResult:
        records = [r for r in self.journal.records() if r.group == group and r.entry_id]
        for record in records:
            check = f"{self.journal.path.name}: a record of group {group}"
            try:
                check_entry_id(record.entry_id, check)
            except UnsafePath as exc:
                raise StoreError(f"cannot {op}: {exc}") from exc
        ops: list[_Op] = []
        state: dict[str, Entry | None] = {}
        for record in reversed(records):
            entry_id = record.entry_id
            current = state[entry_id] if entry_id in state else self.find(entry_id)
            current_version = current.version if current else None
            if _content(current.to_json() if current else None) != _content(record.after):
                raise StoreError(
                    f"cannot {op}: entry {entry_id} was changed since (now version "
                    f"{current_version}); edit it by hand or resolve first"
                )
            restored: Entry | None = None
            if record.before is not None:
                restored = Entry.from_dict(_no_nulls(record.before))
                history = self.journal.for_entry(entry_id)
                restored.version = max(current_version or 0, _max_version(history, entry_id)) + 1
                restored.updated = now()
            ops.append(_Op(op, entry_id, current, restored))
            state[entry_id] = restored
        first = next((r for r in self.journal.records() if r.group == target), None)
        self._commit(ops, actor, op, target_group=target)
        return UndoResult(target, first.op if first else op, [o.entry_id for o in ops])

    # -- conflicts -------------------------------------------------------------------
    def save_conflict(self, conflict: Conflict) -> Path:
        """Keep an unresolved conflict for the conflict screen (`.memdesk/conflicts/`)."""
        path = self.conflicts_dir / f"{self._checked(conflict.entry_id, 'conflict')}.json"
        data = redacted_conflict(conflict).to_json()  # unscreened text never reaches disk
        atomic_write_text(path, json.dumps(data, ensure_ascii=False, default=str))
        return path

    def open_conflicts(self) -> list[Conflict]:
        """Saved concurrent-edit conflicts plus entry files with git conflict markers."""
        found: list[Conflict] = []
        if self.conflicts_dir.is_dir():
            for path in sorted(self.conflicts_dir.glob("*.json")):
                if leaves(path, self.root) is not None:
                    continue  # a link out: not read (listed by `problems`)
                try:
                    conflict = Conflict.from_json(json.loads(path.read_text("utf-8")))
                except (OSError, ValueError, KeyError, TypeError):
                    continue
                if is_entry_id(conflict.entry_id) and (
                    conflict.kind != "conflict-markers" or is_entry_file_path(conflict.path)
                ):
                    found.append(conflict)  # others are listed by `problems`
        for problem in self._entry_problems():
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
                        _field_conflict(name, ours.to_json(), theirs.to_json())
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

    def resolve_conflict(
        self, conflict: Conflict, resolved: dict[str, Any], actor: str = "user"
    ) -> Entry:
        """Write the resolution atomically; the conflict disappears."""
        entry = Entry.from_dict(_no_nulls(resolved))
        entry = self._screen(entry)
        conflict_file = self.conflicts_dir / f"{self._checked(conflict.entry_id, 'conflict')}.json"
        if conflict.kind == "conflict-markers" and not is_entry_file_path(conflict.path):
            raise StoreError(
                f"conflict {conflict.entry_id}: {str(conflict.path)[:80]!r} is not an entry "
                "file (.memdesk/entries/ID.toml); refused"
            )
        with self.lock.held():
            if conflict.kind == "conflict-markers":
                path = self.root / conflict.path
                entry.id = Path(conflict.path).stem
                entry.version = (
                    max(
                        int(conflict.ours.get("version") or 1),
                        int(conflict.theirs.get("version") or 1),
                    )
                    + 1
                )
                entry.updated = now()
                before = Entry.from_dict(_no_nulls(conflict.theirs))
                self._stage([_Op("resolve", entry.id, before, entry)], actor, "resolve")
                if path != self._path(entry.id) and path.exists():
                    path.unlink()
            else:
                current = self.get(conflict.entry_id)
                changes = {k: getattr(entry, k) for k in EDITABLE_FIELDS}
                self.edit(current.id, changes, actor=actor, op="resolve")
            conflict_file.unlink(missing_ok=True)
            return self.get(entry.id)

    @staticmethod
    def _checked(entry_id: str, what: str) -> str:
        try:
            return check_entry_id(entry_id, f"{what} id")
        except UnsafePath as exc:
            raise StoreError(str(exc)) from exc

    # -- MEMORY.md -----------------------------------------------------------------
    def ingest_memory_md(self) -> list[Entry]:
        """Turn lines others added to MEMORY.md (and to managed memory files) into
        candidates (deduplicated)."""
        with self.lock.held():
            self.check_writable()
            added, state = self._ingest_memory_md()
            self.memory_file.save_state(state)  # only now are the lines marked read
            return added + self._sync_managed_files()[0]

    def _memory_md_managed(self) -> bool:
        """Was MEMORY.md adopted? Then it is a managed file, kept by core/memfiles."""
        from memdesk.core.memfiles.manifest import has_managed_files, is_managed

        return has_managed_files(self.meta_dir) and is_managed(self.meta_dir, self.memory_file.path)

    def _sync_managed_files(self) -> tuple[list[Entry], bool]:
        """Candidates from managed memory files, and whether any file was rewritten."""
        from memdesk.core.memfiles.manifest import has_managed_files

        if not has_managed_files(self.meta_dir):
            return [], False
        from memdesk.core.memfiles.sync import sync_all

        previous, self.auto_render = self.auto_render, False
        try:
            results = sync_all(self)
        finally:
            self.auto_render = previous
        return [e for r in results for e in r.added], any(r.written for r in results)

    def _ingest_memory_md(self) -> tuple[list[Entry], MemoryState]:
        if self._memory_md_managed():
            return [], self.memory_file.load_state()
        from memdesk.core.guard import redact_text

        lines, state = self.memory_file.collect_external()
        known = self.known_hashes() if lines else set()
        fresh: list[Entry] = []
        stamp = now().isoformat()
        # Lines carrying a secret are overwritten where they are (MEMORY.md, retired
        # inodes) once read: the redacted candidate, or the refusal, is all that stays.
        secret_lines: list[ExternalLine] = []
        for line in lines:
            if line.multiline_secret:
                secret_lines.append(line)
                continue  # part of a key block: refused whole
            if redact_text(line.text)[1]:
                secret_lines.append(line)
            digest = text_hash(line.text)
            if digest in known:
                continue
            known.add(digest)
            candidate = Entry(
                summary=line.text,
                source=Source(
                    origin="MEMORY.md", timestamp=stamp, locator=line.locator, excerpt=line.text
                ),
            )
            fresh.append(candidate)
        # A secret or a recalled memory block appended to MEMORY.md is not kept.
        refused: list[tuple[Entry, GuardRefused]] = []
        added = (
            self.add_many(fresh, actor="memory-md", label="ingest", refused=refused)
            if fresh
            else []
        )
        if secret_lines:
            self.memory_file.scrub(secret_lines)
        return added, state

    def render_memory_md(self) -> bool:
        """Rewrite MEMORY.md and the managed memory files from the store (after ingesting
        what others appended). True when a file was rewritten."""
        from memdesk.core.memory_render import render_memory_text

        with self.lock.held():
            self.check_writable()
            previous, self.auto_render = self.auto_render, False
            try:
                _, state = self._ingest_memory_md()
            finally:
                self.auto_render = previous
            _, managed_written = self._sync_managed_files()
            if self._memory_md_managed():
                return managed_written
            # Entries of managed files are written in their own files, not here.
            entries = [e for e in self.entries() if e.source.origin != MANAGED_ORIGIN]
            text = render_memory_text(entries, self.settings)
            # One state save: the lines just ingested and the new render together.
            return self.memory_file.write(text, state) or managed_written


@dataclass
class _Batch:
    actor: str
    label: str
    ops: list[_Op] = field(default_factory=list)
    overlay: dict[str, Entry | None] = field(default_factory=dict)


def _apply(entry: Entry, changes: dict[str, Any]) -> Entry:
    data = entry.to_json()
    for key, value in changes.items():
        if isinstance(value, Source):
            value = value.to_dict()
        elif isinstance(value, dt.date):
            value = value.isoformat()
        data[key] = value
    try:
        return Entry.from_dict(_no_nulls(data))
    except EntryError as exc:
        raise StoreError(str(exc)) from exc


def _pending_batch(data: Any) -> dict[str, Any] | None:
    """The pending batch file's content when it has the shape `_commit` writes; a
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


def _file_key(st: os.stat_result) -> tuple[int, int]:
    """Changes whenever the file does: every write is a rename, so a new inode too."""
    return (st.st_ino, st.st_mtime_ns * 1_000_003 + st.st_size)


def _content(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """An entry's content without bookkeeping that every write changes."""
    if data is None:
        return None
    return {k: v for k, v in data.items() if k not in ("version", "updated", "last_access")}


def _no_nulls(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _fresh_id(taken: Callable[[str], bool]) -> str:
    candidate = new_id()
    while taken(candidate):
        candidate = new_id()
    return candidate


def _max_version(records: list[JournalRecord], entry_id: str) -> int:
    versions = [
        v
        for r in records
        if r.entry_id == entry_id
        for v in (r.version_before, r.version_after)
        if v is not None
    ]
    return max(versions, default=0)


def _field_conflict(
    name: str, ours: dict[str, Any], theirs: dict[str, Any]
) -> FieldConflict | None:
    if ours.get(name) == theirs.get(name):
        return None
    return FieldConflict(name, None, ours.get(name), theirs.get(name))


def _refuse_layout(root: Path) -> None:
    """`.memdesk/` or something directly in it linked outside the working directory:
    every command would read or write there, so the store does not open."""
    refused = layout_problems(root)
    if refused:
        more = f" (and {len(refused) - 1} more; see `memdesk problems`)" if len(refused) > 1 else ""
        raise StoreError(f"{root / refused[0].path}: {refused[0].message}{more}")


def is_store(root: Path) -> bool:
    return (Path(root) / META_DIR).is_dir()


__all__ = [
    "Change",
    "Conflict",
    "GuardRefused",
    "MergeConflict",
    "NotFound",
    "Store",
    "StoreError",
    "TooLarge",
    "UndoResult",
    "is_store",
    "is_within",
]
