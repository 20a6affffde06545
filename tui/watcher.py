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

What a path means and what is done about it is core's policy (core/live_ingest.py):
this module only runs the observer thread and the coalescing window.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from memdesk.core.live_ingest import PathClassifier, WatchedChanges
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

COALESCE_SECONDS = 0.05


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


__all__ = ["PathClassifier", "WatchedChanges", "Watcher"]
