"""Which vectors a pair finder compares, and so which threshold row cuts them: one rule
for every finder that works on vectors (`memdesk duplicates`, the conflict screen and the
queue flags through the search service, consolidation).

The stored vectors are used when they cover the whole pool. The search service hands
out its pair vectors centred on their language's mean for a model whose cosines crowd
together (search/languages.py); such vectors say so (`CentredOnLanguage`) and take the
`centred` row, other stored vectors the `model` row. A pool the store's vectors do not
cover is embedded on the spot: a model's raw vectors take the `model` row, lexical
TF-IDF vectors (pairs/lexical_vectors.py) the `tfidf` row. The rows are in thresholds.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.pairs.lexical_vectors import LexicalEmbedder
from memdesk.core.pairs.thresholds import THRESHOLDS, PairThresholds


class Embeds(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class Stacks(Protocol):
    """A vector mapping that copies many rows out at once (the search service's views)."""

    def stack(self, entry_ids: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class CentredOnLanguage(Protocol):
    """Vectors centred on their language's mean (search/languages.py CentredVectors)."""

    centred_on_language: bool


@dataclass(frozen=True)
class PoolMatrix:
    vectors: np.ndarray | None  # one float32 row per pool entry; None: no vectors
    measure: str  # the THRESHOLDS row its cosines are cut with


def pool_matrix(
    pool: Sequence[Entry], embedder: Embeds | None, stored: Mapping[str, np.ndarray] | None
) -> PoolMatrix:
    """The pool's vectors (stored ones when they cover it, else embedded) and the
    measure that names their threshold row."""
    if stored and pool and all(e.id in stored for e in pool):
        ids = [e.id for e in pool]
        if isinstance(stored, Stacks):
            matrix = stored.stack(ids)
        else:
            matrix = np.stack([stored[i] for i in ids]).astype(np.float32)
        centred = isinstance(stored, CentredOnLanguage) and stored.centred_on_language
        return PoolMatrix(matrix, "centred" if centred else "model")
    measure = "tfidf" if isinstance(embedder, LexicalEmbedder) else "model"
    if embedder is None or not pool:
        return PoolMatrix(None, measure)
    vectors = embedder.embed([e.search_text() for e in pool])
    return PoolMatrix(vectors.astype(np.float32, copy=False), measure)


def thresholds_for(
    measure: str,
    *,
    duplicate: float | None = None,
    contradiction: float | None = None,
    number_contradiction: float | None = None,
    rephrase: float | None = None,
) -> PairThresholds:
    """The shared row of `measure` with the thresholds a person set (None: the row's)."""
    return THRESHOLDS[measure].with_settings(
        duplicate, contradiction, number_contradiction=number_contradiction, rephrase=rephrase
    )
