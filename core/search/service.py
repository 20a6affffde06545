"""SearchService: keeps the full-text and vector indexes current and answers queries.

Independent of the Store: it works from a list of entries (`sync`) and one call per
changed entry (`update`, `remove`). On disk under `index_dir`: `text/` the tantivy
index (rebuilt when unusable); `vectors/<model>/` vectors by sha256 of the text;
`model/` the offline model; `search-state.json` what the text index holds.

Ranking (filter, then relevance, then status): filters on status / kind / scope / time
first, then the configured fusion of the BM25 list and the cosine list (fusion.py), then
a status weight (confirmed > candidate > superseded / expired) and, for a question naming
a speaker or a date, a speaker weight (speakers.py) and a date weight (dates.py), in
ranking.py. The vectors live in a
VectorMatrix (vector_matrix.py), what the text index holds in IndexState (index_state.py).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search.context_vectors import CONTEXT_SHARE, ContextVectors
from memdesk.core.search.dates import EntryDates, asked_date
from memdesk.core.search.embedder import Embedder, LoadFromSettings, load_embedder, query_vector
from memdesk.core.search.filters import row_mask, time_filter
from memdesk.core.search.hits import Hit
from memdesk.core.search.index_state import IndexState, fingerprint
from memdesk.core.search.languages import (
    CentredVectors,
    EntryLanguages,
    LanguageCentering,
    language_of,
    sample_means,
)
from memdesk.core.search.memory import keep_freed_memory_small, release_free_memory
from memdesk.core.search.neighbours import (
    NEIGHBOUR_SHARE,
    SessionNeighbours,
    lift_by_neighbours,
)
from memdesk.core.search.ranking import fuse
from memdesk.core.search.settings import SearchSettings
from memdesk.core.search.speakers import Speakers
from memdesk.core.search.text_index import TextIndex, TextIndexBusy
from memdesk.core.search.vector_cache import VectorCache
from memdesk.core.search.vector_matrix import VectorMatrix, VectorView, cosines
from memdesk.core.search.vectors import Progress, VectorIndex

MODES: tuple[str, ...] = ("hybrid", "text", "semantic")
# Cosine below which a semantic hit is noise, per model (tuned on the bilingual dev set).
# e5 puts unrelated texts near 0.8 (its floor only drops clear noise).
MIN_SIMILARITY = {"e5-multilingual": 0.7, "use-multilingual": 0.2, "minilm-int8": 0.3}
_DEFAULT_MIN_SIMILARITY = 0.3

_LOAD: Final = LoadFromSettings.LOAD  # load the embedder the settings name


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    embedded: int = 0  # texts actually run through the model (cache misses)
    rebuilt_text_index: bool = False
    text_index_busy: bool = False  # another process held the writer; retried next sync


class SearchService:
    def __init__(
        self,
        index_dir: Path,
        settings: SearchSettings | Mapping[str, Any] | None = None,
        *,
        embedder: Embedder | LoadFromSettings | None = _LOAD,
    ) -> None:
        keep_freed_memory_small()
        self.index_dir = Path(index_dir)
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self.settings = (
            settings
            if isinstance(settings, SearchSettings)
            else SearchSettings.from_mapping(settings)
        )
        if embedder is _LOAD:
            loaded = load_embedder(self.settings.model, self.index_dir / "model")
            self.embedder: Embedder | None = loaded.embedder
            self.model_status = loaded.status
        else:
            self.embedder = embedder
            self.model_status = (
                f"model {embedder.name}" if embedder is not None else "no embedding model"
            )
        self.min_similarity = self.settings.min_similarity
        if self.min_similarity is None and self.embedder is not None:
            self.min_similarity = MIN_SIMILARITY.get(self.embedder.name, _DEFAULT_MIN_SIMILARITY)
        self.text = TextIndex(self.index_dir / "text")
        self.cache: VectorCache | None = None
        if self.embedder is not None:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.embedder.name)
            self.cache = VectorCache(self.index_dir / "vectors" / safe, self.embedder.dim)
        self._lock = threading.RLock()
        self._entries: dict[str, Entry] = {}
        # Each entry's place in its session: the text index's `context` field.
        self._neighbours = SessionNeighbours()
        self._speakers = Speakers()  # who said each turn of a session (speakers.py)
        self._dates = EntryDates()  # the days each entry is about (dates.py)
        self._index_state = IndexState(self.index_dir)
        self._state: dict[str, int] = {} if self.text.rebuilt else self._index_state.load()
        # One int8 row per entry (vector_matrix.py), under self._lock.
        self._matrix = VectorMatrix(self.embedder.dim if self.embedder else 0)
        self._executor: ThreadPoolExecutor | None = None
        self._query_vectors: dict[str, np.ndarray] = {}
        # Cross-lingual scoring (languages.py): recomputed when the vectors change.
        self._vector_changes = 0
        self._languages = EntryLanguages()
        # Per-language scoring and text-blind credit where measured to pay (not USE).
        self._cross_lingual = bool(getattr(self.embedder, "centre_languages", False))
        self._sample_means: dict[int, np.ndarray] | None = None
        self._vectors: VectorIndex | None = None
        if self.embedder is not None and self.cache is not None:
            self._vectors = VectorIndex(self.embedder, self.cache, self._matrix, self._lock)
        # Entries said in a session also get the vector of their passage (date and
        # neighbours around them), blended into their cosine (context_vectors.py).
        self._context: ContextVectors | None = None
        if self.embedder is not None and self.cache is not None:
            directory = self.cache.dir.with_name(self.cache.dir.name + "@context")
            self._context = ContextVectors(self.embedder, directory, self._lock, CONTEXT_SHARE)

    @classmethod
    def for_store(cls, store: Any, *, progress: Progress | None = None) -> SearchService:
        """Open the service on a Store's index dir and bring it up to date."""
        service = cls(store.index_dir, getattr(store, "settings", None))
        service.sync(store.entries(), progress=progress)
        return service

    @property
    def has_model(self) -> bool:
        return self.embedder is not None

    # -- keeping current ---------------------------------------------------------
    def sync(self, entries: Iterable[Entry], *, progress: Progress | None = None) -> SyncReport:
        """Index what changed since last time (by id -> version and fingerprint)."""
        entries = list(entries)
        report = SyncReport(rebuilt_text_index=self.text.rebuilt)
        with self._lock:
            if not report.rebuilt_text_index:
                # Another process (TUI, CLI) may have indexed since: read its work.
                self.text.index.reload()
                self._state = self._index_state.load()
            self.text.rebuilt = False
            if self.text.num_docs() != len(self._state):  # index and state disagree
                try:
                    self.text.clear()
                    self._state = {}
                except TextIndexBusy:
                    report.text_index_busy = True
            current = {e.id: e for e in entries}
            self._neighbours.rebuild(current)
            self._speakers.rebuild(current)
            changed: list[Entry] = []
            marks: list[int] = []
            contexts: dict[str, str] = {}
            for entry in entries:
                known = self._state.get(entry.id)
                context = self._neighbours.context(entry, current)
                mark = fingerprint(entry, context)
                if known != mark:
                    changed.append(entry)
                    marks.append(mark)
                    contexts[entry.id] = context
                    report.added += known is None
                    report.updated += known is not None
            removed = [i for i in self._state if i not in current]
            report.removed = len(removed)
            if (changed or removed) and not report.text_index_busy:
                fresh = {e.id for e in changed if e.id not in self._state}
                try:
                    self.text.apply(
                        changed, removed, fresh=fresh, context_of=lambda e: contexts[e.id]
                    )
                except TextIndexBusy:
                    # Another process is indexing the same store; it brings the text
                    # index up to date, and the state left as is makes the next sync
                    # retry whatever it did not cover.
                    changed, removed, marks = [], [], []
                    report.text_index_busy = True
                for entry, mark in zip(changed, marks, strict=True):
                    self._state[entry.id] = mark
                for entry_id in removed:
                    del self._state[entry_id]
                self._index_state.save(self._state)
            self._entries = current
            contexts.clear()
        report.embedded = (
            self._vectors.sync(entries, current, progress) if self._vectors is not None else 0
        )
        if self._context is not None:
            report.embedded += self._context.sync(current, self._neighbours, progress)
        self._vector_changes += 1
        del entries, current
        release_free_memory()  # the writer heap and sync temporaries (a few ms)
        return report

    def sync_async(
        self, entries: Iterable[Entry], *, progress: Progress | None = None
    ) -> Future[SyncReport]:
        """`sync` on a worker thread; searches keep working on the previous vectors."""
        return self._worker().submit(self.sync, list(entries), progress=progress)

    def follow(self, store: Any, *, background: bool = True) -> Callable[[], None]:
        """Keep current with a Store: each committed change updates or removes the
        entries it names (on the worker thread when `background`, in commit order).
        Returns the function that stops following."""

        def apply(ids: list[str]) -> None:
            found = {i: store.find(i) for i in ids}
            self.update_many([e for e in found.values() if e is not None])
            for entry_id, entry in found.items():
                if entry is None:
                    self.remove(entry_id)

        def on_change(change: Any) -> None:
            ids = list(change.ids)
            if background:
                self._worker().submit(apply, ids)
            else:
                apply(ids)

        return store.subscribe(on_change)

    def wait_idle(self, timeout: float | None = None) -> None:
        """Block until background work submitted so far (sync_async, follow) is done."""
        if self._executor is not None:
            self._executor.submit(lambda: None).result(timeout=timeout)

    def _worker(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memdesk-embed")
        return self._executor

    def rebuild(self, entries: Iterable[Entry], *, progress: Progress | None = None) -> SyncReport:
        """Throw the text index away and index everything again (vectors stay cached)."""
        with self._lock:
            self.text.clear()
            self._state = {}
            self._index_state.save(self._state)
        return self.sync(entries, progress=progress)

    def update(self, entry: Entry) -> None:
        """Keep both indexes current after one entry was added or changed."""
        self.update_many([entry])

    def update_many(self, entries: Sequence[Entry]) -> None:
        """Like `update` for several entries: one index commit, one embedding batch."""
        with self._lock:
            for entry in entries:
                self._entries[entry.id] = entry
            touched = self._neighbours.update([e.id for e in entries], self._entries)
            self._speakers.update([e.id for e in entries], self._entries)
            self._reindex(touched)
        if self._vectors is not None and entries:
            self._vectors.update(entries)
        if self._context is not None and entries:
            self._context.update(touched, self._entries, self._neighbours)
            self._vector_changes += 1

    def _reindex(self, ids: Collection[str], removed: Sequence[str] = ()) -> None:
        """Bring these entries' text documents up to date (their text or their context
        changed) and drop `removed`, in one commit; under self._lock."""
        entries = self._entries
        contexts = {i: self._neighbours.context(entries[i], entries) for i in ids if i in entries}
        marks = {i: fingerprint(entries[i], c) for i, c in contexts.items()}
        changed = [entries[i] for i, mark in marks.items() if self._state.get(i) != mark]
        removed = [i for i in removed if i in self._state]
        if not changed and not removed:
            return
        try:
            self.text.apply(changed, removed, context_of=lambda e: contexts[e.id])
        except TextIndexBusy:
            return  # state unchanged: the next sync indexes them
        for entry in changed:
            self._state[entry.id] = marks[entry.id]
            self._index_state.log(self._state, entry.id, marks[entry.id])
        for entry_id in removed:
            del self._state[entry_id]
            self._index_state.log(self._state, entry_id, None)

    def remove(self, entry_id: str) -> None:
        with self._lock:
            self._entries.pop(entry_id, None)
            neighbours = self._neighbours.update([entry_id], self._entries)
            self._speakers.update([entry_id], self._entries)
            self._reindex(neighbours - {entry_id}, removed=[entry_id])
            self._matrix.drop_row(entry_id)
            self._vector_changes += 1
        if self._context is not None:
            self._context.drop(entry_id)
            self._context.update(neighbours - {entry_id}, self._entries, self._neighbours)

    # -- vectors -----------------------------------------------------------------
    def embed_query(self, query: str) -> np.ndarray:
        assert self.embedder is not None
        vector = self._query_vectors.get(query)
        if vector is None:
            vector = query_vector(self.embedder, query)
            if len(self._query_vectors) > 256:
                self._query_vectors.clear()
            self._query_vectors[query] = vector
        return vector

    def vector_of(self, entry_id: str) -> np.ndarray | None:
        """The entry's vector (float32, a new array) or None."""
        with self._lock:
            return self._matrix.vector(entry_id)

    def vectors(self) -> Mapping[str, np.ndarray]:
        """Every entry's vector by id, dequantised on access (no float32 copy of all)."""
        return VectorView(self._matrix, self._lock)

    def pair_vectors(self) -> Mapping[str, np.ndarray]:
        """The vectors the pair finder compares: as stored, or centred on their
        language's mean for a model whose cosines crowd together (languages.py)."""
        if self.embedder is None or not getattr(self.embedder, "anisotropic", False):
            return self.vectors()
        if self._sample_means is None:
            self._sample_means = sample_means(self.embedder.embed)
        with self._lock:
            codes, scales, ids = self._matrix.live()
            centring = self._centring(codes, scales, ids)
        return CentredVectors(self.vectors(), centring, self._languages.label, self._sample_means)

    def duplicates(
        self, entries: Sequence[Entry] | None = None, focus: Collection[str] | None = None
    ) -> list[Any]:
        """Exact / near / contradiction pairs (core/pairs) from cached vectors; `focus`:
        only pairs touching these ids. An entry not indexed yet waits for its vector
        (raw e5 cosines, 0.8 for unrelated texts, would all read as rephrasings)."""
        from memdesk.core.pairs import find_duplicates

        vectors = self.pair_vectors()
        pool = list(entries if entries is not None else self.entries())
        if isinstance(vectors, CentredVectors):
            pool = [e for e in pool if e.id in vectors]
        return find_duplicates(
            pool, self.embedder, vectors=vectors, settings=self.settings, focus=focus
        )

    # -- searching ---------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        status: Iterable[str] | None = None,
        kind: Iterable[str] | None = None,
        scope: Iterable[str] | None = None,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        limit: int = 10,
    ) -> list[Hit]:
        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; allowed: {', '.join(MODES)}")
        if not query.strip():
            return []
        if self.embedder is None:
            mode = "text"  # said once through model_status; full text keeps working
        filters = {"status": list(status or []), "kind": list(kind or [])}
        filters["scope"] = list(scope or [])
        depth = max(limit * 5, 50)
        # Time filters are applied after retrieval: fetch deeper so `limit` still fills.
        if since or until:
            depth = max(depth, limit * 50)

        text_ranked: list[tuple[str, float]] = []
        if mode in ("hybrid", "text"):
            text_ranked = [
                (h.entry_id, h.score) for h in self.text.search(query, limit=depth, filters=filters)
            ]
        semantic_ranked: list[tuple[str, float]] = []
        cosine: dict[str, float] = {}
        if mode in ("hybrid", "semantic"):
            semantic_ranked, cosine = self._semantic(query, filters, depth)

        with self._lock:
            entries = self._entries
            allowed = time_filter(entries, since, until)
            text_ranked = [(i, s) for i, s in text_ranked if i in entries and allowed(i)]
            semantic_ranked = [(i, s) for i, s in semantic_ranked if i in entries and allowed(i)]
            named, asked = self._speakers.named_in(query), asked_date(query)

            def weight(entry_id: str) -> float:
                by_date = self._dates.weight(entries[entry_id], asked)
                return self._speakers.weight(entry_id, named) * by_date

            return fuse(
                query,
                mode,
                text_ranked,
                semantic_ranked,
                cosine,
                entries,
                limit,
                settings=self.settings,
                cross_lingual=self._cross_lingual,
                weight=weight,
            )

    def _semantic(
        self, query: str, filters: Mapping[str, list[str]], depth: int
    ) -> tuple[list[tuple[str, float]], dict[str, float]]:
        """(id, ranking score) best first, and each hit's cosine to show."""
        if self.embedder is None:
            return [], {}
        query_vector = self.embed_query(query)
        with self._lock:
            codes, scales, ids = self._matrix.live()
            n = len(ids)
            entries = self._entries
            centring = self._centring(codes, scales, ids) if self._cross_lingual else None
        if n == 0:
            return [], {}
        # Ranked by the cosine blended with the passage's; shown: the entry's own.
        own = cosine = cosines(codes, scales, query_vector)
        if self._context is not None:
            stamp = (self._vector_changes, n)
            cosine = self._context.blend(own, self._matrix.row, query_vector, stamp)
        scores = cosine
        if centring is not None:
            scores = centring.scores(cosine, codes, scales, query_vector, language_of(query))
        with self._lock:
            mask = row_mask(entries, ids, filters)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        k = min(depth, n)
        top = np.argpartition(-scores, k - 1)[:k]
        floor = self.min_similarity if self.min_similarity is not None else -1.0
        with self._lock:
            if self._matrix.n != n:  # rows came or went while the cosines ran: no lift
                lifted = [(int(r), float(scores[r]), float(cosine[r])) for r in top]
                lifted.sort(key=lambda item: -item[1])
            else:
                lifted = lift_by_neighbours(
                    scores, cosine, top, ids, self._matrix.row, self._neighbours, NEIGHBOUR_SHARE
                )
        # An entry stays when it or a neighbour clears the floor.
        kept = [(r, score) for r, score, best in lifted[:k] if best >= floor]
        return [(ids[r], score) for r, score in kept], {ids[r]: float(own[r]) for r, _ in kept}

    def _centring(
        self, codes: np.ndarray, scales: np.ndarray, ids: Sequence[str]
    ) -> LanguageCentering:
        """Per-language centring of the current vectors (languages.py); under the lock."""
        stamp = (self._vector_changes, len(ids))
        return self._languages.refresh(codes, scales, ids, self._entries, stamp)

    def entries(self) -> list[Entry]:
        """The entries the service was last brought up to date with."""
        with self._lock:
            return list(self._entries.values())

    def forget_query_vectors(self) -> None:
        """Drop the memo of embedded queries (benchmarks time the embedding too)."""
        self._query_vectors.clear()
