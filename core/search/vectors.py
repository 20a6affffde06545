"""The semantic side of the search index: vectors for entries, from cache or model.

A VectorIndex gives every entry the vector of its text: from the in-memory matrix
(vector_matrix.py), else the on-disk cache keyed by content hash (vector_cache.py), else
the embedding model, in batches. The SearchService owns one when a model is loaded and
shares its lock with it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search.embedder import Embedder
from memdesk.core.search.vector_cache import VectorCache, content_key
from memdesk.core.search.vector_matrix import VectorMatrix

EMBED_BATCH = 256
# Fewer texts than this without a vector in memory are embedded rather than reading the
# whole vector cache from disk for them (reading 100k vectors costs about as much as
# embedding a dozen texts).
LOAD_CACHE_AT = 16

Progress = Callable[[int, int], None]  # (embedded so far, total to embed)


def embedding_text(entry: Entry) -> str:
    return entry.search_text()


class VectorIndex:
    def __init__(
        self,
        embedder: Embedder,
        cache: VectorCache,
        matrix: VectorMatrix,
        lock: threading.RLock,
        text_of: Callable[[Entry], str] = embedding_text,
    ) -> None:
        self.embedder = embedder
        self.text_of = text_of  # what is embedded for an entry
        self.cache = cache
        self.matrix = matrix
        self.lock = lock

    def update(self, entries: Sequence[Entry]) -> None:
        """Vectors for these (new or changed) entries, into the matrix and the cache."""
        texts = [self.text_of(e) for e in entries]
        keys = [content_key(t) for t in texts]
        codes, scales, _ = self.vectors_for(keys, dict(zip(keys, texts, strict=True)).__getitem__)
        with self.lock:
            for i, entry in enumerate(entries):
                self.matrix.set_row(entry.id, keys[i], codes[i], scales[i])
            self.save()

    def sync(
        self, entries: Sequence[Entry], current: Mapping[str, Entry], progress: Progress | None
    ) -> int:
        """Give every entry its text's vector (cache, else the model) and drop the rows
        of entries that are gone. Returns how many texts were embedded."""
        keys = [content_key(self.text_of(e)) for e in entries]
        with self.lock:
            matrix = self.matrix
            fresh = matrix.n == 0
            known = matrix.live_keys()
            need = [
                i
                for i, entry in enumerate(entries)
                if (row := matrix.row.get(entry.id)) is None or known[row] != keys[i].encode()
            ]
            del known
        need_keys = [keys[i] for i in need]
        first: dict[str, int] = {}  # key -> an entry with that text, built if needed

        def text_of(key: str) -> str:
            # Texts only for what the model has to embed (100k texts would be ~20 MB).
            if not first:
                first.update((keys[i], i) for i in reversed(need))
            return self.text_of(entries[first[key]])

        if fresh:
            # First sync: the cache's table becomes the matrix, packed in place.
            embedded = self.embed_missing(
                list(dict.fromkeys(need_keys)), text_of, progress, load=True
            )
            codes, scales, placed = self.cache.take(need_keys)
            need = [need[j] for j in placed]
        else:
            codes, scales, embedded = self.vectors_for(need_keys, text_of, progress=progress)
        del need_keys
        with self.lock:
            if fresh and matrix.n == 0:
                matrix.replace(
                    [entries[i].id for i in need], [keys[i] for i in need], codes, scales
                )
            else:
                for gone in [i for i in matrix.ids if i not in current]:
                    self.matrix.drop_row(gone)
                for n, i in enumerate(need):
                    self.matrix.set_row(entries[i].id, keys[i], codes[n], scales[n])
            self.save()
        return embedded

    def embed_missing(
        self,
        keys: Sequence[str],
        text_of: Callable[[str], str],
        progress: Progress | None,
        *,
        load: bool,
    ) -> int:
        """Embed the texts of `keys` the cache lacks (reading it from disk first when
        `load`); they are written to disk at once. Returns how many were embedded."""
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

    def vectors_for(
        self,
        keys: Sequence[str],
        text_of: Callable[[str], str],
        *,
        progress: Progress | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Codes and scales for `keys` (`text_of(key)` is the text): from the matrix, the
        cache, else the model. Returns them with the number of texts embedded."""
        unique = list(dict.fromkeys(keys))
        with self.lock:
            own_rows = self.matrix.rows_holding(unique)
            own_codes = self.matrix.codes[list(own_rows.values())]
            own_scales = self.matrix.scales[list(own_rows.values())]
        own = {key: n for n, key in enumerate(own_rows)}
        rest = [k for k in unique if k not in own]
        # Many changed texts read the disk cache; a few are embedded.
        load = len(rest) >= LOAD_CACHE_AT
        embedded = self.embed_missing(rest, text_of, progress, load=load)
        codes = np.empty((len(keys), self.embedder.dim), np.int8)
        scales = np.empty(len(keys), np.float32)
        from_cache = [n for n, k in enumerate(keys) if k not in own]
        if from_cache:
            codes[from_cache], scales[from_cache] = self.cache.rows([keys[n] for n in from_cache])
        for n, key in enumerate(keys):
            if key in own:
                codes[n], scales[n] = own_codes[own[key]], own_scales[own[key]]
        return codes, scales, embedded

    def save(self) -> None:
        """Write new vectors to disk, compact the segments when due, and forget the
        cache's in-memory table (the matrix holds every live vector)."""
        if self.cache.needs_compaction:
            codes, scales, _ = self.matrix.live()
            self.cache.compact([k.decode() for k in self.matrix.live_keys()], codes, scales)
        self.cache.release()
