"""The entry files as last read: each file is read again only when it changed.

Every entry file is stat'ed on each scan (another process may have rewritten any of
them), so the loop is kept lean: at 10k files it is what an ingest of MEMORY.md waits
for. The cache also counts summary hashes, so `known_hashes` (asked on every ingest)
does not hash every entry; files read since the last count are hashed only when the
hashes are asked for, so opening a big store to list or assemble context hashes none.

A file not cached yet is looked up in the entry snapshot (`entry_snapshot.py`, derived,
under `index/`) before it is parsed: a big store opens without parsing every file.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.entry_files import (
    Problem,
    is_within,
    read_entry_file,
    read_plain_entry_file,
)
from memdesk.core.storage.entry_snapshot import EntrySnapshot

# A scan that may be stopped asks every this many files.
STOP_EVERY = 256
# (inode key, size/mtime key, what the file holds)
CachedFile = tuple[int, int, Entry | Problem]


def file_key(st: os.stat_result) -> tuple[int, int]:
    """Changes whenever the file does: every write is a rename, so a new inode too."""
    return (st.st_ino, st.st_mtime_ns * 1_000_003 + st.st_size)


@dataclass
class Glance:
    """What `EntryFileCache.glance` saw: the entries asked for, (status, valid_until as
    ISO text) of every entry, and the files that hold no entry."""

    entries: list[Entry] = field(default_factory=list)
    shape: list[tuple[str, str | None]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unread: int = 0  # entries left unbuilt (0: every entry is now cached)


class EntryFileCache:
    """What each `entries/*.toml` file held when it was last read (by file name)."""

    def __init__(
        self,
        entries_dir: Path,
        root: Path,
        snapshot: EntrySnapshot | None = None,
        writable: Callable[[], bool] = lambda: True,
    ) -> None:
        self.entries_dir = entries_dir
        self.root = root
        # What the entry files held at the last save (None: every file is parsed), and
        # whether this process may rewrite it (not on a read-only store).
        self.snapshot = snapshot
        self.writable = writable
        self._files: dict[str, CachedFile] = {}
        # How many cached entries have each summary hash, and which hash each file was
        # counted under; files read but not counted yet wait in `_unhashed`.
        self._hash_count: Counter[str] = Counter()
        self._file_hash: dict[str, str] = {}
        self._unhashed: set[str] = set()
        # Following a watched folder (see `follow`).
        self._touched_lock = threading.Lock()
        self._following = False
        self._full_scan_due = False
        self._touched: set[str] = set()
        # A listing of the folder (name, stat) taken by this process just before the
        # next scan, which then uses it instead of a stat pass of its own (see `prime`).
        self._primed: Sequence[tuple[str, os.stat_result | None]] | None = None
        self._inside: bool | None = None  # see `_folder_inside`
        self._shown: tuple[str, str] | None = None  # see `_folders`
        self._scanning = False

    def prime(self, listing: Sequence[tuple[str, os.stat_result | None]]) -> None:
        """The next `scan` (only that one) takes `listing` as the folder's files and their
        stats instead of listing and stat'ing them itself: a caller that just stat'ed
        every entry file (the kept context block's key) does not pay for a second pass,
        and reads exactly the files its key describes. Names it holds must be what the
        scan would keep (`*.toml`, not hidden)."""
        self._primed = listing

    def clear(self) -> None:
        self._files.clear()
        self._hash_count.clear()
        self._file_hash.clear()
        self._unhashed.clear()

    # -- following a watched folder ------------------------------------------------------
    def follow(self, on: bool = True) -> None:
        """A file watcher now reports every entry file written in place (`touched`):
        scans then stat only the files it named and those whose inode changed, not all
        of them (10k stats per scan at 10k entries). Files memdesk, git and most
        editors write are replaced by a rename (a new inode, seen without a stat); one
        written in place by another process is re-read once the watcher names it.
        The first scan after `follow` stats every file."""
        with self._touched_lock:
            self._following = on
            self._touched.clear()
            self._full_scan_due = True

    def touched(self, names: Iterable[str]) -> None:
        """The watcher saw these entry files change (any thread)."""
        with self._touched_lock:
            self._touched.update(names)

    def _quick_scan(self, touched: set[str]) -> None:
        """`scan` while followed: a stat only for new, replaced or touched files."""
        files = self._files
        children = self._entry_files()
        seen: set[str] = set()
        for child in children:
            name = child.name
            seen.add(name)
            cached = files.get(name)
            if cached is not None and name not in touched and cached[0] == child.inode():
                continue  # the same file as when it was read, and not written in place
            st: os.stat_result | None
            try:
                st = child.stat(follow_symlinks=True)
            except OSError:
                st = None
            if st is not None and cached is not None and cached[:2] == file_key(st):
                continue
            self.read(name, st)
        if len(seen) != len(files):
            for name in set(files) - seen:
                self.remember(name, None)

    def scan(self, stop: Callable[[], bool] | None = None) -> bool:
        """Refresh: only files whose inode, mtime or size changed are read. `stop`,
        asked every few hundred files: once true the scan ends there (what it read stays
        cached, the next scan does the rest); returns False then."""
        with self._touched_lock:
            quick = self._following and not self._full_scan_due and bool(self._files)
            touched, self._touched = self._touched, set()
            self._full_scan_due = False
        if quick and self._primed is None:
            self._quick_scan(touched)
            return True
        if not self._files and self.snapshot is not None:
            self.snapshot.load()
        listing, self._primed = self._primed, None
        self._scanning, self._inside = True, None  # the folder resolved once per scan
        try:
            done = self._scan(listing, stop)
        finally:
            self._scanning, self._inside, self._shown = False, None, None
        if not done:
            with self._touched_lock:
                self._touched |= touched
                self._full_scan_due = True
        return done

    def _scan(
        self,
        listing: Sequence[tuple[str, os.stat_result | None]] | None,
        stop: Callable[[], bool] | None = None,
    ) -> bool:
        files = self._files
        seen: set[str] = set()
        if listing is None:
            listing = self._listing()
        for number, (name, st) in enumerate(listing):
            if stop is not None and number % STOP_EVERY == STOP_EVERY - 1 and stop():
                return False
            seen.add(name)
            if st is not None:
                cached = files.get(name)
                if cached is not None and cached[:2] == file_key(st):
                    continue  # unchanged: the common case
            self.read(name, st)
        if len(seen) != len(files):
            for name in set(files) - seen:
                self.remember(name, None)
        if self.snapshot is not None:
            self.snapshot.settle(seen, writable=self.writable())
        return True

    def glance(self, statuses: Collection[str]) -> Glance:
        """What `scan` then `entries` and `problems` would give, without building the
        entries of files the snapshot knows unchanged whose status is not in
        `statuses` (of those, only status and valid_until are read). Every other file is
        read as `scan` reads it, and stays cached; the rest waits for the next `scan`."""
        files = self._files
        if not files and self.snapshot is not None:
            self.snapshot.load()
        children = self._entry_files()
        look = Glance()
        peek = self.snapshot.peek if self.snapshot is not None else None
        seen: set[str] = set()
        for child in children:
            name = child.name
            seen.add(name)
            st: os.stat_result | None
            try:
                st = child.stat(follow_symlinks=True)
            except OSError:
                st = None
            cached = files.get(name)
            if st is not None and (cached is None or cached[:2] != file_key(st)) and peek:
                known = peek(name, st)
                if known is not None and known[0] not in statuses:
                    look.shape.append(known)
                    look.unread += 1
                    continue
            item = self.read(name, st)
            if isinstance(item, Problem):
                look.problems.append(item)
                continue
            valid_until = item.valid_until.isoformat() if item.valid_until else None
            look.shape.append((item.status, valid_until))
            if item.status in statuses:
                look.entries.append(item)
        for name in set(files) - seen:
            self.remember(name, None)
        return look

    def _entry_files(self) -> list[os.DirEntry[str]]:
        """The folder's entry files (`*.toml`, not hidden), unstat'ed; none when the
        folder is missing."""
        try:
            with os.scandir(self.entries_dir) as scan:
                return [c for c in scan if c.name.endswith(".toml") and not c.name.startswith(".")]
        except FileNotFoundError:
            return []

    def _listing(self) -> list[tuple[str, os.stat_result | None]]:
        """(name, stat or None) of every entry file in the folder."""
        children = self._entry_files()
        listing: list[tuple[str, os.stat_result | None]] = []
        for child in children:
            name = child.name
            st: os.stat_result | None
            try:
                st = child.stat(follow_symlinks=True)
            except OSError:
                st = None
            listing.append((name, st))
        return listing

    def _folder_inside(self) -> bool:
        """Whether the entries folder, resolved, is inside the working directory (worked
        out once per scan: see `read_entry_file`)."""
        if not self._scanning:
            return is_within(self.entries_dir, self.root)
        if self._inside is None:
            self._inside = is_within(self.entries_dir, self.root)
        return self._inside

    def _folders(self) -> tuple[str, str]:
        """The entries folder as a path, and as a Problem names its files (relative to
        the working directory when inside it, as `read_entry_file` does); once per scan."""
        if self._shown is None:
            folder = str(self.entries_dir)
            inside = self._folder_inside()
            self._shown = (
                folder,
                str(self.entries_dir.relative_to(self.root)) if inside else folder,
            )
        return self._shown

    def read(self, name: str, st: os.stat_result | None) -> Entry | Problem:
        """The file's entry (or problem), read again only when the file changed. Takes
        the file name: building a Path per file costs as much as its stat at 10k files."""
        key = file_key(st) if st is not None else (-1, -1)
        cached = self._files.get(name)
        if cached and cached[:2] == key and st is not None:
            return cached[2]
        item: Entry | Problem | None = None
        if self.snapshot is not None and st is not None:
            item = self.snapshot.recall(name, st)
        if item is None:
            plain = None
            if self._scanning:  # a whole folder: the lean read (one open, one fstat)
                folder, shown = self._folders()
                plain = read_plain_entry_file(folder, name, shown)
            after = None
            if plain is not None:
                item, after = plain
            else:
                item = read_entry_file(
                    self.entries_dir / name, self.root, folder_inside=self._folder_inside()
                )
            if self.snapshot is not None:
                self.snapshot.learn(self.entries_dir, name, st, item, after)
        self.remember(name, (*key, item))
        return item

    def wrote(self, path: Path, entry: Entry) -> None:
        """The store just wrote `entry` to `path`: no need to read it back."""
        with contextlib.suppress(OSError):
            st = path.stat()
            self.remember(path.name, (*file_key(st), entry.copy()))

    def remember(self, name: str, record: CachedFile | None) -> None:
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

    # -- what the files hold (call `scan` first) ----------------------------------------
    def entries(self) -> list[Entry]:
        return [item for _, _, item in self._files.values() if isinstance(item, Entry)]

    def held(self, name: str) -> Entry | Problem | None:
        """What file `name` held when last read (None: not read)."""
        cached = self._files.get(name)
        return cached[2] if cached is not None else None

    def problems(self) -> list[Problem]:
        return [item for _, _, item in self._files.values() if isinstance(item, Problem)]

    def hashes(self) -> set[str]:
        """The summary hash of every cached entry."""
        self._count_hashes()
        return set(self._hash_count)

    def stat_keys(self) -> tuple[tuple[str, int, int], ...]:
        """(name, inode key, size/mtime key) of every file, sorted: a version stamp."""
        return tuple(sorted((k, v[0], v[1]) for k, v in self._files.items()))
