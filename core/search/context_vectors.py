"""A second vector for entries said in a session: the entry read with its neighbours.

A question often needs more than the entry that answers it: "When did Melanie paint a
sunrise?" is answered by "By the way, take a look at this." next to "I painted that lake
sunrise last year", on a day only the session date tells. The full-text side sees the
neighbours through its `context` field (neighbours.py); this is the semantic side of the
same idea. Each entry with a neighbour in its session also gets the vector of its
passage (`SessionNeighbours.passage`: the session date, the previous entry, the entry,
the next entry), and its cosine to a question is blended with the entry's own:
`(1 - CONTEXT_SHARE) x own + CONTEXT_SHARE x passage`. The entry's own vector stays what
the pair finder compares (passages of adjacent entries share two thirds of their text).

The passage vectors live in their own matrix and cache (`vectors/<model>@context/`),
so entries without a session order (hand-written notes, the bilingual set) cost nothing.
A changed entry re-embeds its own passage and those of its two neighbours.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search.embedder import Embedder
from memdesk.core.search.neighbours import SessionNeighbours
from memdesk.core.search.vector_cache import VectorCache
from memdesk.core.search.vector_matrix import VectorMatrix, cosines
from memdesk.core.search.vectors import Progress, VectorIndex

# Weight of the passage cosine in an entry's semantic score (LoCoMo dev, docs/search.md).
CONTEXT_SHARE = 0.65


class ContextVectors:
    """Passage vectors of the entries that have session neighbours; under `lock`."""

    def __init__(
        self, embedder: Embedder, directory: Path, lock: threading.RLock, share: float
    ) -> None:
        self.share = share
        self.matrix = VectorMatrix(embedder.dim)
        self._lock = lock
        self._embedder = embedder
        self._cache = VectorCache(directory, embedder.dim)
        self._rows_of: tuple[object, np.ndarray, np.ndarray] | None = None
        self._version = 0  # bumped whenever the passage matrix changes

    def sync(
        self,
        entries: Mapping[str, Entry],
        neighbours: SessionNeighbours,
        progress: Progress | None = None,
    ) -> int:
        """Every entry with a neighbour gets its passage's vector; others lose theirs.
        Returns how many passages were embedded."""
        with self._lock:
            found = {i: neighbours.passage(e, entries) for i, e in entries.items()}
            passages = {i: p for i, p in found.items() if p is not None}
            held = {i: entries[i] for i in passages}
        del found
        # A second phase of progress, told only when it has passages to embed.
        told = None if progress is None else _when_any(progress)
        embedded = self._index(passages).sync(list(held.values()), held, told)
        with self._lock:
            self._version += 1
        return embedded

    def update(
        self, ids: Collection[str], entries: Mapping[str, Entry], neighbours: SessionNeighbours
    ) -> None:
        """Re-embed the passages of `ids` (entries changed, or their neighbours did)."""
        with self._lock:
            found = {i: neighbours.passage(entries[i], entries) for i in ids if i in entries}
            for entry_id in ids:
                if found.get(entry_id) is None:
                    self.matrix.drop_row(entry_id)
            passages = {i: p for i, p in found.items() if p is not None}
            changed = [entries[i] for i in passages]
        if changed:
            self._index(passages).update(changed)
        with self._lock:
            self._version += 1

    def _index(self, passages: Mapping[str, str]) -> VectorIndex:
        """The passage matrix and cache, embedding `passages` (texts live only while a
        sync or update needs them: they are 3x the entries')."""
        return VectorIndex(
            self._embedder, self._cache, self.matrix, self._lock, text_of=lambda e: passages[e.id]
        )

    def drop(self, entry_id: str) -> None:
        with self._lock:
            self.matrix.drop_row(entry_id)
            self._version += 1

    def blend(
        self, cosine: np.ndarray, row_of: Mapping[str, int], query: np.ndarray, stamp: object
    ) -> np.ndarray:
        """`cosine` (one per row of the entries' matrix, `row_of` its rows) with each
        entry that has a passage vector blended with its passage's cosine (a new array).
        `stamp` changes whenever the entries' matrix does."""
        with self._lock:
            codes, scales, context_ids = self.matrix.live()
            if not context_ids:
                return cosine
            own_rows, context_rows = self._rows(context_ids, row_of, len(cosine), stamp)
        if not len(own_rows):
            return cosine
        passage = cosines(codes, scales, query)  # the live views: no copy of the matrix
        blended = cosine.copy()
        blended[own_rows] = (1 - self.share) * cosine[own_rows] + self.share * passage[context_rows]
        return blended

    def _rows(
        self, context_ids: Sequence[str], row_of: Mapping[str, int], n: int, stamp: object
    ) -> tuple[np.ndarray, np.ndarray]:
        """(row in the entries' matrix, row in the passage matrix) of every entry in
        both; memoised until either matrix changes (a dict lookup per entry)."""
        stamp = (stamp, n, self._version)
        if self._rows_of is not None and self._rows_of[0] == stamp:
            return self._rows_of[1], self._rows_of[2]
        pairs = [
            (own, at)
            for at, entry_id in enumerate(context_ids)
            if (own := row_of.get(entry_id)) is not None and own < n
        ]
        own_rows = np.fromiter((p[0] for p in pairs), dtype=np.intp, count=len(pairs))
        context_rows = np.fromiter((p[1] for p in pairs), dtype=np.intp, count=len(pairs))
        self._rows_of = (stamp, own_rows, context_rows)
        return own_rows, context_rows


def _when_any(progress: Progress) -> Progress:
    def tell(done: int, total: int) -> None:
        if total:
            progress(done, total)

    return tell
