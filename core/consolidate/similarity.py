"""How consolidation measures similarity: the search model's stored pair vectors when a
model is loaded (centred for a model whose cosines crowd together), lexical vectors
otherwise. Which vectors a pool is compared with, and so which threshold row applies,
is the pair finders' one rule (core/pairs/measure.py); this section's keys override it."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.entry import Entry
from memdesk.core.pairs import PairThresholds
from memdesk.core.pairs.lexical_vectors import LexicalEmbedder
from memdesk.core.pairs.measure import PoolMatrix, pool_matrix, thresholds_for

log = logging.getLogger("memdesk.consolidate")


class PairEmbedder(Protocol):
    @property
    def name(self) -> str: ...
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class PairVectorSource(Protocol):
    """What consolidation needs of a search service: its model and its pair vectors."""

    @property
    def embedder(self) -> PairEmbedder | None: ...
    def pair_vectors(self) -> Mapping[str, np.ndarray]: ...


class WithSearch(Protocol):
    """The desk's or the CLI's services: a search service once one is loaded."""

    @property
    def search(self) -> PairVectorSource | None: ...


@dataclass
class Similarity:
    """Vectors for a pool of entries, from the search model or lexical hashing."""

    embedder: PairEmbedder
    vectors: Mapping[str, np.ndarray] | None = None
    source: str = "lexical"


def similarity_for(services: WithSearch | None, settings: ConsolidationSettings) -> Similarity:
    search = services.search if services is not None else None
    model = search.embedder if search is not None else None
    if settings.similarity == "search" and model is None:
        log.warning("consolidation.similarity = search but no model is loaded: lexical vectors")
    if search is not None and model is not None and settings.similarity in ("auto", "search"):
        # A view that dequantises on access: no float32 copy of every vector (centred
        # for a model whose cosines crowd together, as the pair finder compares them).
        return Similarity(model, search.pair_vectors(), source=f"model {model.name}")
    return Similarity(LexicalEmbedder(), None, source="lexical")


def pool_vectors(pool: Sequence[Entry], sim: Similarity) -> PoolMatrix:
    """The pool's vectors and the measure naming their threshold row (core/pairs)."""
    return pool_matrix(pool, sim.embedder, sim.vectors)


def pair_thresholds(settings: ConsolidationSettings, measure: str) -> PairThresholds:
    """The shared threshold row of `measure`, with this section's overrides."""
    return thresholds_for(
        measure,
        duplicate=settings.duplicate_similarity,
        contradiction=settings.contradiction_similarity,
        number_contradiction=settings.number_contradiction_similarity,
        rephrase=settings.rephrase_similarity,
    )


__all__ = [
    "PairVectorSource",
    "Similarity",
    "WithSearch",
    "pair_thresholds",
    "pool_vectors",
    "similarity_for",
]
