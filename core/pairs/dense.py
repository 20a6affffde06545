"""Pairs from vectors (the search model's, or any embedder's), block by block.

- exact: same sha256 of the normalised summary;
- near / contradiction: the one verdict (verdict.py) on every pair whose cosine reaches
  the lowest threshold of the row of the vectors compared (measure.py: `centred` for
  the search service's centred vectors, `model` for raw ones); cross-lingual pairs
  count when the model maps both languages into one space;
- across languages (centred vectors only): mutual best matches with a margin over each
  side's nearest entries of the other language (crosslingual.py).
`[search] duplicate_similarity` and `contradiction_similarity`, when set, override that row.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.pairs.crosslingual import cross_lingual_candidates, cross_lingual_verdict
from memdesk.core.pairs.measure import Embeds, pool_matrix, thresholds_for
from memdesk.core.pairs.pair import DuplicatePair, make_pair, ordered, sorted_key
from memdesk.core.pairs.thresholds import PairThresholds
from memdesk.core.pairs.verdict import Statement, verdict

DEFAULT_STATUSES: tuple[str, ...] = ("candidate", "confirmed")
_BLOCK = 1024


class PairSettings(Protocol):
    """The `[search]` keys that move the row (SearchSettings has them; None: unset)."""

    @property
    def duplicate_similarity(self) -> float | None: ...
    @property
    def contradiction_similarity(self) -> float | None: ...


def model_thresholds(settings: PairSettings | None, measure: str = "model") -> PairThresholds:
    """The row of `measure` (measure.py) with the `[search]` overrides a person set."""
    if settings is None:
        return thresholds_for(measure)
    return thresholds_for(
        measure,
        duplicate=settings.duplicate_similarity,
        contradiction=settings.contradiction_similarity,
    )


def find_duplicates(
    entries: Sequence[Entry],
    embedder: Embeds | None = None,
    *,
    vectors: Mapping[str, np.ndarray] | None = None,
    settings: PairSettings | None = None,
    statuses: Sequence[str] | None = DEFAULT_STATUSES,
    focus: Collection[str] | None = None,
) -> list[DuplicatePair]:
    """Pairs among `entries` (those with `statuses`; None = all), strongest first.

    Vectors come from `vectors` (e.g. the search cache) or are computed with `embedder`;
    without either only exact duplicates are found. `focus`: only pairs with at least
    one side among these ids (the same pairs as the full list restricted to them, but
    only the focused rows of the similarity matrix are computed).
    """
    pool = [e for e in entries if statuses is None or e.status in statuses]
    focused = None if focus is None else set(focus)
    pairs: dict[tuple[str, str], DuplicatePair] = {}

    by_hash: dict[str, list[Entry]] = {}
    for entry in pool:
        by_hash.setdefault(entry.text_hash, []).append(entry)
    for group in by_hash.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if focused is None or a.id in focused or b.id in focused:
                    pairs[sorted_key(a.id, b.id)] = make_pair(
                        a, b, "exact", 1.0, "same normalised text", "hash"
                    )

    if focused is not None and not any(e.id in focused for e in pool):
        return ordered(pairs.values())
    if len(pool) < 2:
        return ordered(pairs.values())
    pooled = pool_matrix(pool, embedder, vectors)
    matrix = pooled.vectors
    if matrix is None:
        return ordered(pairs.values())
    thresholds = model_thresholds(settings, pooled.measure)
    lowest = min(
        thresholds.duplicate,
        thresholds.contradiction,
        thresholds.number_contradiction,
        thresholds.rephrase,
    )
    statements: dict[int, Statement] = {}
    rows = (
        list(range(len(pool)))
        if focused is None
        else [i for i, e in enumerate(pool) if e.id in focused]
    )
    for start in range(0, len(rows), _BLOCK):
        chunk = rows[start : start + _BLOCK]
        block = matrix[chunk] @ matrix.T
        hits_r, hits_c = np.nonzero(block >= lowest)
        for r, c in zip(hits_r.tolist(), hits_c.tolist(), strict=True):
            i = chunk[r]
            # Each unordered pair once, older index first as in the full pass; a
            # focused row also pairs with earlier rows outside the focus.
            if c == i or (c < i and (focused is None or pool[c].id in focused)):
                continue
            x, y = (i, c) if i < c else (c, i)
            a, b = pool[x], pool[y]
            if sorted_key(a.id, b.id) in pairs:
                continue
            for n in (x, y):
                if n not in statements:
                    statements[n] = Statement.of(pool[n])
            score = float(block[r, c])
            found = verdict(a, b, score, thresholds, statements=(statements[x], statements[y]))
            if found is not None:
                pairs[sorted_key(a.id, b.id)] = make_pair(a, b, found.type, score, found.reason)
    if pooled.measure == "centred":  # both languages in one space: pairs across them
        for cross in cross_lingual_candidates(pool, matrix, focused):
            a, b = pool[cross.x], pool[cross.y]
            if sorted_key(a.id, b.id) in pairs:
                continue
            said = cross_lingual_verdict(a, b, cross.cosine, cross.margin)
            if said is not None:
                pairs[sorted_key(a.id, b.id)] = make_pair(a, b, said[0], cross.cosine, said[1])
    return ordered(pairs.values())
