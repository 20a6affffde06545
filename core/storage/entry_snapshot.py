"""A derived snapshot of the parsed entry files, so a big store opens without parsing them.

Parsing 10,000 TOML files takes seconds; reading one JSON file of what they held takes a
fraction of that. The snapshot (`.memdesk/index/entry-snapshot.json`, ignored by git with
the rest of `index/`) is never the source of truth:

- Each record is used only while its file's inode, size, mtime_ns and ctime_ns are the
  ones it was taken at. Any write to the file, in place or by rename, with the mtime put
  back or not, changes at least one of them (ctime cannot be set from user space), so
  the file is parsed again. Files that are not plain files (links), do not hold an
  entry (damaged, conflict markers) or changed in the last two seconds (a write within
  one tick of the file system's clock might not move its times) are never in it: they
  are parsed every time.
- The payload carries a blake2b digest and the entry schema it was written for: a
  truncated, corrupt or outdated snapshot is ignored whole, and each record is
  type-checked as it is turned back into an entry (a bad record is parsed from its file).
- It is rewritten (atomically, mode 0600, best effort) once enough of it went stale, and
  only for a store of at least `min_entries` entries; a store that cannot be written
  (read-only, disk full) just parses the files it must.

So it can be deleted, corrupted or copied from another checkout at any time and the
store still reads exactly what its files hold.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

from memdesk.core import checked_file
from memdesk.core.atomic import TEMP_PREFIX, atomic_write_bytes
from memdesk.core.entry import (
    CONFIDENCES,
    FIELD_ORDER,
    KINDS,
    SCOPES,
    SOURCE_ORDER,
    STATUSES,
    Entry,
    Source,
)
from memdesk.core.entry_files import Problem

SNAPSHOT_NAME = "entry-snapshot.json"
_FORMAT = "memdesk-entry-snapshot/1"
# The entry shape this codec reads and writes, field by field. A change to the entry
# model changes FIELD_ORDER/SOURCE_ORDER: the snapshot then switches itself off (and a
# test says to update the codec) instead of building entries wrongly.
_FIELDS: tuple[str, ...] = (
    "id", "version", "kind", "scope", "status", "confidence", "summary", "facts",
    "section", "tags", "valid_until", "related", "supersedes", "superseded_by",
    "created", "updated", "last_access", "flags", "source",
)  # fmt: skip
_SOURCE_FIELDS: tuple[str, ...] = (
    "origin", "session_id", "timestamp", "files", "commands", "locator", "role", "excerpt",
)  # fmt: skip
SUPPORTED = FIELD_ORDER == _FIELDS and SOURCE_ORDER == _SOURCE_FIELDS
_SCHEMA = [list(_FIELDS), list(_SOURCE_FIELDS)]

_KINDS = frozenset(KINDS)
_SCOPES = frozenset(SCOPES)
_STATUSES = frozenset(STATUSES)
_CONFIDENCES = frozenset(CONFIDENCES)

FileKey = tuple[int, int, int, int]
_ABANDONED_NS = (
    600 * 1_000_000_000
)  # a temp file this old belongs to a killed writer  # inode, size, mtime_ns, ctime_ns


def file_key(st: os.stat_result) -> FileKey:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class EntrySnapshot:
    """The snapshot of one store's entry files: `load` before the first full scan,
    `recall` before parsing a file, `learn` after, `settle` at the end of each full scan
    (it saves when enough went stale). Nothing is read until `load`: a command that looks
    at one entry does not pay for reading all of them."""

    # A file changed less than this long ago is not kept yet (see `learn`).
    racy_ns = 2_000_000_000
    # Smaller stores parse in well under a tenth of a second: no snapshot is written for
    # them (so reading a small store writes nothing at all).
    min_entries = 500

    def __init__(self, path: Path, *, stale_limit: int = 64) -> None:
        self.path = Path(path)
        self.stale_limit = stale_limit
        # File name -> the key its file had and the entry's field values (kept as plain
        # data, not as the Entry: an entry object a caller changes in place must not
        # leak into the next process's view).
        self._records: dict[str, tuple[FileKey, list[Any] | str]] = {}
        self._loaded = False
        self._stale = 0  # records added, replaced or dropped since the file was read
        self._unwritable = False
        self.hits = 0  # entries served without parsing their file (for tests and benches)

    # -- reading -------------------------------------------------------------------------
    def recall(self, name: str, st: os.stat_result) -> Entry | None:
        """The entry file `name` held when the snapshot was taken, if it is unchanged."""
        record = self._records.get(name)
        if record is None or record[0] != file_key(st):
            return None
        try:
            entry = _entry_from_values(self._values(name, record))
        except (ValueError, TypeError):
            entry = None
        if entry is None or name != f"{entry.id}.toml":
            del self._records[name]  # not what this module writes: parse the file
            self._stale += 1
            return None
        self.hits += 1
        return entry

    def peek(self, name: str, st: os.stat_result) -> tuple[str, str | None] | None:
        """(status, valid_until) of what the unchanged file `name` held, without building
        its entry; None when the snapshot cannot say (the file is then read)."""
        record = self._records.get(name)
        if record is None or record[0] != file_key(st):
            return None
        line = record[1]
        if isinstance(line, str) and not _DATE.search(line):
            # No date alone anywhere in the line: no valid_until (nothing to decode).
            found = _STATUS.match(line)
            if found is None or found.group(1) not in _STATUSES:
                return None
            return found.group(1), None
        values = self._values(name, record)
        if len(values) != len(_FIELDS):
            return None
        status, valid_until = values[4], values[10]
        if (
            type(status) is not str
            or status not in _STATUSES
            or not (valid_until is None or type(valid_until) is str)
            or type(values[0]) is not str
            or values[0] + ".toml" != name
        ):
            return None
        return status, valid_until

    def _values(self, name: str, record: tuple[FileKey, list[Any] | str]) -> list[Any]:
        """The field values of a record, decoded on first use (an empty list when its
        line is not what this module writes: the file is then parsed)."""
        values = record[1]
        if isinstance(values, str):
            row = _row(values)
            values = row[5:] if row is not None and row[0] == name else []
            self._records[name] = (record[0], values)
        return values

    def load(self) -> None:
        """Read the snapshot file (once). Records learned before stay: they are newer."""
        if self._loaded or not SUPPORTED:
            return
        self._loaded = True
        try:
            raw = self.path.read_bytes()
        except OSError:
            raw = None  # none yet (or unreadable): every file is parsed, then saved
        records = _decode_snapshot(raw) if raw is not None else None
        if records is None:
            self._stale += self.stale_limit  # missing or damaged: rewrite it
            return
        self._records = {**records, **self._records}

    # -- keeping it current -------------------------------------------------------------
    def learn(
        self,
        directory: Path,
        name: str,
        before: os.stat_result | None,
        item: Entry | Problem,
        after: os.stat_result | None = None,
    ) -> None:
        """What parsing `directory/name` gave, `before` being its stat taken before it was
        read. Kept only for a plain file holding an entry that did not change while it was
        read (same key before and after) and was last changed over `racy_ns` ago: a
        write within the file system's timestamp tick could leave the key as it was
        (git's "racily clean" entries), so such a file is parsed again next time.
        `after`: the stat of the file read, taken on it (opened without following a
        link) once read; None: the path is stat'ed now (not following a link)."""
        previous = self._records.pop(name, None)
        if after is None:
            try:
                after = os.lstat(directory / name)
            except OSError:
                after = None
        if (
            isinstance(item, Entry)
            and before is not None
            and after is not None
            and stat.S_ISREG(after.st_mode)
            and file_key(after) == file_key(before)
            and time.time_ns() - max(after.st_ctime_ns, after.st_mtime_ns) > self.racy_ns
        ):
            self._records[name] = (file_key(after), _entry_values(item))
            self._stale += 1
        elif previous is not None:
            self._stale += 1

    def settle(self, present: set[str], *, writable: bool) -> None:
        """After a scan of the whole folder: forget files that are gone, and save when
        enough records changed (a tenth of them, at most `stale_limit`)."""
        if not self._loaded or not SUPPORTED:
            return
        gone = [name for name in self._records if name not in present]
        for name in gone:
            del self._records[name]
        self._stale += len(gone)
        limit = max(1, min(self.stale_limit, len(self._records) // 10))
        big = len(self._records) >= self.min_entries
        if big and self._stale >= limit and writable and not self._unwritable:
            self.save()

    def save(self) -> None:
        """Write the snapshot atomically; a failure only means the next open parses more."""
        try:
            _remove_abandoned_temp_files(self.path.parent)
            atomic_write_bytes(self.path, _encode_snapshot(self._records), durable=False)
            # Memory text, in index/ (private, like the search index: see core/doctor.py).
            os.chmod(self.path, 0o600)
        except OSError:
            self._unwritable = True  # read-only or full: do not try at every scan
            return
        self._stale = 0


def _remove_abandoned_temp_files(folder: Path) -> None:
    """Temp files of a snapshot writer killed midway (megabytes each; the store's own
    recovery does not look in index/). One a live writer still holds is minutes newer."""
    try:
        children = list(os.scandir(folder))
    except OSError:
        return
    cutoff = time.time_ns() - _ABANDONED_NS
    for child in children:
        if child.name.startswith(TEMP_PREFIX):
            with contextlib.suppress(OSError):
                if child.stat(follow_symlinks=False).st_mtime_ns < cutoff:
                    os.unlink(child.path)


# -- the file format ---------------------------------------------------------------------
# Line 1: a JSON header (format, schema, digest and count of the records); then one line
# per record: a JSON list of [name, inode, size, mtime_ns, ctime_ns, field values in
# _FIELDS order]. One line per record, not one big list: json.loads of megabytes holds
# the GIL for the whole call, and the desk reads the store in a worker while its UI
# thread must keep answering keys.


def _encode_snapshot(records: dict[str, tuple[FileKey, list[Any] | str]]) -> bytes:
    lines = [
        values  # a line read from the file and not used since: the same bytes again
        if isinstance(values, str)
        else json.dumps([name, *key, *values], ensure_ascii=False, separators=(",", ":"))
        for name, (key, values) in records.items()
    ]
    payload = "\n".join(lines).encode("utf-8")
    header = {"format": _FORMAT, "schema": _SCHEMA, "count": len(lines)}
    return checked_file.encode(header, payload)


_DECODER = json.JSONDecoder()


def _decode_snapshot(raw: bytes) -> dict[str, tuple[FileKey, list[Any] | str]] | None:
    """The records of a snapshot file; None when any part of it is not as written.
    Field values are checked when an entry is recalled (most never are in a run)."""
    decoded = checked_file.decode(raw, _FORMAT)
    if decoded is None or decoded[0].get("schema") != _SCHEMA:
        return None
    header, payload = decoded
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n") if text else []
    if len(lines) != header.get("count"):
        return None
    records: dict[str, tuple[FileKey, list[Any] | str]] = {}
    prefix = _PREFIX.match
    for line in lines:
        # Only the name and the file's key are read now; the values when the record is
        # used (`_values`): a first look needs a few hundred of 10k.
        found = prefix(line)
        if found is not None:
            name, ino, size, mtime_ns, ctime_ns = found.groups()
            records[name] = ((int(ino), int(size), int(mtime_ns), int(ctime_ns)), line)
            continue
        row = _row(line)  # written some other way: decoded now, or left out
        if row is not None:
            name, ino, size, mtime_ns, ctime_ns = row[:5]
            if type(name) is str and all(type(n) is int for n in (ino, size, mtime_ns, ctime_ns)):
                records[name] = ((ino, size, mtime_ns, ctime_ns), row[5:])
    return records


# The start of a record as `_encode_snapshot` writes it: name, inode, size, mtime, ctime.
_PREFIX = re.compile(r'\["([^"\\]*)",(\d+),(\d+),(\d+),(\d+),')
# ... then id, version, kind, scope and status.
_STATUS = re.compile(r'\["[^"\\]*",\d+,\d+,\d+,\d+,"[^"\\]*",\d+,"[a-z]+","[a-z]+","([a-z]+)",')
# A JSON string holding a date alone: the only way a valid_until is written (the entry's
# times carry a clock time). A line without one has no valid_until.
_DATE = re.compile(r'"\d{4}-\d{2}-\d{2}"')


def _row(line: str) -> list[Any] | None:
    """A record line decoded: [name, inode, size, mtime, ctime, *values], or None."""
    try:
        row = _DECODER.decode(line)  # on text: json.loads would sniff the encoding
    except (ValueError, RecursionError):
        return None  # not what this module writes: that file is parsed instead
    if type(row) is not list or len(row) != 5 + len(_FIELDS):
        return None
    return row


def decode_record(line: bytes) -> tuple[str, FileKey, Entry] | None:
    """One record line of a snapshot file, alone: (file name, stat key, entry), or None
    when it is not a record this module writes (the caller checks the file's digest or
    knows the file by its stat)."""
    try:
        row = _DECODER.decode(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if type(row) is not list or len(row) != 5 + len(_FIELDS):
        return None
    name, ino, size, mtime_ns, ctime_ns = row[:5]
    if type(name) is not str or not all(type(n) is int for n in (ino, size, mtime_ns, ctime_ns)):
        return None
    try:
        entry = _entry_from_values(row[5:])
    except (ValueError, TypeError):
        return None
    return name, (ino, size, mtime_ns, ctime_ns), entry


def _entry_values(entry: Entry) -> list[Any]:
    source = entry.source
    return [
        entry.id,
        entry.version,
        entry.kind,
        entry.scope,
        entry.status,
        entry.confidence,
        entry.summary,
        list(entry.facts),
        list(entry.section),
        list(entry.tags),
        entry.valid_until.isoformat() if entry.valid_until else None,
        list(entry.related),
        list(entry.supersedes),
        entry.superseded_by,
        entry.created.isoformat(),
        entry.updated.isoformat(),
        entry.last_access.isoformat() if entry.last_access else None,
        dict(entry.flags),
        [
            source.origin,
            source.session_id,
            source.timestamp,
            list(source.files),
            list(source.commands),
            source.locator,
            source.role,
            source.excerpt,
        ],
    ]


def _entry_from_values(values: list[Any]) -> Entry:
    """An entry from one record, checked field by field (cheaply: the record was made
    from an entry that passed `Entry.from_dict`; this catches a record that was not).
    Raises ValueError or TypeError."""
    (
        entry_id, version, kind, scope, status, confidence, summary, facts, section, tags,
        valid_until, related, supersedes, superseded_by, created, updated, last_access,
        flags, source,
    ) = values  # fmt: skip
    origin, session_id, timestamp, files, commands, locator, role, excerpt = source
    # str.join checks every item in C: TypeError for anything that is not text.
    "".join((entry_id, summary, superseded_by, origin, session_id, timestamp, locator, role))
    "".join((excerpt,))
    if (
        not entry_id
        or not summary
        or type(version) is not int
        or version < 1
        or kind not in _KINDS
        or scope not in _SCOPES
        or status not in _STATUSES
        or confidence not in _CONFIDENCES
        or type(flags) is not dict
    ):
        raise ValueError("not an entry record")
    "".join(flags)
    "".join(flags.values())
    for items in (facts, section, tags, related, supersedes, files, commands):
        if type(items) is not list:
            raise TypeError("not a list")
        "".join(items)
    return Entry(
        summary=summary,
        kind=kind,
        scope=scope,
        status=status,
        confidence=confidence,
        facts=list(facts),  # copies: the record stays as it was read
        section=list(section),
        tags=list(tags),
        valid_until=None if valid_until is None else dt.date.fromisoformat(valid_until),
        related=list(related),
        supersedes=list(supersedes),
        superseded_by=superseded_by,
        source=Source(
            origin=origin,
            session_id=session_id,
            timestamp=timestamp,
            files=list(files),
            commands=list(commands),
            locator=locator,
            excerpt=excerpt,
            role=role,
        ),
        flags=dict(flags),
        id=entry_id,
        version=version,
        created=_aware(created),
        updated=_aware(updated),
        last_access=None if last_access is None else _aware(last_access),
    )


def _aware(text: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError("a time without a zone")  # entries always carry one
    return parsed
