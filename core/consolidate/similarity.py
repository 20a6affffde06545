"""How consolidation measures similarity: the search model's stored vectors when one is
loaded (centred for a model whose cosines crowd together), lexical vectors otherwise,
and the threshold row of the measure used (core/pairs/thresholds.py)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.entry import Entry
from memdesk.core.pairs import THRESHOLDS, PairThresholds
from memdesk.core.pairs.lexical_vectors import LexicalEmbedder

log = logging.getLogger("memdesk.consolidate")


@dataclass
class Similarity:
    """Vectors for a pool of entries, from the search model or lexical hashing."""

    embedder: Any
    vectors: Mapping[str, np.ndarray] | None = None
    source: str = "lexical"


def similarity_for(services: Any, settings: ConsolidationSettings) -> Similarity:
    search = getattr(services, "search", None) if services is not None else None
    model = getattr(search, "embedder", None)
    if settings.similarity == "search" and model is None:
        log.warning("consolidation.similarity = search but no model is loaded: lexical vectors")
    if model is not None and settings.similarity in ("auto", "search"):
        vectors: Mapping[str, np.ndarray] = {}
        vector_of = getattr(search, "vector_of", None)
        if callable(getattr(search, "pair_vectors", None)):
            # A view that dequantises on access: no float32 copy of every vector (centred
            # for a model whose cosines crowd together, as the pair finder compares them).
            vectors = search.pair_vectors()
        elif callable(getattr(search, "vectors", None)):
            vectors = search.vectors()
        elif callable(vector_of):
            found: dict[str, np.ndarray] = {}
            entries_of = getattr(search, "entries", None)
            for entry in entries_of() if callable(entries_of) else []:
                vector = vector_of(entry.id)
                if vector is not None:
                    found[entry.id] = vector
            vectors = found
        return Similarity(model, vectors, source=f"model {model.name}")
    return Similarity(LexicalEmbedder(), None, source="lexical")


def holds_pool(pool: Sequence[Entry], sim: Similarity) -> bool:
    """Whether the stored vectors cover the whole pool (else it is embedded here)."""
    return bool(sim.vectors) and all(e.id in sim.vectors for e in pool)


def pool_vectors(pool: Sequence[Entry], sim: Similarity) -> np.ndarray:
    if sim.vectors is not None and holds_pool(pool, sim):
        stack = getattr(sim.vectors, "stack", None)  # SearchService.vectors(): one copy
        if callable(stack):
            return stack([e.id for e in pool])
        return np.stack([sim.vectors[e.id] for e in pool]).astype(np.float32)
    return sim.embedder.embed([e.search_text() for e in pool]).astype(np.float32)


def pair_thresholds(
    settings: ConsolidationSettings, sim: Similarity, stored: bool = False
) -> PairThresholds:
    """The shared threshold row of the measure `sim` uses, with this section's overrides."""
    if isinstance(sim.embedder, LexicalEmbedder):
        measure = "tfidf"
    elif stored and getattr(sim.embedder, "anisotropic", False):
        # The search service's pair vectors are centred for this model (vectors embedded
        # here, for a pool the index does not hold whole, are not: they keep `model`).
        measure = "centred"
    else:
        measure = "model"
    row = THRESHOLDS[measure]
    overrides = {
        "duplicate": settings.duplicate_similarity,
        "contradiction": settings.contradiction_similarity,
        "number_contradiction": settings.number_contradiction_similarity,
        "rephrase": settings.rephrase_similarity,
    }
    return dataclasses.replace(row, **{k: v for k, v in overrides.items() if v is not None})


__all__ = ["Similarity", "holds_pool", "pair_thresholds", "pool_vectors", "similarity_for"]
