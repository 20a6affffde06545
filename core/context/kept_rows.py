"""Each entry's ranking row, kept beside the entry snapshot, for `quick.py`.

After one change to a big store, `memdesk context` would decode the whole entry snapshot
and build every entry only to rank them and show a few dozen. What ranking needs of an
entry (its section, the parts of its score, its place in the block, its headings) is
small and does not depend on the day, the settings or the request; it is kept here
(`.memdesk/index/context-rows.json`, derived, ignored by git with the rest of `index/`),
one row per record of the entry snapshot, with where that record sits in the snapshot
file, so the few entries the fill looks at are built from their own records only.

- The file names the stat (inode, size, mtime_ns, ctime_ns) of the snapshot file it
  indexes and of the module files whose code makes a row: another snapshot or edited
  code ignores it whole, and so does a damaged file (a blake2b digest of its payload).
- Each row carries its entry file's stat key, the snapshot record's: a file whose stat
  moved since is read and ranked from its file (`quick.py`).
- Rows are written (best effort) by a full assembly of a big store whenever the file
  does not index the snapshot as it is now.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from memdesk.core import checked_file
from memdesk.core.context import assembler, kept_weights, outline, render, weigh
from memdesk.core.context.assembler import section_of
from memdesk.core.context.block_cache import file_row
from memdesk.core.context.kept_weights import WEIGHT_BY_CODE
from memdesk.core.context.outline import heading_path, introduces, place_of
from memdesk.core.context.weigh import Weight
from memdesk.core.entry import Entry

ROWS_NAME = "context-rows.json"
_FORMAT = "memdesk-context-rows/1"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)
_COLUMNS = ("keys", "offsets", "lengths", "created", "classes", "until", "ts")
# The weights `weigh` gives, by code (a class names its code).
WEIGHTS: dict[int, Weight] = dict(WEIGHT_BY_CODE)
WEIGHT_CODES: dict[Weight, int] = {weight: code for code, weight in WEIGHTS.items()}

StatKey = tuple[int, int, int, int]
# An entry's heading data: (memory file or None, its line, heading path, introduces).
Headed = tuple[str | None, int, tuple[str, ...], bool]


class Rows(NamedTuple):
    """The kept rows, column by column (index i is one entry file)."""

    keys: list[str]  # the file's name and stat as `block_cache.file_row` writes them
    offsets: list[int]  # where its record is in the snapshot file
    lengths: list[int]
    created: list[int]  # microseconds since the epoch
    classes: list[str]  # "bucket|scope|status|confidence|superseded|suspicious|weight"
    until: list[int | None]  # valid_until as an ordinal
    ts: list[float]  # the later of updated and last_access, as a timestamp
    headed: dict[int, Headed]  # entries with headings only


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _code_stamp() -> list[list[Any]] | None:
    """The stat of every module whose code decides a row."""
    rows: list[list[Any]] = []
    for module in (assembler, kept_weights, outline, render, weigh, checked_file):
        path = getattr(module, "__file__", None)
        try:
            rows.append([str(path), *stat_key(os.stat(str(path)))])
        except (OSError, TypeError):
            return None
    here = __file__
    try:
        rows.append([here, *stat_key(os.stat(here))])
    except OSError:
        return None
    return rows


def row_of(entry: Entry, weight: Weight) -> tuple[int, str, int | None, float, Headed | None]:
    """What ranking needs of `entry`: (created, class, valid until, time, headings);
    the class is None when the weight is not one a class can name."""
    ts = entry.updated.timestamp()
    if entry.last_access is not None:
        ts = max(ts, entry.last_access.timestamp())
    bucket = section_of(entry)
    superseded = entry.status == "superseded" or bool(entry.superseded_by)
    suspicious = "suspicious" in entry.flags
    code = WEIGHT_CODES.get(weight, -1)
    cls = "|".join((bucket, entry.scope, entry.status, entry.confidence,
                    "s" if superseded else "", "f" if suspicious else "", str(code)))  # fmt: skip
    headed: Headed | None = None
    if entry.section:
        place = place_of(entry)
        headed = (
            place[0] if place else None,
            place[1] if place else 0,
            heading_path(entry, bucket),
            introduces(entry),
        )
    until = entry.valid_until.toordinal() if entry.valid_until is not None else None
    return (entry.created - _EPOCH) // _MICROSECOND, cls, until, ts, headed


def snapshot_lines(raw: bytes) -> Iterable[tuple[str, StatKey, int, int]]:
    """(file name, stat key, offset, length) of each record line of a snapshot file's
    bytes (`entry_snapshot.py`); lines not in that shape are skipped."""
    start = raw.find(b"\n") + 1
    if start <= 0:
        return
    end = len(raw)
    while start < end:
        stop = raw.find(b"\n", start)
        if stop < 0:
            stop = end
        head = raw[start : min(stop, start + 400)].split(b",", 5)
        try:
            name = json.loads(head[0][1:])
            key = (int(head[1]), int(head[2]), int(head[3]), int(head[4]))
        except (ValueError, IndexError):
            name = None
        if isinstance(name, str):
            yield name, key, start, stop - start
        start = stop + 1


def write(
    index_dir: Path,
    snapshot_path: Path,
    listing: Iterable[tuple[str, os.stat_result | None]],
    entry_of: Callable[[str], Entry | None],
    weights: Callable[[Entry], Weight],
) -> bool:
    """Index the snapshot file as it is now, for the files of `listing` whose stat is the
    snapshot record's (`entry_of(name)`: what that file holds). Best effort."""
    stamp = _code_stamp()
    if stamp is None or not index_dir.is_dir():
        return False
    try:
        with open(snapshot_path, "rb") as handle:
            before = os.fstat(handle.fileno())
            raw = handle.read()
        after = os.stat(snapshot_path)
    except OSError:
        return False
    if stat_key(before) != stat_key(after):
        return False
    current = {name: (stat_key(st), st) for name, st in listing if st is not None}
    cols: dict[str, list[Any]] = {name: [] for name in _COLUMNS}
    headed: dict[str, list[Any]] = {}
    for name, key, offset, length in snapshot_lines(raw):
        now = current.get(name)
        if now is None or now[0] != key:
            continue
        entry = entry_of(name)
        if entry is None or f"{entry.id}.toml" != name:
            continue
        created, cls, until, ts, head = row_of(entry, weights(entry))
        if cls.endswith("|-1"):
            continue  # a weight no class names: ranked from its file
        if head is not None:
            headed[str(len(cols["keys"]))] = [head[0], head[1], list(head[2]), head[3]]
        for column, value in zip(
            _COLUMNS, (file_row(name, now[1]), offset, length, created, cls, until, ts), strict=True
        ):
            cols[column].append(value)
    body = {**cols, "keys": "\n".join(cols["keys"]), "headed": headed}
    header = {"format": _FORMAT, "snapshot": list(stat_key(before)), "code": stamp}
    payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    from memdesk.core.atomic import atomic_write_bytes

    path = index_dir / ROWS_NAME
    try:
        atomic_write_bytes(path, checked_file.encode(header, payload), durable=False)
        os.chmod(path, 0o600)  # memory text (headings), private like the rest of index/
    except OSError:
        return False
    return True


def read(index_dir: Path, snapshot_path: Path) -> tuple[Rows, StatKey] | None:
    """The kept rows and the snapshot stat they index; None when there are none for
    this snapshot and this code, or they are not in this shape."""
    try:
        raw = (index_dir / ROWS_NAME).read_bytes()
        snap = stat_key(os.stat(snapshot_path))
    except OSError:
        return None
    decoded = checked_file.decode(raw, _FORMAT)
    if decoded is None:
        # Damaged: gone, so the next full assembly writes them again.
        with contextlib.suppress(OSError):
            os.unlink(index_dir / ROWS_NAME)
        return None
    header, payload = decoded
    if header.get("snapshot") != list(snap) or header.get("code") != _code_stamp():
        return None
    try:
        body = json.loads(payload)
        keys = body["keys"].split("\n") if body["keys"] else []
        columns = [body[name] for name in _COLUMNS[1:]]
        headed = {
            int(n): (f, line, tuple(path), bool(lead))
            for n, (f, line, path, lead) in body["headed"].items()
        }
    except (ValueError, RecursionError, TypeError, KeyError, AttributeError):
        return None
    if any(type(column) is not list or len(column) != len(keys) for column in columns):
        return None
    offsets, lengths, created, classes, until, ts = columns
    return Rows(keys, offsets, lengths, created, classes, until, ts, headed), snap


def indexes(index_dir: Path, snapshot_path: Path) -> bool:
    """Whether the kept rows are for the snapshot as it is now and this code (their
    header only: a full assembly asks this before deciding to write them)."""
    try:
        with open(index_dir / ROWS_NAME, "rb") as handle:
            head = handle.readline()
        snap = stat_key(os.stat(snapshot_path))
        header = json.loads(head)
    except (OSError, ValueError, RecursionError):
        return False
    return (
        isinstance(header, dict)
        and header.get("format") == _FORMAT
        and header.get("snapshot") == list(snap)
        and header.get("code") == _code_stamp()
    )
