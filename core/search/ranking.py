"""One ranking from a query's two lists: the configured fusion (fusion.py), then the
status weight and the speaker weight (speakers.py), each hit explained (hits.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from memdesk.core.entry import Entry
from memdesk.core.search.fusion import NEEDS_TERM_COVER, RankedLists, fusion_for, status_weight
from memdesk.core.search.hits import Hit, matched_terms, reason_of
from memdesk.core.search.settings import SearchSettings
from memdesk.core.search.tokenizer import query_terms, scripts_of


def fuse(
    query: str,
    mode: str,
    text_ranked: list[tuple[str, float]],
    semantic_ranked: list[tuple[str, float]],
    cosine: Mapping[str, float],
    entries: Mapping[str, Entry],
    limit: int,
    *,
    settings: SearchSettings,
    cross_lingual: bool,
    weight: Callable[[str], float] = lambda _entry_id: 1.0,
) -> list[Hit]:
    """The best `limit` hits. `cross_lingual`: semantic hits full text cannot see get
    their credit (fusion.convex); `weight(entry_id)` multiplies the fused score."""
    fusion_name = settings.fusion
    terms = query_terms(query)
    lists = RankedLists(text_ranked, semantic_ranked, settings.rrf_k, settings.text_weight)
    if mode == "hybrid" and semantic_ranked and cross_lingual:
        asked_in = scripts_of(query)
        found = {i for i, _ in text_ranked}
        lists.text_blind = {
            i
            for i, _ in semantic_ranked
            if asked_in and i not in found and not asked_in & scripts_of(entries[i].search_text())
        }
    matched: dict[str, list[str]] = {}
    # Matched terms cost a tokenisation per hit: for every text hit only when the
    # fusion weighs by them, otherwise for the hits returned (below).
    if mode == "hybrid" and fusion_name in NEEDS_TERM_COVER and terms:
        matched = {i: matched_terms(terms, entries[i]) for i, _ in text_ranked}
        lists.term_cover = {i: max(len(m), 1) / len(terms) for i, m in matched.items()}
    base = fusion_for(mode, fusion_name)(lists)
    text_rank, sem_rank = lists.text_rank, lists.semantic_rank
    hits = [
        Hit(
            entry_id=entry_id,
            score=score * status_weight(entries[entry_id]) * weight(entry_id),
            reason="",
            matched_terms=matched.get(entry_id, []),
            similarity=cosine.get(entry_id),
            text_rank=text_rank.get(entry_id),
            semantic_rank=sem_rank.get(entry_id),
        )
        for entry_id, score in base.items()
    ]
    hits.sort(key=lambda h: (-h.score, h.text_rank or 1 << 30, h.entry_id))
    hits = hits[:limit]
    for hit in hits:
        entry = entries[hit.entry_id]
        if hit.text_rank is not None and not hit.matched_terms:
            hit.matched_terms = matched_terms(terms, entry)
        hit.reason = reason_of(hit, entry)
    return hits
