"""SearchService: keeps the full-text and vector indexes current and answers queries.

Independent of the Store: it works from a list of entries (`sync`) and one call per
changed entry (`update`, `remove`). State on disk under `index_dir`:
- `text/`     tantivy index (derived, rebuilt when unusable),
- `vectors/<model>/` embedding cache keyed by sha256 of the embedded text,
- `model/`    the assembled offline model folder,
- `search-state.json`  id -> (version, fingerprint) of what the text index holds.

Ranking (seed 004: filter, then relevance, then status): filters on status / kind /
scope / time first, then reciprocal rank fusion of the BM25 list and the cosine list,
then a status weight (confirmed > candidate > superseded / expired).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search.embedder import Embedder, load_embedder
from memdesk.core.search.memory import keep_freed_memory_small, release_free_memory
from memdesk.core.search.settings import SearchSettings
from memdesk.core.search.text_index import TextIndex, TextIndexBusy
from memdesk.core.search.tokenizer import query_terms, tokenize
from memdesk.core.search.vector_cache import VectorCache, content_key, dequantise

MODES: tuple[str, ...] = ("hybrid", "text", "semantic")
# 2: one int per entry (version and content hashed together), was [version, hex str].
STATE_VERSION = 2
EMBED_BATCH = 256
# Fewer texts than this without a vector in memory are embedded rather than reading the
# whole vector cache from disk for them (reading 100k vectors costs about as much as
# embedding a dozen texts).
LOAD_CACHE_AT = 16
# Rows scored per step: the float32 copy of one chunk stays small (2 MB at 512 dims).
SCORE_CHUNK = 1024
_KEY_DTYPE = "S64"  # sha256 hex of the embedded text (vector_cache.content_key)
# Multiplies the fused score: outdated knowledge stays findable but ranks lower.
STATUS_WEIGHT: dict[str, float] = {
    "confirmed": 1.0,
    "candidate": 0.9,
    "superseded": 0.5,
    "expired": 0.5,
}
# Cosine below which a semantic hit is noise, per model (tuned on the bilingual dev set).
MIN_SIMILARITY: dict[str, float] = {"use-multilingual": 0.2, "minilm-int8": 0.3}
_DEFAULT_MIN_SIMILARITY = 0.3

Progress = Callable[[int, int], None]  # (embedded so far, total to embed)
_LOAD = object()  # sentinel: load the embedder the settings name


@dataclass
class Hit:
    entry_id: str
    score: float
    reason: str
    matched_terms: list[str] = field(default_factory=list)
    similarity: float | None = None
    text_rank: int | None = None
    semantic_rank: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id,
            "id": self.entry_id,
            "score": round(self.score, 6),
            "reason": self.reason,
            "matched_terms": self.matched_terms,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "text_rank": self.text_rank,
            "semantic_rank": self.semantic_rank,
        }


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    embedded: int = 0  # texts actually run through the model (cache misses)
    rebuilt_text_index: bool = False
    text_index_busy: bool = False  # another process held the writer; retried next sync


def fingerprint(entry: Entry) -> int:
    """Changes whenever the version or anything the indexes hold changes. One 63-bit int:
    36 bytes per entry in memory, where a [version, hex string] pair took ~140 (14 MB at
    100k entries)."""
    data = [entry.version, entry.search_text(), entry.tags, entry.kind, entry.scope]
    data += [entry.status, entry.confidence]
    digest = hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def embedding_text(entry: Entry) -> str:
    return entry.search_text()


class SearchService:
    def __init__(
        self,
        index_dir: Path,
        settings: SearchSettings | Mapping[str, Any] | None = None,
        *,
        embedder: Embedder | None | object = _LOAD,
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
            self.embedder = embedder  # type: ignore[assignment]
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
        self._state: dict[str, int] = {} if self.text.rebuilt else self._load_state()
        # Vector matrix (int8 codes + one scale per row, see vector_cache.quantise) with
        # spare capacity; rows [0, _n) are live, one per entry.
        dim = self.embedder.dim if self.embedder else 0
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._keys = np.zeros(0, _KEY_DTYPE)  # content key of each row's vector
        self._codes = np.zeros((0, dim), np.int8)
        self._scales = np.zeros(0, np.float32)
        self._n = 0
        self._executor: ThreadPoolExecutor | None = None
        self._query_vectors: dict[str, np.ndarray] = {}

    @classmethod
    def for_store(cls, store: Any, *, progress: Progress | None = None) -> SearchService:
        """Open the service on a Store's index dir and bring it up to date."""
        service = cls(store.index_dir, getattr(store, "settings", None))
        service.sync(store.entries(), progress=progress)
        return service

    @property
    def has_model(self) -> bool:
        return self.embedder is not None

    # -- state -------------------------------------------------------------------
    @property
    def _state_path(self) -> Path:
        return self.index_dir / "search-state.json"

    @property
    def _state_log_path(self) -> Path:
        return self.index_dir / "search-state.log"

    def _load_state(self) -> dict[str, int]:
        """Snapshot plus the log of single updates since (one JSON line each)."""
        try:
            data = json.loads(self._state_path.read_text("utf-8"))
            if data.get("version") != STATE_VERSION:
                return {}
            state = dict(data["entries"])
        except (OSError, ValueError, KeyError, TypeError):
            return {}
        try:
            lines = self._state_log_path.read_text("utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines:
            try:
                entry_id, value = json.loads(line)
            except (ValueError, TypeError):
                continue  # a torn last line after a crash: that entry re-indexes
            if value is None:
                state.pop(entry_id, None)
            else:
                state[entry_id] = value
        return state

    def _save_state(self) -> None:
        tmp = self._state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"version": STATE_VERSION, "entries": self._state}), "utf-8")
        os.replace(tmp, self._state_path)
        self._state_log_path.unlink(missing_ok=True)

    def _log_state(self, entry_id: str, value: int | None) -> None:
        """One update without rewriting the whole snapshot (100k entries: ~5 MB)."""
        if not self._state_path.exists():
            self._save_state()
            return
        with self._state_log_path.open("a", encoding="utf-8") as log:
            log.write(json.dumps([entry_id, value]) + "\n")

    # -- keeping current ---------------------------------------------------------
    def sync(self, entries: Iterable[Entry], *, progress: Progress | None = None) -> SyncReport:
        """Index what changed since last time (by id -> version and fingerprint)."""
        entries = list(entries)
        report = SyncReport(rebuilt_text_index=self.text.rebuilt)
        with self._lock:
            if not report.rebuilt_text_index:
                # Another process (TUI, CLI) may have indexed since: read its work.
                self.text.index.reload()
                self._state = self._load_state()
            self.text.rebuilt = False
            if self.text.num_docs() != len(self._state):  # index and state disagree
                try:
                    self.text.clear()
                    self._state = {}
                except TextIndexBusy:
                    report.text_index_busy = True
            current = {e.id: e for e in entries}
            changed: list[Entry] = []
            marks: list[int] = []
            for entry in entries:
                known = self._state.get(entry.id)
                mark = fingerprint(entry)
                if known != mark:
                    changed.append(entry)
                    marks.append(mark)
                    report.added += known is None
                    report.updated += known is not None
            removed = [i for i in self._state if i not in current]
            report.removed = len(removed)
            if (changed or removed) and not report.text_index_busy:
                fresh = {e.id for e in changed if e.id not in self._state}
                try:
                    self.text.apply(changed, removed, fresh=fresh)
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
                self._save_state()
            self._entries = current
        report.embedded = self._sync_vectors(entries, current, progress)
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
            self._save_state()
        return self.sync(entries, progress=progress)

    def update(self, entry: Entry) -> None:
        """Keep both indexes current after one entry was added or changed."""
        self.update_many([entry])

    def update_many(self, entries: Sequence[Entry]) -> None:
        """Like `update` for several entries: one index commit, one embedding batch."""
        with self._lock:
            marks = {e.id: fingerprint(e) for e in entries}
            changed = [e for e in entries if self._state.get(e.id) != marks[e.id]]
            if changed:
                try:
                    self.text.apply(changed)
                    for entry in changed:
                        self._state[entry.id] = marks[entry.id]
                        self._log_state(entry.id, marks[entry.id])
                except TextIndexBusy:
                    pass  # state unchanged: the next sync indexes them
            for entry in entries:
                self._entries[entry.id] = entry
        if self.embedder is None or self.cache is None or not entries:
            return
        texts = [embedding_text(e) for e in entries]
        keys = [content_key(t) for t in texts]
        codes, scales, _ = self._vectors_for(keys, dict(zip(keys, texts, strict=True)).__getitem__)
        with self._lock:
            for i, entry in enumerate(entries):
                self._set_row(entry.id, keys[i], codes[i], scales[i])
            self._save_vectors()

    def remove(self, entry_id: str) -> None:
        with self._lock:
            if entry_id in self._state:
                try:
                    self.text.apply([], [entry_id])
                    del self._state[entry_id]
                    self._log_state(entry_id, None)
                except TextIndexBusy:
                    pass  # state unchanged: the next sync removes it
            self._entries.pop(entry_id, None)
            self._drop_row(entry_id)

    def _drop_row(self, entry_id: str) -> None:
        """Move the last row into the gap (the vector itself stays in the disk cache)."""
        row = self._row.pop(entry_id, None)
        if row is None:
            return
        last = self._n - 1
        if row != last:
            moved = self._ids[last]
            self._codes[row] = self._codes[last]
            self._scales[row] = self._scales[last]
            self._keys[row] = self._keys[last]
            self._ids[row] = moved
            self._row[moved] = row
        self._ids.pop()
        self._n -= 1

    # -- vectors -----------------------------------------------------------------
    def _sync_vectors(
        self, entries: Sequence[Entry], current: Mapping[str, Entry], progress: Progress | None
    ) -> int:
        """Give every entry its text's vector (cache, else the model) and drop the rows
        of entries that are gone. Returns how many texts were embedded."""
        if self.embedder is None or self.cache is None:
            return 0
        keys = [content_key(embedding_text(e)) for e in entries]
        with self._lock:
            fresh = self._n == 0
            known = self._keys[: self._n].tolist()
            need = [
                i
                for i, entry in enumerate(entries)
                if (row := self._row.get(entry.id)) is None or known[row] != keys[i].encode()
            ]
            del known
        need_keys = [keys[i] for i in need]
        first: dict[str, int] = {}  # key -> an entry with that text, built if needed

        def text_of(key: str) -> str:
            # Texts only for what the model has to embed (100k texts would be ~20 MB).
            if not first:
                first.update((keys[i], i) for i in reversed(need))
            return embedding_text(entries[first[key]])

        if fresh:
            # First sync: the cache's table becomes the matrix, packed in place.
            embedded = self._embed_missing(
                list(dict.fromkeys(need_keys)), text_of, progress, load=True
            )
            codes, scales, placed = self.cache.take(need_keys)
            need = [need[j] for j in placed]
        else:
            codes, scales, embedded = self._vectors_for(need_keys, text_of, progress=progress)
        del need_keys
        with self._lock:
            if fresh and self._n == 0:
                self._ids = [entries[i].id for i in need]
                self._row = {entry_id: row for row, entry_id in enumerate(self._ids)}
                self._keys = np.array([keys[i] for i in need], dtype=_KEY_DTYPE)
                self._codes, self._scales = codes, scales
                self._n = len(need)
            else:
                for gone in [i for i in self._ids if i not in current]:
                    self._drop_row(gone)
                for n, i in enumerate(need):
                    self._set_row(entries[i].id, keys[i], codes[n], scales[n])
            self._save_vectors()
        return embedded

    def _embed_missing(
        self,
        keys: Sequence[str],
        text_of: Callable[[str], str],
        progress: Progress | None,
        *,
        load: bool,
    ) -> int:
        """Embed the texts of `keys` the cache lacks (reading it from disk first when
        `load`); they are written to disk at once. Returns how many were embedded."""
        assert self.embedder is not None and self.cache is not None
        missing = self.cache.missing(keys, load=load and bool(keys))
        total = len(missing)
        if progress:
            progress(0, total)
        for start in range(0, total, EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            self.cache.put(batch, self.embedder.embed([text_of(k) for k in batch]))
            if progress:
                progress(min(start + EMBED_BATCH, total), total)
        self.cache.flush()
        return total

    def _vectors_for(
        self,
        keys: Sequence[str],
        text_of: Callable[[str], str],
        *,
        progress: Progress | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Codes and scales for `keys` (`text_of(key)` is the text): from the matrix, the
        cache, else the model. Returns them with the number of texts embedded."""
        assert self.embedder is not None and self.cache is not None
        unique = list(dict.fromkeys(keys))
        with self._lock:
            own_rows = self._rows_holding(unique)
            own_codes = self._codes[list(own_rows.values())]
            own_scales = self._scales[list(own_rows.values())]
        own = {key: n for n, key in enumerate(own_rows)}
        rest = [k for k in unique if k not in own]
        # Many changed texts read the disk cache; a few are embedded.
        load = len(rest) >= LOAD_CACHE_AT
        embedded = self._embed_missing(rest, text_of, progress, load=load)
        codes = np.empty((len(keys), self.embedder.dim), np.int8)
        scales = np.empty(len(keys), np.float32)
        from_cache = [n for n, k in enumerate(keys) if k not in own]
        if from_cache:
            codes[from_cache], scales[from_cache] = self.cache.rows([keys[n] for n in from_cache])
        for n, key in enumerate(keys):
            if key in own:
                codes[n], scales[n] = own_codes[own[key]], own_scales[own[key]]
        return codes, scales, embedded

    def _rows_holding(self, keys: Sequence[str]) -> dict[str, int]:
        """key -> a live row holding its vector, for those of `keys` the matrix has."""
        if not keys or self._n == 0:
            return {}
        live = self._keys[: self._n]
        if len(keys) <= 8:  # a few updates: scanning beats building a 100k-key dict
            found = {}
            for key in keys:
                rows = np.flatnonzero(live == key.encode())
                if len(rows):
                    found[key] = int(rows[0])
            return found
        wanted = set(keys)
        return {k: row for row, b in enumerate(live.tolist()) if (k := b.decode()) in wanted}

    def _save_vectors(self) -> None:
        """Write new vectors to disk, compact the segments when due, and forget the
        cache's in-memory table (the matrix holds every live vector)."""
        assert self.cache is not None
        if self.cache.needs_compaction:
            live = [k.decode() for k in self._keys[: self._n].tolist()]
            self.cache.compact(live, self._codes[: self._n], self._scales[: self._n])
        self.cache.release()

    def _set_row(self, entry_id: str, key: str, code: np.ndarray, scale: float) -> None:
        row = self._row.get(entry_id)
        if row is None:
            if self._n == len(self._codes):  # grow by half: amortised O(1) appends
                size = max(16, self._n + self._n // 2)
                codes = np.zeros((size, self._codes.shape[1]), np.int8)
                scales = np.zeros(size, np.float32)
                keys = np.zeros(size, _KEY_DTYPE)
                codes[: self._n] = self._codes[: self._n]
                scales[: self._n] = self._scales[: self._n]
                keys[: self._n] = self._keys[: self._n]
                self._codes, self._scales, self._keys = codes, scales, keys
            row = self._n
            self._n += 1
            self._ids.append(entry_id)
            self._row[entry_id] = row
        self._keys[row] = key.encode()
        self._codes[row] = code
        self._scales[row] = scale

    def embed_query(self, query: str) -> np.ndarray:
        assert self.embedder is not None
        vector = self._query_vectors.get(query)
        if vector is None:
            vector = self.embedder.embed([query])[0]
            if len(self._query_vectors) > 256:
                self._query_vectors.clear()
            self._query_vectors[query] = vector
        return vector

    def vector_of(self, entry_id: str) -> np.ndarray | None:
        """The entry's vector (float32, a new array) or None."""
        with self._lock:
            row = self._row.get(entry_id)
            return None if row is None else dequantise(self._codes[row], self._scales[row])

    def vectors(self) -> Mapping[str, np.ndarray]:
        """Every entry's vector by id, dequantised on access (no float32 copy of all)."""
        return _VectorView(self)

    def duplicates(
        self, entries: Sequence[Entry] | None = None, focus: Collection[str] | None = None
    ) -> list[Any]:
        """Exact / near / contradiction pairs (see duplicates.py), from cached vectors;
        `focus`: only pairs touching these ids."""
        return service_duplicates(self, entries, focus)

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
        if mode in ("hybrid", "semantic"):
            semantic_ranked = self._semantic(query, filters, depth)

        with self._lock:
            entries = self._entries
            allowed = self._time_filter(entries, since, until)
            text_ranked = [(i, s) for i, s in text_ranked if i in entries and allowed(i)]
            semantic_ranked = [(i, s) for i, s in semantic_ranked if i in entries and allowed(i)]
            return self._fuse(query, mode, text_ranked, semantic_ranked, entries, limit)

    @staticmethod
    def _time_filter(
        entries: Mapping[str, Entry], since: dt.datetime | None, until: dt.datetime | None
    ) -> Callable[[str], bool]:
        def ok(entry_id: str) -> bool:
            updated = entries[entry_id].updated
            if updated.tzinfo is None:  # hand-written files may omit the zone: UTC
                updated = updated.replace(tzinfo=dt.UTC)
            return (since is None or updated >= since) and (until is None or updated <= until)

        return ok

    def _semantic(
        self, query: str, filters: Mapping[str, list[str]], depth: int
    ) -> list[tuple[str, float]]:
        if self.embedder is None:
            return []
        query_vector = self.embed_query(query)
        with self._lock:
            n = self._n
            codes = self._codes[:n]
            scales = self._scales[:n]
            ids = self._ids[:n]
            entries = self._entries
        if n == 0:
            return []
        scores = _cosines(codes, scales, query_vector)
        active = {k: set(v) for k, v in filters.items() if v}
        if active:
            mask = np.fromiter(
                (
                    all(getattr(entries[i], k) in v for k, v in active.items())
                    if i in entries
                    else False
                    for i in ids
                ),
                dtype=bool,
                count=n,
            )
            scores = np.where(mask, scores, -np.inf)
        k = min(depth, n)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        floor = self.min_similarity if self.min_similarity is not None else -1.0
        return [(ids[r], float(scores[r])) for r in top if scores[r] >= floor]

    def _fuse(
        self,
        query: str,
        mode: str,
        text_ranked: list[tuple[str, float]],
        semantic_ranked: list[tuple[str, float]],
        entries: Mapping[str, Entry],
        limit: int,
    ) -> list[Hit]:
        k = self.settings.rrf_k
        text_rank = {i: r for r, (i, _) in enumerate(text_ranked, 1)}
        sem_rank = {i: r for r, (i, _) in enumerate(semantic_ranked, 1)}
        similarity = dict(semantic_ranked)
        bm25 = dict(text_ranked)
        candidates = list(
            dict.fromkeys([i for i, _ in text_ranked] + [i for i, _ in semantic_ranked])
        )
        terms = query_terms(query)
        # Convex fusion: BM25 scaled by the best BM25, cosine min-max scaled over the
        # semantic list; `text_weight` of the first plus the rest of the second.
        alpha = self.settings.text_weight
        bm25_max = max(bm25.values(), default=1.0) or 1.0
        sim_min = min(similarity.values(), default=0.0) if len(similarity) > 1 else 0.0
        sim_span = (max(similarity.values(), default=1.0) - sim_min) or 1.0
        hits: list[Hit] = []
        for entry_id in candidates:
            entry = entries[entry_id]
            if mode == "text":
                base = bm25[entry_id]
            elif mode == "semantic":
                base = similarity[entry_id]
            # Matched terms cost a tokenisation per hit: only when the fusion needs them,
            # otherwise for the hits returned (below).
            needs_terms = mode == "hybrid" and self.settings.fusion == "coverage-rrf"
            matched = matched_terms(terms, entry) if needs_terms and entry_id in text_rank else []
            if mode == "hybrid" and self.settings.fusion == "convex":
                base = 0.0
                if entry_id in bm25:
                    base += alpha * bm25[entry_id] / bm25_max
                if entry_id in similarity:
                    base += (1 - alpha) * (similarity[entry_id] - sim_min) / sim_span
            elif mode == "hybrid":
                base = 0.0
                if entry_id in text_rank:
                    text_weight = 1.0
                    if self.settings.fusion == "coverage-rrf" and terms:
                        # A BM25 hit matching one stray character of a long question
                        # counts less than one matching all of it (measured better on
                        # the bilingual dev set; bench/search_bilingual.py).
                        text_weight = max(len(matched), 1) / len(terms)
                    base += text_weight / (k + text_rank[entry_id])
                if entry_id in sem_rank:
                    base += 1.0 / (k + sem_rank[entry_id])
            weight = STATUS_WEIGHT.get(entry.status, 1.0)
            if entry.is_past_valid_until():
                weight = min(weight, STATUS_WEIGHT["expired"])
            hit = Hit(
                entry_id=entry_id,
                score=base * weight,
                reason="",
                matched_terms=matched,
                similarity=similarity.get(entry_id),
                text_rank=text_rank.get(entry_id),
                semantic_rank=sem_rank.get(entry_id),
            )
            hits.append(hit)
        hits.sort(key=lambda h: (-h.score, h.text_rank or 1 << 30, h.entry_id))
        hits = hits[:limit]
        for hit in hits:
            entry = entries[hit.entry_id]
            if hit.text_rank is not None and not hit.matched_terms:
                hit.matched_terms = matched_terms(terms, entry)
            hit.reason = _reason(hit, entry)
        return hits


def _cosines(codes: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """codes @ query * scales, a chunk of rows at a time in float32: no float32 copy of
    the whole matrix. einsum runs one thread: a matrix-vector product is memory-bound,
    and BLAS threads only contend with the rest of the machine (measured 4-30x slower
    under load in bench/search_speed.py)."""
    query = np.asarray(query, np.float32)
    scores = np.empty(len(codes), np.float32)
    buffer = np.empty((min(SCORE_CHUNK, len(codes)), codes.shape[1]), np.float32)
    for start in range(0, len(codes), SCORE_CHUNK):
        chunk = codes[start : start + SCORE_CHUNK]
        block = buffer[: len(chunk)]
        block[...] = chunk
        np.einsum("ij,j->i", block, query, out=scores[start : start + len(chunk)])
    scores *= scales
    return scores


class _VectorView(Mapping[str, np.ndarray]):
    """Read-only id -> vector view of a SearchService (see SearchService.vectors)."""

    def __init__(self, service: SearchService) -> None:
        self._service = service

    def __getitem__(self, entry_id: str) -> np.ndarray:
        vector = self._service.vector_of(entry_id)
        if vector is None:
            raise KeyError(entry_id)
        return vector

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._service._row

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._service._row))

    def __len__(self) -> int:
        return len(self._service._row)

    def stack(self, entry_ids: Sequence[str]) -> np.ndarray:
        """The vectors of `entry_ids` as one float32 matrix, dequantised in bulk (one
        array, not one per entry)."""
        service = self._service
        with service._lock:
            rows = np.fromiter(
                (service._row[i] for i in entry_ids), dtype=np.intp, count=len(entry_ids)
            )
            return dequantise(service._codes[rows], service._scales[rows])


def matched_terms(terms: Sequence[Any], entry: Entry) -> list[str]:
    text = entry.search_text() + "\n" + " ".join(entry.tags)
    tokens = set(tokenize(text))
    lowered = text.lower()
    out: list[str] = []
    for term in terms:
        if len(term.tokens) == 1:
            found = term.tokens[0] in tokens
        else:
            found = "".join(term.tokens) in lowered
        if found:
            out.append(term.display)
    return out


def _reason(hit: Hit, entry: Entry) -> str:
    parts: list[str] = []
    if hit.matched_terms:
        parts.append("matched " + ", ".join(hit.matched_terms))
    elif hit.text_rank is not None:
        parts.append("full-text match")
    if hit.similarity is not None:
        parts.append(f"similarity {hit.similarity:.2f}")
    if entry.status != "confirmed":
        parts.append(entry.status)
    return "; ".join(parts)


def service_duplicates(
    service: SearchService,
    entries: Sequence[Entry] | None = None,
    focus: Collection[str] | None = None,
):
    """Duplicates among the service's entries, reusing its cached vectors."""
    from memdesk.core.search.duplicates import find_duplicates

    pool = list(entries if entries is not None else service._entries.values())
    return find_duplicates(
        pool, service.embedder, vectors=service.vectors(), settings=service.settings, focus=focus
    )
