"""The append-only journal: `.memdesk/journal.jsonl`, one JSON record per line.

Each record keeps the whole entry before and after the operation, so any operation can
be undone and any old version rebuilt (and used as the base of a 3-way merge). Records
of one user action share a `group` id; undo and redo work on groups.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core import plain_file
from memdesk.core.atomic import NOT_WRITABLE, append_line_durably, open_own
from memdesk.core.entry import now
from memdesk.core.jsonfile import loads
from memdesk.core.safepath import is_entry_id


@dataclass
class JournalRecord:
    op: str  # add, edit, approve, reject, supersede, expire, rescope, delete, undo, redo, ...
    entry_id: str = ""
    actor: str = ""
    time: str = ""
    group: str = ""
    version_before: int | None = None
    version_after: int | None = None
    changes: dict[str, list[Any]] = field(default_factory=dict)  # field -> [old, new]
    before: dict[str, Any] | None = None  # full entry (JSON form) before, None if new
    after: dict[str, Any] | None = None  # full entry after, None if removed
    target_group: str = ""  # for undo/redo: the group undone or redone
    payload: dict[str, Any] = field(default_factory=dict)  # events (memory_flushed, ...)

    def to_json(self) -> str:
        # Not dataclasses.asdict: it deep-copies the entry snapshots, and this is hot.
        data = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if getattr(self, name) not in (None, "", {}, [])
        }
        return json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> JournalRecord:
        """Parse one line; ValueError when it is not a record of the right shape (a
        reader skips it and reports its line, so one bad line breaks nothing)."""
        data = loads(line, "journal record")
        if not isinstance(data, dict):
            raise ValueError(f"a journal record is an object, got {type(data).__name__}")
        fields = {k: v for k, v in data.items() if k in _FIELD_TYPES}
        for name, value in fields.items():
            if not _FIELD_TYPES[name](value):
                raise ValueError(f"journal field {name!r} has the wrong type: {value!r:.60}")
        if not fields.get("op"):
            raise ValueError("a journal record needs an op")
        return cls(**fields)


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_version(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _is_table(value: object) -> bool:
    return isinstance(value, dict)


def _is_entry_state(value: object) -> bool:
    """A whole entry before/after (or None): an object whose summary, if any, is text."""
    return value is None or (isinstance(value, dict) and isinstance(value.get("summary", ""), str))


_FIELD_TYPES = {
    "op": _is_text,
    "entry_id": _is_text,
    "actor": _is_text,
    "time": _is_text,
    "group": _is_text,
    "version_before": _is_version,
    "version_after": _is_version,
    "changes": _is_table,
    "before": _is_entry_state,
    "after": _is_entry_state,
    "target_group": _is_text,
    "payload": _is_table,
}


def new_group() -> str:
    import uuid  # where a group is made, not at every read's start-up

    return uuid.uuid4().hex[:12]


class Journal:
    """Reads and appends journal records. Appends happen under the store lock."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.skipped_lines: list[int] = []
        self._cache: list[JournalRecord] = []
        self._cache_lines: list[int] = []  # the line number of each cached record
        self._cache_unsafe: list[tuple[int, str]] = []  # (line, id) of ids that are not ids
        self._cache_offset = 0
        self._cache_ino: int | None = None
        # records_of: per set of ops, (inode, bytes read, records found)
        self._op_caches: dict[frozenset[str], tuple[int | None, int, list[JournalRecord]]] = {}

    def append(self, record: JournalRecord) -> JournalRecord:
        if not record.time:
            record.time = now().isoformat()
        self.cut_torn_tail()
        append_line_durably(self.path, record.to_json())
        return record

    def append_many(self, records: list[JournalRecord]) -> None:
        """Append a group's records with one write, so a crash keeps all or none."""
        stamp = now().isoformat()
        lines = []
        for record in records:
            record.time = record.time or stamp
            lines.append(record.to_json())
        if lines:
            self.cut_torn_tail()
            append_line_durably(self.path, "\n".join(lines))

    def drop_trailing_group(self, group: str) -> int:
        """Remove the journal's last records if they belong to `group`; return how many.

        A group's records are appended with one write, but a writer killed during a
        large write can leave only its first lines. That batch is rolled back from the
        pending file, so none of its records may stay. Recovery only (reads the whole
        file); call under the store lock, after `cut_torn_tail`."""
        try:
            with plain_file.open_plain(self.path) as handle:
                data = handle.read()
        except FileNotFoundError:
            return 0
        keep, dropped = len(data), 0
        while keep > 0:
            start = data.rfind(b"\n", 0, keep - 1) + 1
            try:
                record = JournalRecord.from_json(data[start:keep].decode("utf-8"))
            except (ValueError, TypeError):
                break
            if record.group != group:
                break
            keep, dropped = start, dropped + 1
        if dropped:
            fd = open_own(self.path, os.O_RDWR)  # not through a link (either kind)
            try:
                os.ftruncate(fd, keep)
                os.fsync(fd)
            finally:
                os.close(fd)
            # The file shrank: what was read of it before is no longer true.
            self._forget_reads()
            self._op_caches.clear()
        return dropped

    def cut_torn_tail(self) -> int:
        """Drop a last line a killed writer left without its newline; return bytes cut.

        Appending after such a fragment would glue the next record onto it and make
        both unreadable. The fragment's group never committed (its batch is rolled back
        from the pending file), so cutting it loses nothing. Call under the store lock.
        """
        try:
            fd = open_own(self.path, os.O_RDWR)  # never truncates through a link (either kind)
        except FileNotFoundError:
            return 0
        except OSError as exc:
            if exc.errno in NOT_WRITABLE:
                return 0  # a read-only store: readers skip a half line anyway
            raise
        try:
            size = os.fstat(fd).st_size
            if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
                return 0
            keep, chunk = 0, 64 * 1024
            pos = size
            while pos > 0:
                start = max(0, pos - chunk)
                block = os.pread(fd, pos - start, start)
                newline = block.rfind(b"\n")
                if newline >= 0:
                    keep = start + newline + 1
                    break
                pos = start
            os.ftruncate(fd, keep)
            os.fsync(fd)
            return size - keep
        finally:
            os.close(fd)

    def _forget_reads(self, inode: int | None = None) -> None:
        """Drop what `records` has parsed: the file is gone, replaced or shorter."""
        self._cache, self._cache_offset, self._cache_ino = [], 0, inode
        self._cache_lines, self._cache_unsafe = [], []
        self.skipped_lines = []

    def records(self) -> list[JournalRecord]:
        """All records, read incrementally (only the new tail is parsed on each call)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._forget_reads()
            return []
        if st.st_ino != self._cache_ino or st.st_size < self._cache_offset:
            self._forget_reads(st.st_ino)
        if st.st_size > self._cache_offset:
            with plain_file.open_plain(self.path) as handle:
                handle.seek(self._cache_offset)
                data = handle.read()
            end = data.rfind(b"\n") + 1  # a half-appended last line waits for its newline
            line_no = len(self._cache) + len(self.skipped_lines)
            for raw in data[:end].splitlines():
                line_no += 1
                if not raw.strip():
                    continue
                try:
                    record = JournalRecord.from_json(raw.decode("utf-8"))
                except (ValueError, TypeError):
                    self.skipped_lines.append(line_no)
                    continue
                self._cache.append(record)
                self._cache_lines.append(line_no)
                if record.entry_id and not is_entry_id(record.entry_id):
                    self._cache_unsafe.append((line_no, str(record.entry_id)))
            self._cache_offset += end
        return list(self._cache)

    def records_of(self, ops: Collection[str]) -> list[JournalRecord]:
        """The records of these ops only, read incrementally like `records`; lines that
        cannot be one of them are not parsed. Parsing a 10k-entry journal takes about
        half a second, and every ingest of MEMORY.md asks for the rejected texts."""
        wanted = frozenset(ops)
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._op_caches.pop(wanted, None)
            return []
        if self._cache_ino == st.st_ino and self._cache_offset == st.st_size:
            return [r for r in self._cache if r.op in wanted]  # all parsed already
        ino, offset, found = self._op_caches.get(wanted, (None, 0, []))
        if ino != st.st_ino or st.st_size < offset:
            ino, offset, found = st.st_ino, 0, []
        if st.st_size > offset:
            with plain_file.open_plain(self.path) as handle:
                handle.seek(offset)
                data = handle.read()
            end = data.rfind(b"\n") + 1  # a half-appended last line waits for its newline
            # Find the ops' names in the whole buffer (fast) and parse just those lines,
            # instead of splitting megabytes into lines first.
            lines: set[tuple[int, int]] = set()
            for needle in (op.encode("utf-8") for op in wanted):
                hit = data.find(needle, 0, end)
                while hit >= 0:
                    start = data.rfind(b"\n", 0, hit) + 1
                    stop = data.find(b"\n", hit, end)
                    lines.add((start, stop))
                    hit = data.find(needle, stop, end)
            for start, stop in sorted(lines):
                try:
                    record = JournalRecord.from_json(data[start:stop].decode("utf-8"))
                except (ValueError, TypeError):
                    continue
                if record.op in wanted:
                    found.append(record)
            offset += end
        self._op_caches[wanted] = (ino, offset, found)
        return list(found)

    def numbered(self) -> list[tuple[int, JournalRecord]]:
        """(line number, record) of every record naming an entry: for reports that
        point at a line (a forged id, a secret kept in an old version)."""
        records = self.records()
        return [(n, r) for n, r in zip(self._cache_lines, records, strict=True) if r.entry_id]

    def unsafe_ids(self) -> list[tuple[int, str]]:
        """(line number, id) of records whose entry id is not one (a forged record): found
        while parsing, so asking again costs nothing."""
        self.records()
        return list(self._cache_unsafe)

    def __iter__(self) -> Iterator[JournalRecord]:
        return iter(self.records())

    def for_entry(self, entry_id: str) -> list[JournalRecord]:
        return [r for r in self.records() if r.entry_id == entry_id]
