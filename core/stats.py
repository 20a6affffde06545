"""Seed 001's metrics for a working directory: size, composition, expiry, speed, health.

`compute_stats(store, search)` gathers them into one `Stats` record; the stats screen
and `memdesk stats` only display it. Latencies are measured here (a few warm runs,
median), so the numbers a person sees are the same the CLI prints. Other subsystems
add their own metrics with `Stats.add_section(name, data)` (consolidation does), so the
record grows without changing its shape.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.entry import CONFIDENCE_VALUE, KINDS, SCOPES, STATUSES, Entry

# Queries timed for search latency: one English, one Chinese, one mixed (memory is both).
LATENCY_QUERIES: tuple[str, ...] = ("run the tests", "构建", "pnpm 依赖")
LATENCY_RUNS = 5


@dataclass
class IndexHealth:
    state: str  # "ok" | "stale" | "not opened" | "error"
    documents: int = 0  # documents in the full-text index
    entries: int = 0  # entries in the store
    vectors: int = 0  # entries with an embedding
    model: str = ""  # the search service's model status line
    has_model: bool = False
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "documents": self.documents,
            "entries": self.entries,
            "vectors": self.vectors,
            "model": self.model,
            "has_model": self.has_model,
            "detail": self.detail,
        }


@dataclass
class Stats:
    root: str
    entries: int
    entry_bytes: int  # the entry files (the source of truth)
    journal_bytes: int
    index_bytes: int  # derived, rebuildable
    store_bytes: int  # everything under .memdesk/ except the index, plus MEMORY.md
    by_status: dict[str, int]
    by_kind: dict[str, int]
    by_scope: dict[str, int]
    by_confidence: dict[str, int]
    average_confidence: float | None  # mean CONFIDENCE_VALUE of live entries
    expired_per_day: dict[str, int]  # YYYY-MM-DD -> entries expired that day (journal)
    due_to_expire: int  # live entries past valid_until, not yet expired
    journal_records: int
    problems: int  # unreadable entry files (incl. git conflict markers)
    open_conflicts: int  # concurrent edits + conflict-marker files
    search_latency_ms: float | None = None  # median of warm hybrid searches
    assembly_latency_ms: float | None = None  # median of warm default assemblies
    index: IndexHealth = field(default_factory=lambda: IndexHealth("not opened"))
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)  # extensions
    computed_at: str = ""

    def add_section(self, name: str, data: dict[str, Any]) -> None:
        """Metrics from another subsystem (e.g. "consolidation"), shown and printed too."""
        self.sections[name] = data

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "root": self.root,
            "entries": self.entries,
            "bytes": {
                "store": self.store_bytes,
                "entries": self.entry_bytes,
                "journal": self.journal_bytes,
                "index": self.index_bytes,
            },
            "by_status": self.by_status,
            "by_kind": self.by_kind,
            "by_scope": self.by_scope,
            "by_confidence": self.by_confidence,
            "average_confidence": (
                None if self.average_confidence is None else round(self.average_confidence, 4)
            ),
            "expired_per_day": self.expired_per_day,
            "due_to_expire": self.due_to_expire,
            "journal_records": self.journal_records,
            "problems": self.problems,
            "open_conflicts": self.open_conflicts,
            "latency_ms": {
                "search": _round(self.search_latency_ms),
                "assembly": _round(self.assembly_latency_ms),
            },
            "index": self.index.to_json(),
            "computed_at": self.computed_at,
        }
        out.update(self.sections)
        return out


def compute_stats(
    store: Any, search: Any = None, *, measure: bool = True, today: dt.date | None = None
) -> Stats:
    """Metrics of `store`; with `search` (a SearchService) also index health and search
    latency; with `measure`, warm latencies of search and context assembly."""
    entries: list[Entry] = store.entries()
    live = [e for e in entries if e.status in ("candidate", "confirmed")]
    entry_bytes = _size_of(store.entries_dir)
    journal_bytes = _file_size(store.journal.path)
    # The index in use: a search service may keep it outside this store (shared).
    index_bytes = _size_of(Path(getattr(search, "index_dir", None) or store.index_dir))
    meta_bytes = _size_of(store.meta_dir) - _size_of(store.index_dir)
    memory_md = Path(store.root) / "MEMORY.md"
    records = store.journal.records()
    stats = Stats(
        root=str(store.root),
        entries=len(entries),
        entry_bytes=entry_bytes,
        journal_bytes=journal_bytes,
        index_bytes=index_bytes,
        store_bytes=meta_bytes + _file_size(memory_md),
        by_status=_counts((e.status for e in entries), STATUSES),
        by_kind=_counts((e.kind for e in entries), KINDS),
        by_scope=_counts((e.scope for e in entries), SCOPES),
        by_confidence=_counts((e.confidence for e in live), tuple(CONFIDENCE_VALUE)),
        average_confidence=(
            statistics.fmean(CONFIDENCE_VALUE[e.confidence] for e in live) if live else None
        ),
        expired_per_day=expired_per_day(records),
        due_to_expire=len(store.due_to_expire(today)),
        journal_records=len(records),
        problems=len(store.problems),
        open_conflicts=len(store.open_conflicts()),
        computed_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )
    for name, section in extension_sections(store).items():
        stats.add_section(name, section)
    if search is not None:
        stats.index = index_health(search, entries)
    if measure:
        stats.assembly_latency_ms = assembly_latency(store, entries)
        if search is not None:
            stats.search_latency_ms = search_latency(search)
    return stats


def extension_sections(store: Any) -> dict[str, dict[str, Any]]:
    """Metrics other subsystems keep for themselves (consolidation runs), when present."""
    sections: dict[str, dict[str, Any]] = {}
    try:
        from memdesk.core.consolidate.metrics import metrics_summary
    except ImportError:
        return sections
    try:
        sections["consolidation"] = metrics_summary(store)
    except Exception as exc:  # a damaged consolidation state is reported, not fatal
        sections["consolidation"] = {"error": str(exc)}
    return sections


def flatten(section: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted key, value) pairs of a nested section, empty values left out: for display."""
    out: list[tuple[str, Any]] = []
    for key, value in section.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(flatten(value, f"{name}."))
        elif value not in (None, "", [], {}):
            out.append((name, value))
    return out


def expired_per_day(records: list[Any]) -> dict[str, int]:
    """Entries that became expired, per day of the journal record (oldest day first).
    An expiry later undone does not count (a redo counts it again)."""
    standing: dict[str, list[str]] = {}  # entry id -> days of its expiries in force
    for record in records:
        before = (record.before or {}).get("status")
        after = (record.after or {}).get("status")
        if after == "expired" and before != "expired":
            standing.setdefault(record.entry_id, []).append(str(record.time)[:10])
        elif record.op == "undo" and before == "expired" and after != "expired":
            days_of_entry = standing.get(record.entry_id)
            if days_of_entry:
                days_of_entry.pop()
    days = Counter(day for entry_days in standing.values() for day in entry_days)
    return dict(sorted(days.items()))


def index_health(search: Any, entries: list[Entry]) -> IndexHealth:
    try:
        documents = int(search.text.num_docs())
        vectors = int(getattr(search, "_n", 0))
        has_model = bool(search.has_model)
        model = str(getattr(search, "model_status", ""))
    except Exception as exc:  # a broken index is a health fact, not a crash
        return IndexHealth("error", entries=len(entries), detail=str(exc))
    behind = len(entries) - documents
    state = "ok" if behind == 0 and (not has_model or vectors >= len(entries)) else "stale"
    detail = (
        "up to date"
        if state == "ok"
        else f"{abs(behind)} document(s) {'missing' if behind > 0 else 'extra'}"
        if behind
        else f"{len(entries) - vectors} entr(ies) without a vector"
    )
    return IndexHealth(state, documents, len(entries), vectors, model, has_model, detail)


def search_latency(search: Any, runs: int = LATENCY_RUNS) -> float | None:
    timings: list[float] = []
    try:
        for query in LATENCY_QUERIES:
            search.search(query)  # warm: query vectors and reader caches
        for _ in range(runs):
            for query in LATENCY_QUERIES:
                t0 = time.perf_counter()
                search.search(query)
                timings.append((time.perf_counter() - t0) * 1000)
    except Exception:
        return None
    return statistics.median(timings) if timings else None


def assembly_latency(store: Any, entries: list[Entry], runs: int = LATENCY_RUNS) -> float | None:
    from memdesk.core.context import assemble
    from memdesk.core.context.settings import store_context_settings

    try:
        settings = store_context_settings(store.settings, store.settings_path)
        assemble(entries, settings=settings)  # warm: token counter, settings parse
        timings = []
        for _ in range(runs):
            t0 = time.perf_counter()
            assemble(entries, settings=settings)
            timings.append((time.perf_counter() - t0) * 1000)
    except Exception:
        return None
    return statistics.median(timings)


def _counts(values: Any, order: tuple[str, ...]) -> dict[str, int]:
    counts = Counter(values)
    out = {name: counts.get(name, 0) for name in order}
    out.update({k: v for k, v in counts.items() if k not in out})
    return out


def _file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _size_of(folder: Path) -> int:
    """Bytes of the files under `folder`; a link counts as itself (what it points to,
    perhaps outside the working directory, is not looked at)."""
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
