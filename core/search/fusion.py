"""How the full-text and semantic lists become one ranking: each fusion is one function.

A fusion takes the two ranked lists of one query (`RankedLists`) and gives each entry
found a base score; `FUSIONS` names them for the `[search] fusion` setting and the mode
("text" and "semantic" use one list alone). The status weight is applied afterwards,
the same for every fusion (`status_weight`). Adding a fusion is one function and one
row in the table.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from memdesk.core.entry import Entry

# Multiplies the fused score: outdated knowledge stays findable but ranks lower.
STATUS_WEIGHT: dict[str, float] = {
    "confirmed": 1.0,
    "candidate": 0.9,
    "superseded": 0.5,
    "expired": 0.5,
}


@dataclass
class RankedLists:
    """One query's retrieval results and what a fusion may weigh them with."""

    text: list[tuple[str, float]]  # (entry id, BM25), best first
    semantic: list[tuple[str, float]]  # (entry id, cosine), best first
    rrf_k: int = 60
    text_weight: float = 0.5
    # Query terms matched per text hit (only for fusions that ask for them).
    term_cover: Mapping[str, float] = field(default_factory=dict)
    # Semantic hits written in no script the query uses (an English question, a Chinese
    # entry): full text cannot see them, so their missing BM25 says nothing.
    text_blind: Collection[str] = frozenset()

    @property
    def text_rank(self) -> dict[str, int]:
        return {i: r for r, (i, _) in enumerate(self.text, 1)}

    @property
    def semantic_rank(self) -> dict[str, int]:
        return {i: r for r, (i, _) in enumerate(self.semantic, 1)}


Fusion = Callable[[RankedLists], dict[str, float]]


def text_only(lists: RankedLists) -> dict[str, float]:
    return dict(lists.text)


def semantic_only(lists: RankedLists) -> dict[str, float]:
    return dict(lists.semantic)


def rrf(lists: RankedLists) -> dict[str, float]:
    """Reciprocal rank fusion (Cormack et al.): 1 / (k + rank) from each list."""
    return _reciprocal(lists, lambda _entry_id: 1.0)


def coverage_rrf(lists: RankedLists) -> dict[str, float]:
    """RRF where a BM25 hit counts by the share of query terms it matches: a hit on one
    stray character of a long question counts less than one matching all of it
    (measured better on the bilingual dev set; bench/search_bilingual.py)."""
    return _reciprocal(lists, lambda entry_id: lists.term_cover.get(entry_id, 1.0))


def convex(lists: RankedLists) -> dict[str, float]:
    """`text_weight` x BM25 scaled by the best BM25, plus the rest x cosine min-max
    scaled over the semantic list. An entry full text cannot see (`text_blind`: written
    in no script the question uses) cannot earn the BM25 share whatever it says; half
    of that share is credited from its semantic score instead (all of it let a merely
    similar entry in the other language outrank exact matches; none kept cross-lingual
    answers below every same-language entry that shares one word: bilingual dev set,
    cross-lingual R@5 0.87 / 0.93 / 0.73 and exact R@1 0.92 / 1.0 / 1.0 for all / half /
    none)."""
    bm25 = dict(lists.text)
    similarity = dict(lists.semantic)
    alpha = lists.text_weight
    bm25_max = max(bm25.values(), default=1.0) or 1.0
    sim_min = min(similarity.values(), default=0.0) if len(similarity) > 1 else 0.0
    sim_span = (max(similarity.values(), default=1.0) - sim_min) or 1.0
    scores: dict[str, float] = {}
    for entry_id in _found(lists):
        base = 0.0
        if entry_id in bm25:
            base += alpha * bm25[entry_id] / bm25_max
        if entry_id in similarity:
            weight = 1 - alpha / 2 if entry_id in lists.text_blind else 1 - alpha
            base += weight * (similarity[entry_id] - sim_min) / sim_span
        scores[entry_id] = base
    return scores


# `[search] fusion` values for hybrid mode; "text" / "semantic" are the single-list modes.
FUSIONS: dict[str, Fusion] = {
    "convex": convex,
    "rrf": rrf,
    "coverage-rrf": coverage_rrf,
}
SINGLE_LIST: dict[str, Fusion] = {"text": text_only, "semantic": semantic_only}
# Fusions that weigh text hits by matched query terms (costs a tokenisation per hit).
NEEDS_TERM_COVER: frozenset[str] = frozenset({"coverage-rrf"})


def fusion_for(mode: str, name: str) -> Fusion:
    """The function for a search mode and the configured fusion name."""
    if mode in SINGLE_LIST:
        return SINGLE_LIST[mode]
    try:
        return FUSIONS[name]
    except KeyError:
        raise ValueError(f"unknown fusion {name!r}; allowed: {', '.join(FUSIONS)}") from None


def status_weight(entry: Entry) -> float:
    """How much an entry's status keeps of its fused score (expired-by-date as expired)."""
    weight = STATUS_WEIGHT.get(entry.status, 1.0)
    if entry.is_past_valid_until():
        weight = min(weight, STATUS_WEIGHT["expired"])
    return weight


def _found(lists: RankedLists) -> list[str]:
    """Every entry either list found, text hits first, each once."""
    return list(dict.fromkeys([i for i, _ in lists.text] + [i for i, _ in lists.semantic]))


def _reciprocal(lists: RankedLists, text_weight: Callable[[str], float]) -> dict[str, float]:
    k = lists.rrf_k
    text_rank = lists.text_rank
    sem_rank = lists.semantic_rank
    scores: dict[str, float] = {}
    for entry_id in _found(lists):
        base = 0.0
        if entry_id in text_rank:
            base += text_weight(entry_id) / (k + text_rank[entry_id])
        if entry_id in sem_rank:
            base += 1.0 / (k + sem_rank[entry_id])
        scores[entry_id] = base
    return scores
