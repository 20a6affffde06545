"""Services the screens share: the store, search (built lazily) and context assembly.

The store is used from the UI thread and from worker threads (file-watch ingestion,
index building), so every store call from a screen goes through `services.lock`.
The search model is never loaded on the way to the first frame: `build_search` runs in
a worker, and until it is done `search_ids` falls back to a plain substring filter.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry, normalise_text
from memdesk.core.store import Store

Progress = Callable[[int, int], None]


@dataclass
class Services:
    """What every screen gets next to the store (the conflict, context and stats
    screens take `(store, services)`)."""

    store: Store
    load_model: bool = True  # False: never build the search index (tests, snapshots)
    today: Callable[[], dt.date] = dt.date.today
    lock: threading.RLock = field(default_factory=threading.RLock)
    search: Any = None  # memdesk.core.search.SearchService once built
    search_status: str = "search: text only (model not loaded)"
    duplicates: list[Any] = field(default_factory=list)  # DuplicatePair, once search is up
    # Timings of the last operations, for the stats screen (seconds).
    timings: dict[str, float] = field(default_factory=dict)
    # The entries as last read. A full read stats every entry file (slow at 10k), so
    # after the first one only the entries a change names are re-read: the app calls
    # `invalidate` for every store commit and every entry file the watcher reports.
    # Reading a clean cache takes no lock, so the UI never waits on a slow write.
    _cache: dict[str, Entry] | None = field(default=None, repr=False)
    _dirty: set[str] = field(default_factory=set, repr=False)
    _generation: int = field(default=0, repr=False)  # bumped by every invalidate
    _sorted: tuple[int, list[Entry]] | None = field(default=None, repr=False)
    _marker_ids: set[str] | None = field(default=None, repr=False)

    # -- store access --------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._cache is not None

    @property
    def generation(self) -> int:
        """Grows with every invalidation: tells an older snapshot from a newer one."""
        return self._generation

    def entries(self) -> list[Entry]:
        """Every entry, oldest first (created, then id)."""
        ready = self._sorted
        if ready is not None and ready[0] == self._generation:
            return ready[1]
        with self.lock:
            generation = self._generation  # read first: a later invalidate re-dirties
            if self._cache is None:
                import time

                t0 = time.perf_counter()
                self._dirty.clear()
                self._cache = {e.id: e for e in self.store.entries()}
                self.timings["load"] = time.perf_counter() - t0
            while self._dirty:
                entry_id = self._dirty.pop()
                entry = self.store.find(entry_id)
                if entry is None:
                    self._cache.pop(entry_id, None)
                else:
                    self._cache[entry_id] = entry
            ordered = sorted(self._cache.values(), key=lambda e: (e.created, e.id))
            self._sorted = (generation, ordered)
            return ordered

    def invalidate(self, ids: Iterable[str] | None = None) -> None:
        """Forget what changed: the named entries, or everything (ids=None)."""
        if ids is None:
            with self.lock:
                self._cache = None
                self._marker_ids = None
                self._generation += 1
        else:
            self._dirty.update(ids)
            self._generation += 1

    def recheck_markers(self, paths: Iterable[Path]) -> None:
        """Entry files changed on disk: note which now hold git conflict markers
        (reads just those files, not the whole folder)."""
        with self.lock:
            if self._marker_ids is None:
                return
            for path in paths:
                try:
                    marked = b"\n<<<<<<< " in b"\n" + path.read_bytes()
                except OSError:
                    marked = False
                if marked:
                    self._marker_ids.add(path.stem)
                else:
                    self._marker_ids.discard(path.stem)

    def candidates(self) -> list[Entry]:
        """Candidates in order of arrival (created, then id)."""
        return [e for e in self.entries() if e.status == "candidate"]

    def conflict_count(self) -> int:
        """Saved concurrent-edit conflicts plus entry files with git conflict markers."""
        with self.lock:
            if self._marker_ids is None:
                self._marker_ids = {
                    Path(p.path).stem for p in self.store.problems if p.kind == "conflict-markers"
                }
            try:
                saved = {p.stem for p in self.store.conflicts_dir.glob("*.json")}
            except OSError:
                saved = set()
            return len(saved) + len(self._marker_ids - saved)

    def counts(self) -> dict[str, int]:
        entries = self.entries()
        today = self.today()
        return {
            "entries": len(entries),
            "candidates": sum(1 for e in entries if e.status == "candidate"),
            "conflicts": self.conflict_count(),
            "due": sum(
                1
                for e in entries
                if e.status in ("candidate", "confirmed") and e.is_past_valid_until(today)
            ),
        }

    # -- search --------------------------------------------------------------------
    @property
    def search_ready(self) -> bool:
        return self.search is not None

    def build_search(
        self, progress: Progress | None = None, stage: Callable[[str], None] | None = None
    ) -> Any:
        """Load the model and bring the index up to date (blocking: call in a worker).
        `stage(text)` names each step, `progress(done, total)` counts embeddings."""
        import time

        from memdesk.core.search import SearchService

        t0 = time.perf_counter()
        if stage:
            stage("loading search model…")
        service = SearchService(self.store.index_dir, self.store.settings.get("search"))
        if stage:
            stage("indexing entries…")
        service.sync(self.entries(), progress=progress)
        self.timings["index"] = time.perf_counter() - t0
        self.search = service
        self.search_status = f"search: hybrid ({service.model_status})"
        self.refresh_duplicates()
        return service

    def sync_search(self) -> None:
        """Bring the index up to date after a change (cheap: only changed entries),
        then the duplicate / contradiction flags."""
        if self.search is not None:
            self.search.sync(self.entries())
        self.refresh_duplicates()

    def refresh_duplicates(self) -> None:
        """The same pairs the conflict screen lists (word overlap until the model is up)."""
        from memdesk.core.conflicts import open_pairs

        entries = self.entries()
        candidates = {e.id for e in entries if e.status == "candidate"}
        self.duplicates = open_pairs(entries, self.store.meta_dir, self.search, focus=candidates)

    def search_ids(
        self,
        query: str,
        *,
        status: Iterable[str] | None = None,
        kind: Iterable[str] | None = None,
        scope: Iterable[str] | None = None,
        limit: int = 200,
    ) -> list[str]:
        """Ids matching `query`, best first: hybrid search when the index is built,
        a substring filter over the entries until then."""
        import time

        t0 = time.perf_counter()
        try:
            if self.search is not None:
                hits = self.search.search(query, status=status, kind=kind, scope=scope, limit=limit)
                return [h.entry_id for h in hits]
            return [e.id for e in text_filter(self.entries(), query)][:limit]
        finally:
            self.timings["search"] = time.perf_counter() - t0

    def similar(self, entry: Entry, pool: Sequence[Entry], limit: int = 30) -> list[Entry]:
        """`pool` ranked by similarity to `entry` (suggestions for supersede / merge)."""
        by_id = {e.id: e for e in pool if e.id != entry.id}
        ranked: list[Entry] = []
        if self.search is not None:
            for hit in self.search.search(entry.summary, limit=limit * 3):
                if hit.entry_id in by_id and by_id[hit.entry_id] not in ranked:
                    ranked.append(by_id[hit.entry_id])
        if len(ranked) < limit:
            scored = sorted(
                (e for e in by_id.values() if e not in ranked),
                key=lambda e: (-overlap(entry.summary, e.summary), e.created, e.id),
            )
            ranked.extend(scored)
        return ranked[:limit]

    # -- context ---------------------------------------------------------------------
    def assemble(self, **options: Any) -> Any:
        """The context block an agent would get (memdesk.core.context.assemble)."""
        import time

        from memdesk.core.context import assemble

        t0 = time.perf_counter()
        with self.lock:
            entries = self.store.entries()
            settings = self.store.settings
        options.setdefault("today", self.today())
        if self.search is not None and "search" not in options:
            options["search"] = self._context_search
        try:
            return assemble(entries, settings=settings, **options)
        finally:
            self.timings["assemble"] = time.perf_counter() - t0

    def _context_search(self, query: str, entries: Sequence[Entry]) -> dict[str, float]:
        hits = self.search.search(query, limit=max(50, len(entries)))
        return {h.entry_id: h.score for h in hits}


def text_filter(entries: Iterable[Entry], query: str) -> list[Entry]:
    """Entries whose text contains every word of `query` (case and width folded)."""
    words = normalise_text(query).split()
    if not words:
        return list(entries)
    return [e for e in entries if all(w in normalise_text(e.search_text()) for w in words)]


def overlap(a: str, b: str) -> float:
    """Share of character bigrams two texts have in common (works for CJK and English)."""

    def grams(text: str) -> set[str]:
        t = normalise_text(text)
        return {t[i : i + 2] for i in range(len(t) - 1)}

    ga, gb = grams(a), grams(b)
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / len(ga | gb)
