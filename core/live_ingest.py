"""Live ingestion: what a running desk does when files change on disk.

A file watcher (the desk's, in tui/watcher.py) only reports paths. This module is the
policy behind it, so every front end follows the same one:

* `watch_plan` says what to watch: MEMORY.md, the managed memory files, the store's
  entry files, the inbox (unless `[sources] inbox = false`) and the transcript globs
  of `[sources] transcripts`.
* `PathClassifier` sorts a reported path into `WatchedChanges` (temp files of atomic
  saves are ignored; the destination of a rename is what counts).
* `ingest_changes` feeds a burst of changes to core ingestion in one call: new lines of
  the memory files become candidates, new messages in the inbox and transcripts are
  extracted. What it cannot read is one line naming the file, never an exception, so a
  watcher keeps running.

Settings are read through the typed settings object (core/settings.py); a front end
that holds one (the desk's `Services.settings`) passes it, so nothing is parsed again.

memdesk's own writes are not ingested again: a memory file whose fingerprint is the
one memdesk recorded when it last wrote it (core/own_writes.py) has nothing new, so a
desk that approves a fact (and so rewrites MEMORY.md) does not read MEMORY.md back.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memdesk.core.atomic import TEMP_PREFIX
from memdesk.core.entry import Entry
from memdesk.core.own_writes import is_own_write
from memdesk.core.storage.layout import META_DIR

if TYPE_CHECKING:
    from memdesk.core.extract.settings import SourcesSettings
    from memdesk.core.settings import MemdeskSettings
    from memdesk.core.store import Store


@dataclass
class WatchedChanges:
    """One coalesced burst, sorted by what it means for the store."""

    memory_md: bool = False  # MEMORY.md or a managed memory file
    entries: set[Path] = field(default_factory=set)
    inbox: set[Path] = field(default_factory=set)
    transcripts: set[Path] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.memory_md or self.entries or self.inbox or self.transcripts)


@dataclass
class WatchPlan:
    """What to watch in a working directory (from its settings and managed files)."""

    transcript_globs: list[str] = field(default_factory=list)
    inbox: bool = True
    memory_files: list[Path] = field(default_factory=list)  # the managed (adopted) ones


@dataclass
class IngestReport:
    """What one pass over a burst of changes did."""

    fresh: list[Entry] = field(default_factory=list)  # the new candidates
    problems: list[str] = field(default_factory=list)  # one line each: "file: why"
    memory_files_read: bool = False  # False when they held only memdesk's own writes
    stopped: bool = False  # `stop()` was true: nothing was read


def watch_plan(store: Store, sources: SourcesSettings | None = None) -> WatchPlan:
    """`[sources]` and the managed memory files. `sources`: the table the caller already
    holds; None reads settings.toml (a bad table: its defaults; ingestion names the
    error)."""
    from memdesk.core.memfiles.confine import manifest_refusal
    from memdesk.core.memfiles.manifest import all_manifests

    if sources is None:
        sources = _settings_of(store).sources
    # A manifest naming a file memdesk may not touch (outside and not adopted on this
    # machine, or linked out): its folder is not watched either.
    manifests = all_manifests(store.meta_dir)
    return WatchPlan(
        transcript_globs=list(sources.transcripts),
        inbox=sources.inbox,
        memory_files=[m.file for m in manifests if manifest_refusal(m.path, store.root) is None],
    )


def _settings_of(store: Store) -> MemdeskSettings:
    from memdesk.core.settings import load

    return load(store.settings_path)


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
        self.entries_dir = self.root / META_DIR / "entries"
        self.inbox_dir = self.root / META_DIR / "inbox"
        self.inbox = inbox
        # Globs are relative to the working directory, or absolute / `~/...`.
        self.patterns = [g for g in transcript_globs if isinstance(g, str) and g]
        self.globs = [(self.root / Path(os.path.expanduser(g))).as_posix() for g in self.patterns]

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
        for written, pattern in zip(self.patterns, self.globs, strict=True):
            parts = Path(pattern).parts
            fixed: list[str] = []
            for part in parts[:-1]:
                if any(c in part for c in "*?["):
                    break
                fixed.append(part)
            recursive = len(fixed) < len(parts) - 1 or "**" in pattern
            folder = Path(*fixed)
            if not self._may_watch(folder, written):
                continue
            dirs[folder] = dirs.get(folder, False) or recursive
        return [(d, r) for d, r in dirs.items() if d.is_dir()]

    def _may_watch(self, folder: Path, pattern: str) -> bool:
        """A glob's folder outside the working directory (by its text, or a link on the
        way) is watched only where the person allowed the glob (`memdesk trust`):
        watching a folder recursively lists it."""
        from memdesk.core.safepath import is_inside
        from memdesk.core.trust import is_allowed, refuse_once, transcripts_request

        if is_inside(folder, self.root):
            return True
        request = transcripts_request(pattern)
        if is_allowed(self.root, request):
            return True
        refuse_once(request, self.root)
        return False


def memory_files_changed(store: Store) -> bool:
    """Did anyone but memdesk change MEMORY.md or a managed memory file since memdesk
    last wrote (or adopted) it? Asked under the store lock, so a write in progress in
    another memdesk process is finished, its fingerprint recorded."""
    from memdesk.core.memfiles.manifest import all_manifests
    from memdesk.core.memory_render import memory_md_managed

    with store.lock.held():
        if not memory_md_managed(store) and not store.memory_file.as_last_written():
            return True
        return any(not is_own_write(m.file, m.written) for m in all_manifests(store.meta_dir))


def ingest_changes(
    store: Store,
    changes: WatchedChanges,
    *,
    catch_up: bool = False,
    settings: MemdeskSettings | None = None,
    stop: Callable[[], bool] | None = None,
) -> IngestReport:
    """Turn what changed on disk into candidates. `catch_up`: read the memory files
    even if they look untouched (a desk opening: appends to replaced files that were
    still held open are drained too). `settings`: the typed settings the caller holds
    (None: settings.toml is read once for this burst). Files gone meanwhile are skipped.
    `stop()` is asked first (a desk closing before its start-up catch-up ran): once
    true nothing is read (`report.stopped`); the next start's catch-up reads it."""
    report = IngestReport()
    if stop is not None and stop():
        report.stopped = True
        return report
    if changes.memory_md and (catch_up or memory_files_changed(store)):
        report.fresh.extend(store.ingest_memory_md())
        report.memory_files_read = True
    paths = sorted(p for p in changes.inbox | changes.transcripts if p.exists())
    if not paths:
        return report
    from memdesk.core.extract.inbox import ingest_path

    if settings is None:
        settings = _settings_of(store)
    # A source read with tables other than the person's would be read for good (its
    # offset moves on): while `[extractor]` or `[sources]` is wrong, nothing is read
    # and each file says why; its next change after the fix reads all of it.
    problem = settings.problem_with("extractor") or settings.problem_with("sources")
    for path in paths:
        if problem:
            report.problems.append(f"{path.name}: not read: {problem}")
            continue
        result = ingest_path(store, path, settings=settings.extract)
        report.fresh.extend(result.added)
        if result.error:
            report.problems.append(f"{path.name}: {result.error}")
    return report
