"""Services the screens share: the store's entries (cached), settings, and search
(built lazily).

The store is used from the UI thread and from worker threads (file-watch ingestion,
index building), so every store call from a screen goes through `services.lock`.
The search model is never loaded on the way to the first frame: `build_search` runs in
a worker, and until it is done `search_ids` falls back to a plain substring filter.
"""

from __future__ import annotations

import bisect
import datetime as dt
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry
from memdesk.core.settings import MemdeskSettings, SettingsFile
from memdesk.core.store import Store
from memdesk.tui.entry_list import PAIR_SLICE, arrival, read_texts, take_out, tally_add
from memdesk.tui.text_match import overlap, text_filter

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
    # Counts of the entries in one sorted list on one day (every refresh asks for them;
    # after a small change they are moved on by what changed, not counted again).
    _tally: tuple[list[Entry], dt.date, dict[str, int]] | None = field(default=None, repr=False)
    # The queue's pairs, kept between changes (only pairs touching changed entries are
    # found again); its own lock: the sync worker and the refresh path both ask.
    # The conflict screen's pairs (all of them) come from the same keeper.
    _pairs: Any = field(default=None, repr=False)
    _pairs_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _flags_found: bool = field(default=False, repr=False)
    # The queue's flags lag behind the data: a refresh found the keeper busy (the
    # conflict screen's pass holds it a slice at a time) and left them to a worker.
    flags_behind: bool = field(default=False, repr=False)
    # Every open conflict as last listed, and the generation it was listed at: the
    # conflict screen shows it at once and brings it up to date in a worker.
    _conflicts: tuple[int, list[Any], list[Any]] | None = field(default=None, repr=False)
    # What approving each waiting candidate would push past its memory file's load cut,
    # for the generation it was worked out at.
    _load_warnings: tuple[int, dict[str, str]] | None = field(default=None, repr=False)
    _settings_file: SettingsFile | None = field(default=None, repr=False)
    # The first look at a big store (core/first_look.py) and the generation it was taken
    # at: the queue's rows and the header counts until the full read is done.
    _first: tuple[int, Any] | None = field(default=None, repr=False)
    # (a sorted list, the one before it, the entries that changed between them).
    _lineage: list[tuple[list[Entry], list[Entry], dict[str, Entry | None]]] = field(
        default_factory=list, repr=False
    )

    # -- settings ------------------------------------------------------------------
    @property
    def settings(self) -> MemdeskSettings:
        """settings.toml, checked (core/settings.py); parsed again only after it changed."""
        if self._settings_file is None:
            self._settings_file = SettingsFile(self.store.root)
        return self._settings_file.current()

    # -- store access --------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._cache is not None

    @property
    def ready(self) -> bool:
        """The queue can show its rows: every entry was read, or the first look is
        current (nothing changed since)."""
        first = self._first
        return self._cache is not None or (first is not None and first[0] == self._generation)

    def first_look(self) -> dict[str, int]:
        """The header counts, and the candidates for `candidates`, without building every
        entry of a big store (blocking: call in a worker; `entries` does the full read
        later). A store the snapshot does not cover is read whole here (as cheap)."""
        from memdesk.core.first_look import first_look

        with self.lock:
            if self._cache is None:
                generation = self._generation
                look = first_look(self.store, self.today())
                self._marker_ids = look.marker_ids
                if not look.complete:
                    self._first = (generation, look)
                    return {**look.counts, "conflicts": self.conflict_count()}
        return self.counts()

    def read_all(self, stop: Callable[[], bool]) -> bool:
        """The full read after a first look (blocking: call in a worker); it ends early,
        returning False, once `stop()` (the desk closing), leaving the rest unread."""
        with self.lock:
            if self._cache is None and not self.store.files.scan(stop=stop):
                return False
        self.entries()
        return True

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
            # The last sorted list matches the cache but for the dirty ids (only this
            # method changes the cache, under the lock), unless the cache starts over.
            previous = self._sorted[1] if self._sorted is not None else None
            if self._cache is None:
                import time

                t0 = time.perf_counter()
                self._dirty.clear()
                self._cache = {e.id: e for e in self.store.entries()}
                self._first = None
                self.timings["load"] = time.perf_counter() - t0
                previous = None
            reread: dict[str, Entry | None] = {}  # id -> the entry before
            while self._dirty:
                entry_id = self._dirty.pop()
                reread.setdefault(entry_id, self._cache.get(entry_id))
                entry = self.store.find(entry_id)
                if entry is None:
                    self._cache.pop(entry_id, None)
                else:
                    self._cache[entry_id] = entry
            if previous is not None and len(reread) <= 64:
                # A few entries changed: move just those (sorting 10k costs more).
                ordered = list(previous)
                for before in reread.values():
                    take_out(ordered, before)
                for entry_id in reread:
                    if entry_id in self._cache:
                        bisect.insort(ordered, self._cache[entry_id], key=arrival)
                tally = self._tally
                if tally is not None and tally[0] is previous:
                    moved = dict(tally[2])
                    for entry_id, before in reread.items():
                        tally_add(moved, before, tally[1], -1)
                        tally_add(moved, self._cache.get(entry_id), tally[1], 1)
                    self._tally = (ordered, tally[1], moved)
                # What changed since `previous`, for the pair keeper (`_changes_since`).
                self._lineage.append((ordered, previous, {i: self._cache.get(i) for i in reread}))
                del self._lineage[:-32]
            else:
                ordered = sorted(self._cache.values(), key=arrival)
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

    def load_warnings(self) -> dict[str, str]:
        """Candidate id -> what approving it would push past its managed file's load
        cut (see core/memfiles/limits.py); worked out again only after a change."""
        cached = self._load_warnings
        if cached is not None and cached[0] == self._generation:
            return cached[1]
        if self._cache is None and self._first is not None:
            return {}  # before the full read (the refresh after it brings them)
        from memdesk.core.memfiles.status import approval_warnings

        generation = self._generation
        entries = self.entries()
        with self.lock:
            warnings = approval_warnings(self.store, entries)
        self._load_warnings = (generation, warnings)
        return warnings

    def candidates(self) -> list[Entry]:
        """Candidates in order of arrival (created, then id)."""
        first = self._first
        if self._cache is None and first is not None and first[0] == self._generation:
            return list(first[1].candidates)  # the full read is still to come
        return [e for e in self.entries() if e.status == "candidate"]

    def conflict_count(self) -> int:
        """Saved concurrent-edit conflicts plus entry files with git conflict markers."""
        with self.lock:
            if self._marker_ids is None:
                self._marker_ids = {
                    Path(p.path).stem
                    for p in self.store.entry_file_problems()
                    if p.kind == "conflict-markers"
                }
            try:
                saved = {p.stem for p in self.store.conflicts_dir.glob("*.json")}
            except OSError:
                saved = set()
            return len(saved) + len(self._marker_ids - saved)

    def counts(self) -> dict[str, int]:
        entries = self.entries()
        today = self.today()
        tally = self._tally
        if tally is not None and tally[0] is entries and tally[1] == today:
            counted = tally[2]
        else:
            counted = {"entries": 0, "candidates": 0, "due": 0}
            for entry in entries:
                tally_add(counted, entry, today, 1)
            self._tally = (entries, today, counted)
        return {**counted, "conflicts": self.conflict_count()}

    def counts_and_flags(self) -> dict[str, int]:
        """Header counts; without the model also the queue's flags, so a new row shows
        with its flags at once (only pairs of changed entries are looked for: cheap,
        once `sync_search` has found them all the first time). With the model the flags
        follow from `sync_search`, which embeds the changes first."""
        counts = self.counts()
        if self.search is None and self.flags_ready:
            # Never wait for the keeper here (this runs on the UI thread): when it is
            # busy, `flags_behind` tells the caller to leave the flags to a worker.
            self.refresh_duplicates(blocking=False)
        return counts

    # -- search --------------------------------------------------------------------
    @property
    def search_ready(self) -> bool:
        return self.search is not None

    def build_search(
        self,
        progress: Progress | None = None,
        stage: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Any:
        """Load the model and bring the index up to date (blocking: call in a worker).
        `stage(text)` names each step, `progress(done, total)` counts embeddings. Once
        `cancelled()` is true (the desk is closing) it stops waiting for the model and
        stops embedding at the next batch, and returns None (see core/abandon.py)."""
        import time

        from memdesk.core.abandon import Abandoned, run_abandonable, stop_when
        from memdesk.core.search import SearchService
        from memdesk.core.search.embedder import load_embedder

        t0 = time.perf_counter()
        if stage:
            stage("loading search model…")
        settings = self.settings.search
        index_dir = self.store.index_dir

        def counted(done: int, total: int) -> None:
            stop_when(cancelled)
            if progress:
                progress(done, total)

        try:
            loaded = run_abandonable(
                lambda: load_embedder(settings.model, index_dir / "model"), cancelled
            )
            service = SearchService(index_dir, settings, embedder=loaded.embedder)
            service.model_status = loaded.status
            if stage:
                stage("indexing entries…")
            # The pairs below are found among the entries just indexed: one ingested
            # meanwhile has no vector yet, and is paired by the sync its commit causes.
            indexed = self.entries()
            service.sync(indexed, progress=counted)
        except Abandoned:
            return None
        self.timings["index"] = time.perf_counter() - t0
        self.search = service
        self.search_status = f"search: hybrid ({service.model_status})"
        self.refresh_duplicates(indexed, cancelled=cancelled)
        return service

    def sync_search(self, cancelled: Callable[[], bool] = lambda: False) -> bool:
        """Bring the index up to date after a change (cheap: only changed entries),
        then the duplicate / contradiction flags; True when the flags changed."""
        entries = self.entries()
        if self.search is not None:
            self.search.sync(entries)
        return self.refresh_duplicates(entries, cancelled=cancelled)

    @property
    def flags_ready(self) -> bool:
        """The queue's pairs were found once (later calls only look at changes)."""
        return self._flags_found

    def _changes_since(
        self, old: Sequence[Entry] | None, new: Sequence[Entry]
    ) -> dict[str, Entry | None] | None:
        """The entries that changed between two of `entries`' lists (None: unknown)."""
        changes: dict[str, Entry | None] = {}
        lineage = list(self._lineage)
        while new is not old:
            step = next((s for s in reversed(lineage) if s[0] is new), None)
            if step is None or old is None:
                return None
            for entry_id, entry in step[2].items():
                changes.setdefault(entry_id, entry)  # the newest state wins
            new = step[1]
        return changes

    def _keeper(self) -> Any:
        """The one pair keeper (hold `_pairs_lock`)."""
        from memdesk.core.pairs import QueuePairs

        if self._pairs is None:
            self._pairs = QueuePairs(self.store.meta_dir)
        return self._pairs

    def refresh_duplicates(
        self,
        entries: Sequence[Entry] | None = None,
        *,
        blocking: bool = True,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> bool:
        """The same pairs the conflict screen lists (word overlap until the model is up),
        touching a candidate; only pairs of entries that changed since the last call are
        looked for again. With the model, call it after the index has the entries (the
        pairs read their vectors). True when the list changed. `blocking=False`: give up
        at once (and set `flags_behind`) when the keeper is busy. The first pass goes a
        slice of candidates at a time and stops once `cancelled()` (the desk closing)."""
        if entries is None:
            entries = self.entries()
        if blocking and not self._flags_found and not read_texts(entries, cancelled):
            self.flags_behind = True
            return False
        while True:
            if not self._pairs_lock.acquire(blocking=blocking):
                self.flags_behind = True
                return False
            try:
                kept = self._keeper()
                kept.update(entries, self.search, self._changes_since(kept.seen, entries))
                if kept.cover(kept.candidates, limit=PAIR_SLICE) == 0:
                    pairs = kept.known_pairs(candidates_only=True)
                    self._flags_found = True
                    self.flags_behind = False
                    changed = pairs != self.duplicates
                    self.duplicates = pairs
                    return changed
            finally:
                self._pairs_lock.release()
            if cancelled() or not blocking:  # the UI thread does one slice at most
                self.flags_behind = True
                return False

    def conflict_pairs(self, cancelled: Callable[[], bool] = lambda: False) -> list[Any] | None:
        """Every open pair among the live entries (what the conflict screen lists), from
        the keeper the queue's flags come from: the first call finds them all (seconds
        at 10k entries), later ones only the pairs of what changed. The keeper is held a
        slice of entries at a time, so the queue's flags are never held up by a whole
        pass. Blocking: call in a worker; None once `cancelled()`."""
        while True:
            entries = self.entries()
            with self._pairs_lock:
                kept = self._keeper()
                kept.update(entries, self.search, self._changes_since(kept.seen, entries))
                if kept.cover(limit=PAIR_SLICE) == 0:
                    pairs: list[Any] = kept.known_pairs()
                    return pairs
            if cancelled():
                return None

    def conflicts(self, cancelled: Callable[[], bool] = lambda: False) -> list[Any] | None:
        """Every open conflict (`core.conflicts.list_conflicts`) with the kept pairs and
        the cached entries; remembered for `known_conflicts`. Blocking: call in a
        worker; None once `cancelled()`."""
        from memdesk.core.conflicts import list_conflicts

        generation = self.generation
        pairs = self.conflict_pairs(cancelled)
        if pairs is None:
            return None
        items = list_conflicts(
            self.store, self.search, lock=self.lock, pairs=pairs, entries=self.entries()
        )
        from memdesk.tui.conflict_list import rows_of

        self._conflicts = (generation, items, rows_of(items))
        return items

    @property
    def known_conflicts(self) -> list[Any] | None:
        """The conflicts as last listed (maybe older than the data), None before."""
        return self._conflicts[1] if self._conflicts is not None else None

    @property
    def known_conflict_rows(self) -> list[Any] | None:
        """The conflict screen's rows for `known_conflicts` (made off the UI thread)."""
        return self._conflicts[2] if self._conflicts is not None else None

    @property
    def conflicts_current(self) -> bool:
        """`known_conflicts` was listed from the data as it is now."""
        return self._conflicts is not None and self._conflicts[0] == self._generation

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
