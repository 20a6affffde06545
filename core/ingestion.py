"""What a file watcher calls when files change: one entry point into core ingestion.

A watcher (the desk's, or any other) sorts changed paths into memory files (MEMORY.md and
the managed agent memory files) and sources (inbox files, transcripts), then calls
`ingest_changes`. Lines others added to the memory files and what is new in each source
become candidates in the store; a source that cannot be read is a one-line problem
naming the file, never an exception, so a watcher keeps running.

`watch_plan` says what to watch, from `[sources]` in settings.toml and the manifests of
the adopted memory files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.extract.inbox import ingest_path
from memdesk.core.extract.settings import ExtractSettings, SourcesSettings
from memdesk.core.memfiles.manifest import all_manifests
from memdesk.core.store import Store


@dataclass
class IngestReport:
    """What one round of ingestion added, and what it could not read."""

    added: list[Entry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "file name: why", one per file


@dataclass(frozen=True)
class WatchPlan:
    """What a watcher should look at besides MEMORY.md and the entry files."""

    transcript_globs: tuple[str, ...] = ()
    inbox: bool = True
    memory_files: tuple[Path, ...] = ()


def watch_plan(store: Store, sources: SourcesSettings | None = None) -> WatchPlan:
    """`[sources]` (its defaults when `sources` is None) and the adopted memory files."""
    sources = sources or SourcesSettings()
    files = tuple(m.file for m in all_manifests(store.meta_dir))
    return WatchPlan(tuple(sources.transcripts), sources.inbox, files)


def ingest_changes(
    store: Store,
    *,
    memory_files: bool = False,
    sources: Iterable[Path] = (),
    settings: ExtractSettings | None = None,
) -> IngestReport:
    """Ingest what changed: the memory files' new lines when `memory_files`, and what is
    new in each of `sources` (files that are gone meanwhile are skipped)."""
    report = IngestReport()
    if memory_files:
        report.added.extend(store.ingest_memory_md())
    for path in sorted(set(sources)):
        if not path.exists():
            continue
        result = ingest_path(store, path, settings=settings)
        report.added.extend(result.added)
        if result.error:
            report.problems.append(f"{path.name}: {result.error}")
    return report
