"""Watch the working directory and report bursts of relevant changes.

A watchdog observer thread watches MEMORY.md, `.memdesk/entries`, `.memdesk/inbox` and
the transcript globs from `[sources] transcripts`. Editors and agents save atomically
(write a temp file, rename it over the target), which arrives as a *moved* event: the
destination path is what counts.

Events are coalesced without delaying the first one: an event after a quiet spell is
reported at once and opens a window (~50 ms); everything landing inside the window is
reported as one set when it closes (and opens the next window), so a burst of writes
costs one ingestion per window, while a single `echo >> MEMORY.md` is seen at once.
A partly written line is not lost: core ingestion reads complete lines only, and the
rest of the write arrives in the window's report.
"""

from __future__ import annotations

import fnmatch
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.atomic import TEMP_PREFIX
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

COALESCE_SECONDS = 0.05


@dataclass
class WatchedChanges:
    """One coalesced burst, sorted by what it means for the store."""

    memory_md: bool = False
    entries: set[Path] = field(default_factory=set)
    inbox: set[Path] = field(default_factory=set)
    transcripts: set[Path] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.memory_md or self.entries or self.inbox or self.transcripts)


class PathClassifier:
    """Decides which watched category a path belongs to (or none)."""

    def __init__(
        self,
        root: Path,
        transcript_globs: Iterable[str] = (),
        *,
        inbox: bool = True,
        memory_files: Iterable[Path] = (),
    ) -> None:
        self.root = root.resolve()
        self.memory_md = self.root / "MEMORY.md"
        # Managed memory files (CLAUDE.md, an agent's auto memory ...): read like MEMORY.md.
        self.memory_files = {Path(p) for p in memory_files}
        self.entries_dir = self.root / ".memdesk" / "entries"
        self.inbox_dir = self.root / ".memdesk" / "inbox"
        self.inbox = inbox
        # Globs are relative to the working directory, or absolute / `~/...`.
        self.globs = [
            (self.root / Path(os.path.expanduser(g))).as_posix()
            for g in transcript_globs
            if isinstance(g, str) and g
        ]

    def add(self, changes: WatchedChanges, raw: str) -> None:
        path = Path(raw)
        if path.name.startswith(TEMP_PREFIX) or path.name.startswith(".#"):
            return
        if path == self.memory_md or path in self.memory_files:
            changes.memory_md = True
        elif path.parent == self.entries_dir and path.suffix == ".toml":
            changes.entries.add(path)
        elif self.inbox_dir in path.parents:
            if self.inbox and not path.name.startswith("."):
                changes.inbox.add(path)
        elif any(fnmatch.fnmatch(path.as_posix(), g) for g in self.globs):
            changes.transcripts.add(path)

    def watch_dirs(self) -> list[tuple[Path, bool]]:
        """(folder, recursive) pairs to schedule; never the whole tree (think node_modules)."""
        dirs: dict[Path, bool] = {self.root: False, self.entries_dir: False}
        for path in self.memory_files:
            dirs.setdefault(path.parent, False)
        if self.inbox:
            dirs[self.inbox_dir] = True
        for pattern in self.globs:
            parts = Path(pattern).parts
            fixed: list[str] = []
            for part in parts[:-1]:
                if any(c in part for c in "*?["):
                    break
                fixed.append(part)
            recursive = len(fixed) < len(parts) - 1 or "**" in pattern
            folder = Path(*fixed)
            dirs[folder] = dirs.get(folder, False) or recursive
        return [(d, r) for d, r in dirs.items() if d.is_dir()]


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path]
        if event.event_type == "moved":
            paths = [event.dest_path]  # an atomic save: the new content is at dest
        for path in paths:
            self.watcher.note(str(path))


class Watcher:
    """Calls `on_changes(WatchedChanges)` from a timer thread after each burst."""

    def __init__(
        self,
        root: Path,
        on_changes: Callable[[WatchedChanges], None],
        transcript_globs: Iterable[str] = (),
        coalesce: float = COALESCE_SECONDS,
        *,
        inbox: bool = True,
        memory_files: Iterable[Path] = (),
    ) -> None:
        self.classifier = PathClassifier(
            root, transcript_globs, inbox=inbox, memory_files=memory_files
        )
        self.on_changes = on_changes
        self.coalesce = coalesce
        self._pending = WatchedChanges()
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._observer: Observer | None = None

    def start(self) -> None:
        self.classifier.inbox_dir.mkdir(parents=True, exist_ok=True)
        observer = Observer()
        handler = _Handler(self)
        for folder, recursive in self.classifier.watch_dirs():
            observer.schedule(handler, str(folder), recursive=recursive)
        observer.daemon = True
        observer.start()
        self._observer = observer

    def stop(self) -> None:
        with self._lock:
            if self._timer:
                self._timer.cancel()
                self._timer = None
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._observer = None

    def note(self, path: str) -> None:
        report = None
        with self._lock:
            self.classifier.add(self._pending, path)
            if self._pending and self._timer is None:
                # Leading edge: report now, collect whatever follows in a window.
                report, self._pending = self._pending, WatchedChanges()
                self._open_window()
        if report:
            self.on_changes(report)

    def _open_window(self) -> None:
        self._timer = threading.Timer(self.coalesce, self._window_closed)
        self._timer.daemon = True
        self._timer.start()

    def _window_closed(self) -> None:
        with self._lock:
            report, self._pending = self._pending, WatchedChanges()
            self._timer = None
            if report:
                self._open_window()  # still busy: keep coalescing
        if report:
            self.on_changes(report)
